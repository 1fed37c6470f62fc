"""The skill manager: the one capability holding every local skill of a pool.

It offers, in one toolset:

- each skill's Python tools as ``{skill}__tool__{function}`` (imported when the manager is built);
- each skill's MCP server tools as ``{skill}__mcp__{tool}`` (one :class:`McpServerCap` per server,
  created when the manager is built, connected only when entered or used by a run);
- the tools of its non-skill children under their own names, once each.

``allowed-tools`` is applied per skill by :meth:`SkillManagerCap.get_wrapper_toolset`, which
pydantic-ai calls on every run. Entering the manager enters the skills' MCP servers in skill order,
then the non-skill children in the order given; exiting exits them in the reverse order.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from types import TracebackType
from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import (
    AbstractToolset,
    CombinedToolset,
    FilteredToolset,
    FunctionToolset,
    PrefixedToolset,
)

from skill_conformance.reference.capabilities import IdentityCapability, McpServerCap
from skill_conformance.reference.errors import SkillNotFoundError, ToolImportError
from skill_conformance.reference.importer import IMPORT_TIMEOUT, import_tool, tool_name
from skill_conformance.reference.isolation import MAX_DETAIL, IsolatedToolset, ServerHealth
from skill_conformance.reference.loader import SKILL_FILE
from skill_conformance.reference.mcp_client import (
    STARTUP_TIMEOUT,
    McpServer,
    http_server,
    stdio_server,
)
from skill_conformance.reference.resources import LOCAL_SOURCE, SkillEntry, SkillResource
from skill_conformance.reference.skill import (
    McpServerSpec,
    Skill,
    mcp_tool_prefix,
    python_tool_prefix,
)
from skill_conformance.reference.uri import format_skill_uri

__all__ = ["SkillManagerCap"]


class SkillManagerCap(IdentityCapability):
    """The skill manager capability.

    Args:
        skills: The local skills, in the order their tools are offered and servers entered.
        children: Non-skill child capabilities (plain toolsets, MCP servers, remote skill
            providers), offered unprefixed.
        name: A name for messages.
        import_timeout: Seconds each tool module may take to import.
        startup_timeout: Seconds each skill MCP server may take to answer its handshake.

    Attributes:
        problems: One line per tool that could not be imported when the manager was built, and
            per skill MCP server that could not be used (found when entered or during a run).

    """

    def __init__(
        self,
        skills: Iterable[Skill],
        children: Sequence[AbstractCapability[Any]] = (),
        *,
        name: str = "skills",
        import_timeout: float = IMPORT_TIMEOUT,
        startup_timeout: float = STARTUP_TIMEOUT,
    ) -> None:
        self.name = name
        self.problems: list[str] = []
        self._import_timeout = import_timeout
        self._startup_timeout = startup_timeout
        self._skills = {skill.name: skill for skill in skills}
        self._children = tuple(children)
        self._skill_tools: dict[str, FunctionToolset[Any]] = {}
        self._skill_mcp_children: dict[str, list[McpServerCap]] = {}
        for skill in self._skills.values():
            self._import_skill_tools(skill)
            self._create_skill_mcp_children(skill)
        self._stack: AsyncExitStack | None = None
        self._depth = 0

    # -- building ----------------------------------------------------------------------------

    def _import_skill_tools(self, skill: Skill) -> None:
        tools: dict[str, Tool[Any]] = {}
        for spec in skill.tools:
            location = _skill_file(skill) + (f":{spec.line}" if spec.line is not None else "")
            where = f"{location}: skill {skill.name!r}: {spec.where}.import_path"
            try:
                function = self._import(spec.import_path)
                name = tool_name(function)
                if name in tools:
                    raise ToolImportError(
                        f"{spec.import_path!r} is a tool named {name!r}, already declared"
                    )
                # pydantic-ai would take the same name from the function: equivalent mutants.
                tools[name] = Tool(function, name=name)  # pragma: no mutate
            except ToolImportError as error:
                self.problems.append(f"{where}: {_one_line(error)}; tool skipped")
            except Exception as error:
                problem = f"{spec.import_path!r}: {type(error).__name__}: {_one_line(error)}"
                self.problems.append(f"{where}: {problem}; tool skipped")
        if tools:
            self._skill_tools[skill.name] = FunctionToolset(
                # The id only labels the toolset in pydantic-ai's own messages.
                list(tools.values()),
                id=f"{skill.name}__tool",  # pragma: no mutate
            )

    def _import(self, import_path: str) -> Callable[..., Any]:
        """The tool function at ``import_path``, imported within the manager's time bound."""
        return import_tool(import_path, self._import_timeout)

    def _isolated(self, skill: Skill, spec: McpServerSpec, server: McpServer) -> McpServer:
        """``server`` whose failure costs only its own tools, reported once as a problem."""
        where = f"{_skill_file(skill)}: skill {skill.name!r}: MCP server {spec.name!r}"
        health = ServerHealth(where, self.problems.append)
        return server.wrapped(IsolatedToolset(server.toolset, health=health))

    def _create_skill_mcp_children(self, skill: Skill) -> None:
        children = []
        for spec in skill.mcp_servers:
            # The skill's name only goes into the toolset id (see _server): equivalent mutants.
            server = _server(skill.name, spec, self._startup_timeout)  # pragma: no mutate
            children.append(McpServerCap(self._isolated(skill, spec, server)))
        if children:
            self._skill_mcp_children[skill.name] = children

    # -- what it holds -----------------------------------------------------------------------

    @property
    def skills(self) -> Mapping[str, Skill]:
        """The local skills by name."""
        return self._skills

    @property
    def children(self) -> tuple[AbstractCapability[Any], ...]:
        """The non-skill children, in order."""
        return self._children

    def skill_mcp_children(self, skill: str) -> list[McpServerCap]:
        """The MCP server capabilities belonging to ``skill``, in declaration order."""
        return list(self._skill_mcp_children.get(skill, ()))

    def python_tool_names(self, skill: str) -> list[str]:
        """The agent-facing names of ``skill``'s Python tools that the agent is offered.

        Those that were imported and that the skill's ``allowed-tools`` keep.
        """
        tools = self._skill_tools.get(skill)
        if tools is None:
            return []
        allowed = self._skills[skill].allowed_tools
        prefix = python_tool_prefix(skill)
        return [f"{prefix}{name}" for name in tools.tools if allowed is None or name in allowed]

    def remote_skill_resources(self) -> list[SkillResource]:
        """The non-skill children that are skill resources (remote skill providers)."""
        return [child for child in self._children if isinstance(child, SkillResource)]

    # -- the toolset -------------------------------------------------------------------------

    def get_toolset(self) -> AbstractToolset[Any] | None:
        """Every skill's prefixed tools, then the non-skill children's own tools."""
        toolsets: list[AbstractToolset[Any]] = []
        for name in self._skills:
            tools = self._skill_tools.get(name)
            if tools is not None:
                toolsets.append(_prefixed(tools, python_tool_prefix(name)))
            for server in self._skill_mcp_children.get(name, ()):
                toolsets.append(_prefixed(server.get_toolset(), mcp_tool_prefix(name)))
        for child in self._children:
            toolset = child.get_toolset()
            if toolset is None:
                continue
            if not isinstance(toolset, AbstractToolset):
                raise TypeError(f"child {child!r} of {self.name!r} returned a non-toolset")
            toolsets.append(toolset)
        return CombinedToolset(toolsets) if toolsets else None

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        """Narrow each skill's tools to its ``allowed-tools``; other tools pass untouched.

        A tool under ``{skill}__tool__`` or ``{skill}__mcp__`` stays only if the rest of its name
        (its bare name, which may itself contain ``__``) is allowed. Skill names cannot contain
        ``_``, so no skill's prefix is a prefix of another's.
        """
        allowed = {
            skill.name: frozenset(skill.allowed_tools)
            for skill in self._skills.values()
            if skill.allowed_tools is not None
        }
        if not allowed:
            return None

        def keep(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
            # The skill a name may belong to is what comes before its first "__": one lookup.
            skill = tool_def.name.partition("__")[0]
            names = allowed.get(skill)
            if names is None:
                return True
            for prefix in (python_tool_prefix(skill), mcp_tool_prefix(skill)):
                if tool_def.name.startswith(prefix):
                    return tool_def.name[len(prefix) :] in names
            return True

        return FilteredToolset(toolset, keep)

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        """A copy for one run: the same imported tools and the same MCP servers (shared).

        The copy holds each non-skill child's own ``for_run`` result and has not been entered.
        """
        run_copy = copy.copy(self)
        run_copy._children = tuple([await child.for_run(ctx) for child in self._children])
        run_copy._stack = None
        run_copy._depth = 0
        return run_copy

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def entered(self) -> bool:
        """Whether the manager is entered (its children are entered)."""
        return self._depth > 0

    async def __aenter__(self) -> SkillManagerCap:
        if self._depth == 0:
            async with AsyncExitStack() as stack:
                for child in self._lifecycle_children():
                    await stack.enter_async_context(child)
                self._stack = stack.pop_all()
        self._depth += 1
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._depth == 0:
            raise RuntimeError(f"skill manager {self.name!r} exited more often than entered")
        self._depth -= 1
        if self._depth == 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Exit every child now, in reverse order, however often the manager was entered."""
        stack, self._stack, self._depth = self._stack, None, 0
        if stack is not None:
            await stack.aclose()

    def _lifecycle_children(self) -> list[AbstractAsyncContextManager[Any]]:
        ordered: list[object] = [
            child for name in self._skills for child in self._skill_mcp_children.get(name, ())
        ]
        ordered.extend(self._children)
        return [child for child in ordered if isinstance(child, AbstractAsyncContextManager)]

    # -- skill resource ----------------------------------------------------------------------

    async def list_skills(self) -> list[SkillEntry]:
        """One entry per local skill, with its flat URI."""
        return [
            SkillEntry(skill.name, skill.description, LOCAL_SOURCE, format_skill_uri(skill.name))
            for skill in self._skills.values()
        ]

    async def read_skill(self, name: str) -> Skill:
        """The local skill ``name``."""
        try:
            return self._skills[name]
        except KeyError:
            raise SkillNotFoundError(name) from None


def _prefixed(toolset: AbstractToolset[Any], prefix: str) -> PrefixedToolset[Any]:
    # PrefixedToolset names tools f"{prefix}_{name}": it adds the last "_" of the prefix itself.
    return PrefixedToolset(toolset, prefix=prefix.removesuffix("_"))


def _server(skill: str, spec: McpServerSpec, timeout: float) -> McpServer:
    # The id only labels the toolset in pydantic-ai's own messages; no behaviour reads it.
    toolset_id = f"{mcp_tool_prefix(skill)}{spec.name}"  # pragma: no mutate
    if spec.command is not None:
        return stdio_server(
            spec.command, spec.args, spec.env, id=toolset_id, label=spec.name, timeout=timeout
        )
    assert spec.url is not None, "the loader keeps only servers with a command or a url"
    return http_server(spec.url, spec.headers, id=toolset_id, label=spec.name, timeout=timeout)


def _one_line(error: Exception) -> str:
    """The error's text on one line, cut to what a problem line may quote."""
    text = " ".join(str(error).split())
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL] + "..."


def _skill_file(skill: Skill) -> str:
    return str(skill.directory / SKILL_FILE) if skill.directory is not None else skill.name
