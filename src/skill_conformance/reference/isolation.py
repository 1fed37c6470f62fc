"""A toolset that fails on its own: one skill's dead MCP server costs only that server's tools.

pydantic-ai enters every toolset of a run together, and one that cannot connect fails the run,
so one MCP server that is missing, exits at once, never answers or cannot be reached would take
every skill's tools away. :class:`IsolatedToolset` wraps a server's toolset: a failure to connect
or to list tools is reported once (one problem line), the server is marked failed, and from then
on it offers no tools and is not tried again (until a rebuild creates a new one). A connection the
caller stops waiting for (its run cancelled, as by a timeout of its own shorter than the startup
bound) is given up the same way: tried again, it would cost the next run the same wait. Calls to a
tool of a working server are not touched: a tool's own error stays that tool's result. Every
request to a server is bounded as its handshake is (``reference.mcp_client``): a server that
answers its handshake and then never answers ``tools/list`` is given up the same way, once, rather
than cost every later run (and every healthy skill's tools) the same wait.

The state lives in a :class:`ServerHealth` shared by every copy pydantic-ai makes of the wrapper
(runs copy toolsets with ``dataclasses.replace``), so the manager's enter and every run agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from pydantic_ai import RunContext
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

__all__ = ["IsolatedToolset", "ServerHealth"]

MAX_DETAIL = 300
"""Characters of an error's text a problem line quotes at most."""


@dataclass
class ServerHealth:
    """Whether one server failed, and how many enters of it succeeded and are not exited yet.

    Attributes:
        where: What the problem line says first (the skill file, skill and server).
        report: Receives the one problem line when the server fails.

    """

    where: str
    report: Callable[[str], None]
    failure: str | None = None
    entered: int = 0

    def fail(self, error: BaseException) -> None:
        """Mark the server failed and report it, once."""
        detail = " ".join(str(error).split())
        if len(detail) > MAX_DETAIL:
            detail = detail[:MAX_DETAIL] + "..."
        self.give_up(f"{type(error).__name__}: {detail}" if detail else type(error).__name__)

    def give_up(self, why: str) -> None:
        """Mark the server failed for ``why`` and report it, once."""
        if self.failure is not None:
            return
        self.failure = why
        self.report(f"{self.where}: cannot be used: {why}; its tools are not offered")


@dataclass
class IsolatedToolset(WrapperToolset[Any]):
    """A server's toolset whose failure to connect or list tools leaves it with no tools."""

    health: ServerHealth = field(kw_only=True)

    @property
    def failed(self) -> bool:
        """Whether the server failed (it offers no tools from then on)."""
        return self.health.failure is not None

    async def __aenter__(self) -> IsolatedToolset:
        if self.failed:
            return self
        try:
            await self.wrapped.__aenter__()
        except anyio.get_cancelled_exc_class():
            self.health.give_up("its start was cut short: the run waiting for it was cancelled")
            raise
        except Exception as error:
            self.health.fail(error)
            return self
        self.health.entered += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        # Only the enters that succeeded are exited: a failed one left nothing open.
        if self.health.entered == 0:
            return None
        self.health.entered -= 1
        return await self.wrapped.__aexit__(*args)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The server's tools; none once it failed."""
        if self.failed:
            return {}
        try:
            return await self.wrapped.get_tools(ctx)
        except Exception as error:
            self.health.fail(error)
            return {}

    async def get_instructions(self, ctx: RunContext[Any]) -> Any:
        """The server's instructions; none once it failed."""
        if self.failed:
            return None
        inherited = getattr(super(), "get_instructions", None)  # pydantic-ai 2.x only
        if inherited is None:
            return None
        try:
            return await inherited(ctx)
        except Exception as error:
            self.health.fail(error)
            return None

    def _instruction_children(self) -> Sequence[AbstractToolset[Any]]:
        return () if self.failed else (self.wrapped,)
