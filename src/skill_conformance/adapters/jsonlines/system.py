"""One scenario's system, living in the implementation process."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skill_conformance.adapters.jsonlines.channel import Channel
from skill_conformance.adapters.jsonlines.protocol import (
    ProtocolError,
    object_of,
    setup_json,
    shown,
    strings_of,
    value_of,
)
from skill_conformance.port import AgentPath, ResolvedSkill, RunRecord, Scope, Setup, SkillListing

if TYPE_CHECKING:
    from skill_conformance.adapters.jsonlines.implementation import JsonlinesImplementation

__all__ = ["JsonlinesSystem"]

_REQUEST_LIMIT = 3600.0
"""An outer bound only: the suite's scenario timeout cancels a request long before, and the
cancellation kills the process, which ends the request's thread at once."""


class JsonlinesSystem:
    """One scenario's system, living in the implementation process."""

    def __init__(self, implementation: JsonlinesImplementation, setup: Setup) -> None:
        self._implementation = implementation
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
        self._implementation.discard()

    async def _refresh_problems(self) -> None:
        self._problems = strings_of("problems", await self._call("problems"))

    async def start(self) -> None:  # noqa: D102
        try:
            self._channel = await asyncio.to_thread(self._implementation.channel)
        except asyncio.CancelledError:
            self._lose()  # a handshake that overran the scenario timeout
            raise
        python_path = self._implementation.python_path()
        await self._call("open", setup=setup_json(self._setup, python_path))
        await self._call("start")
        await self._refresh_problems()

    async def tool_names(self) -> Sequence[str]:  # noqa: D102
        names = strings_of("tool_names", await self._call("tool_names"))
        await self._refresh_problems()  # a run may find an MCP server unusable
        return names

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:  # noqa: D102
        record = object_of("run_tool", await self._call("run_tool", name=name, arguments=arguments))
        offered = tuple(strings_of("run_tool", record.get("offered")))
        await self._refresh_problems()
        return RunRecord(offered=offered, result=record.get("result"))

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:  # noqa: D102
        return str(await self._call("load_skill", skill=skill, arguments=arguments))

    async def list_skills(self) -> Sequence[SkillListing]:  # noqa: D102
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

    async def read_skill_file(self, skill: str, path: str) -> str:  # noqa: D102
        return str(await self._call("read_skill_file", skill=skill, path=path))

    async def resolve_uri(self, uri: str) -> ResolvedSkill:  # noqa: D102
        resolved = object_of("resolve_uri", await self._call("resolve_uri", uri=uri))
        return ResolvedSkill(name=str(resolved["name"]), instructions=str(resolved["instructions"]))

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:  # noqa: D102
        names = await self._call("registry_skill_names", scope=scope.value)
        return strings_of("registry_skill_names", names)

    async def rebuild(self) -> None:  # noqa: D102
        await self._call("rebuild")
        await self._refresh_problems()

    async def enter(self) -> None:  # noqa: D102
        await self._call("enter")
        await self._refresh_problems()  # entering may find an MCP server unusable

    async def exit(self) -> None:  # noqa: D102
        await self._call("exit")

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:  # noqa: D102
        return strings_of("agent_tool_names", await self._call("agent_tool_names", path=path.value))

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:  # noqa: D102
        return str(await self._call("agent_load_skill", path=path.value, skill=skill))

    def problems(self) -> Sequence[str]:  # noqa: D102
        return list(self._problems)

    async def close(self) -> None:  # noqa: D102
        if self._channel is None:
            return
        try:
            await self._call("close")
        finally:
            self._channel = None
