"""Profiles: which scenarios a run holds, by what is under test.

A skill system (``--impl``) is tested by every scenario but the server profile's; an MCP server
serving skills (``--server``) by the server profile's scenarios (``@profile:mcp-server``) alone.
Neither gets a verdict for the other's: a scenario outside the run's profile is deselected. The
host profile's scenarios (``@profile:mcp-host``) belong to a skill system's run only when the
implementation declares itself a host of MCP's Skills Extension (``port.hosts_mcp_skills``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_conformance.port import Ability, AsyncSkillSystem, Setup, Unsupported
from skill_conformance.runtime.served import ServerEntry

__all__ = ["HOST_PROFILE", "SERVER_PROFILE", "ServerUnderTest", "in_profile"]

SERVER_PROFILE = "mcp-server"
HOST_PROFILE = "mcp-host"


def in_profile(tags: Mapping[str, Sequence[str]], server: bool, host: bool = False) -> bool:
    """Whether a scenario with ``tags`` belongs to a run testing a server (or a skill system).

    ``host``: the skill system declares itself a host of MCP's Skills Extension.
    """
    profiles = tags.get("profile", ())
    if HOST_PROFILE in profiles:
        return host and not server
    return (SERVER_PROFILE in profiles) == server


class ServerUnderTest:
    """The implementation a server-profile run reports: the server's entry, no skill system."""

    def __init__(self, entry: ServerEntry) -> None:
        self.entry = entry
        self.name = entry.name
        self.version = entry.version
        self.unsupported: Mapping[Ability, str] = {}
        self.cannot_drive: str | None = None

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """No skill system: the server profile speaks MCP to the server itself."""
        raise Unsupported("the thing under test is an MCP server, not a skill system")

    def close(self) -> None:
        """Nothing held for the run: each scenario starts and stops its own server."""
