"""Plain capabilities: a toolset as a capability, and an MCP server as one.

Capabilities here compare by identity. pydantic-ai's ``AbstractCapability`` is a dataclass, so
two instances of one subclass would otherwise compare equal, and the registry and the skill
manager must tell instances apart.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.toolsets import AbstractToolset

from skill_conformance.reference.errors import SkillNotFoundError
from skill_conformance.reference.mcp_client import McpServer
from skill_conformance.reference.resources import SkillEntry
from skill_conformance.reference.skill import Skill

__all__ = ["IdentityCapability", "McpServerCap", "ToolsetCap"]


class IdentityCapability(AbstractCapability[Any]):
    """A capability equal only to itself."""

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        # Any constant-per-object hash is as good: equality is identity.
        return id(self)  # pragma: no mutate


class ToolsetCap(IdentityCapability):
    """A capability that offers one toolset and nothing else; not a skill resource."""

    def __init__(self, toolset: AbstractToolset[Any]) -> None:
        self.toolset = toolset

    def get_toolset(self) -> AbstractToolset[Any]:
        """The toolset, unchanged."""
        return self.toolset


class McpServerCap(IdentityCapability):
    """An MCP server as a capability: its tools, and its resources as skills.

    Building it starts nothing. Entering it connects (once, shared by every enter, including the
    ones an agent run makes on its toolset); exiting it disconnects when the last user leaves.
    As a skill resource, each MCP resource is a skill: the resource name is the skill's name, its
    description the skill's description, its content the skill's instructions.
    """

    def __init__(self, server: McpServer) -> None:
        self.server = server

    @property
    def label(self) -> str:
        """The server's label; the source of the skills it offers."""
        return self.server.label

    def get_toolset(self) -> AbstractToolset[Any]:
        """The server's tools, unprefixed."""
        return self.server.toolset

    async def __aenter__(self) -> McpServerCap:
        await self.server.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # The MCP clients ignore the exception details: passing them on is courtesy.
        await self.server.__aexit__(exc_type, exc, traceback)  # pragma: no mutate

    async def list_skills(self) -> list[SkillEntry]:
        """One entry per MCP resource of the server."""
        async with self.server:
            resources = await self.server.resources()
        return [
            SkillEntry(name=r.name, description=r.description or r.name, source=self.label)
            for r in resources
        ]

    async def read_skill(self, name: str) -> Skill:
        """The skill of the resource named ``name``."""
        async with self.server:
            for resource in await self.server.resources():
                if resource.name == name:
                    return Skill(
                        name=name,
                        description=resource.description or name,
                        instructions=await self.server.read_text(resource.uri),
                        source=self.label,
                    )
        raise SkillNotFoundError(name)
