"""One scenario's system, living in the implementation process."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from typing_extensions import override

from skill_conformance.adapters.jsonlines.channel import Channel
from skill_conformance.adapters.jsonlines.protocol import (
    ProtocolError,
    object_of,
    setup_json,
    shown,
    strings_of,
    value_of,
)
from skill_conformance.port import (
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
)

__all__ = ["JsonlinesSystem", "Process"]

_REQUEST_LIMIT = 3600.0
"""An outer bound only: the suite's scenario timeout cancels a request long before, and the
cancellation kills the process, which ends the request's thread at once."""


class Process(Protocol):
    """The implementation process the systems of a run share."""

    def channel(self) -> Channel:
        """The live process, started (with its handshake) if the last one is gone."""
        ...

    def discard(self) -> None:
        """Kill the process: it is in an unknown state, and the next system starts another."""
        ...


class JsonlinesSystem(AsyncSkillSystem):
    """One scenario's system, living in the implementation process."""

    def __init__(self, process: Process, setup: Setup) -> None:
        self._process = process
        self._setup = setup
        self._channel: Channel | None = None
        self._problems: list[str] = []

    async def _call(self, op: str, **args: object) -> Any:
        channel = self._channel
        if channel is None:
            raise ProtocolError(f"{op}: the system was not opened (start() failed or not called)")
        try:
            response = await asyncio.to_thread(channel.request, op, args, _REQUEST_LIMIT)
        except (asyncio.CancelledError, ProtocolError):
            # A timeout or a broken protocol: the process is in an unknown state; end it.
            self._lose()
            raise
        return value_of(op, response)

    def _lose(self) -> None:
        self._channel = None
        self._process.discard()

    async def _refresh_problems(self) -> None:
        self._problems = strings_of("problems", await self._call("problems"))

    @override
    async def start(self) -> None:
        try:
            self._channel = await asyncio.to_thread(self._process.channel)
        except asyncio.CancelledError:
            self._lose()  # a handshake that overran the scenario timeout
            raise
        await self._call("open", setup=setup_json(self._setup))
        await self._call("start")
        await self._refresh_problems()

    @override
    async def tool_names(self) -> Sequence[str]:
        names = strings_of("tool_names", await self._call("tool_names"))
        await self._refresh_problems()  # a run may find an MCP server unusable
        return names

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        record = object_of("run_tool", await self._call("run_tool", name=name, arguments=arguments))
        offered = tuple(strings_of("run_tool", record.get("offered")))
        await self._refresh_problems()
        return RunRecord(offered=offered, result=record.get("result"))

    @override
    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        return str(await self._call("load_skill", skill=skill, arguments=arguments))

    @override
    async def list_skills(self) -> Sequence[SkillListing]:
        entries = await self._call("list_skills")
        if not isinstance(entries, list):
            raise ProtocolError(f"list_skills: expected a list, got {shown(entries)}")
        listings = []
        for entry in entries:
            item = object_of("list_skills", entry)
            uri = item.get("uri")
            listings.append(
                SkillListing(
                    name=str(item["name"]),
                    description=str(item.get("description", "")),
                    source=str(item.get("source", "")),
                    uri=None if uri is None else str(uri),
                )
            )
        return listings

    @override
    async def read_skill_file(self, skill: str, path: str) -> str:
        return str(await self._call("read_skill_file", skill=skill, path=path))

    @override
    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        resolved = object_of("resolve_uri", await self._call("resolve_uri", uri=uri))
        return ResolvedSkill(name=str(resolved["name"]), instructions=str(resolved["instructions"]))

    @override
    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        names = await self._call("registry_skill_names", scope=scope.value)
        return strings_of("registry_skill_names", names)

    @override
    async def rebuild(self) -> None:
        await self._call("rebuild")
        await self._refresh_problems()

    @override
    async def enter(self) -> None:
        await self._call("enter")
        await self._refresh_problems()  # entering may find an MCP server unusable

    @override
    async def exit(self) -> None:
        await self._call("exit")

    @override
    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        return strings_of("agent_tool_names", await self._call("agent_tool_names", path=path.value))

    @override
    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        return str(await self._call("agent_load_skill", path=path.value, skill=skill))

    @override
    def problems(self) -> Sequence[str]:
        return list(self._problems)

    @override
    async def close(self) -> None:
        if self._channel is None:
            return
        try:
            await self._call("close")
        finally:
            self._channel = None
