"""Mutants of the skill manager: each a ``SkillManagerCap`` subclass with one defect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, CombinedToolset, FilteredToolset, FunctionToolset

from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.manager import SkillManagerCap, _prefixed, _server
from skill_conformance.reference.skill import Skill, mcp_tool_prefix, python_tool_prefix
from tests.mutants.base import mutant


def _toolset(
    manager: SkillManagerCap,
    *,
    python_prefix: Callable[[str], str] = python_tool_prefix,
    mcp_prefix: Callable[[str, McpServerCap], str] = lambda skill, _: mcp_tool_prefix(skill),
    raw_mcp: bool = False,
    children: bool = True,
) -> AbstractToolset[Any] | None:
    """The manager's toolset as ``SkillManagerCap.get_toolset`` builds it, with knobs to break."""
    toolsets: list[AbstractToolset[Any]] = []
    for name in manager.skills:
        tools = manager._skill_tools.get(name)
        if tools is not None:
            toolsets.append(_prefixed(tools, python_prefix(name)))
        for server in manager.skill_mcp_children(name):
            toolsets.append(_prefixed(server.get_toolset(), mcp_prefix(name, server)))
            if raw_mcp:
                toolsets.append(server.get_toolset())
    for child in manager.children if children else ():
        toolset = child.get_toolset()
        if isinstance(toolset, AbstractToolset):
            toolsets.append(toolset)
    return CombinedToolset(toolsets) if toolsets else None


# -- SkillManagerCap SHALL extend CombinedToolsetCapability -------------------------------------


class DropsChildTools(SkillManagerCap):
    """Offers the skills' tools but not those of its non-skill children."""

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return _toolset(self, children=False)


class CallsSuperToolset(SkillManagerCap):
    """Also offers each skill MCP server's tools unprefixed, as a plain combined toolset would."""

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return _toolset(self, raw_mcp=True)


class ImportsToolsLazily(SkillManagerCap):
    """Imports the skills' Python tools on the first toolset request, not when built."""

    def _import_skill_tools(self, skill: Skill) -> None:
        self._pending = [*getattr(self, "_pending", []), skill]

    def get_toolset(self) -> AbstractToolset[Any] | None:
        pending, self._pending = getattr(self, "_pending", []), []
        for skill in pending:
            SkillManagerCap._import_skill_tools(self, skill)
        return super().get_toolset()


class ExitsInStartOrder(SkillManagerCap):
    """Exits its children in the order it entered them, not the reverse."""

    _entered_children: list[Any]

    async def __aenter__(self) -> ExitsInStartOrder:
        if self._depth == 0:
            self._entered_children = []
            for child in self._lifecycle_children():
                await child.__aenter__()
                self._entered_children.append(child)
        self._depth += 1
        return self

    async def aclose(self) -> None:
        children, self._entered_children = getattr(self, "_entered_children", []), []
        self._stack, self._depth = None, 0
        for child in children:
            await child.__aexit__(None, None, None)


# -- SkillManagerCap SHALL filter tools via composite allowed_tools filter ---------------------


def _filter(
    manager: SkillManagerCap,
    toolset: AbstractToolset[Any],
    *,
    declared: Callable[[frozenset[str] | None], bool] = lambda allowed: allowed is not None,
    owner: Callable[[str, str], bool] = lambda tool, skill: (
        tool.startswith(python_tool_prefix(skill)) or tool.startswith(mcp_tool_prefix(skill))
    ),
    bare: Callable[[str, str], str] = lambda tool, skill: tool.split("__", 2)[2],
) -> AbstractToolset[Any] | None:
    """The ``allowed-tools`` filter, with knobs to break."""
    allowed = {
        skill.name: skill.allowed_tools or frozenset()
        for skill in manager.skills.values()
        if declared(skill.allowed_tools)
    }
    if not allowed:
        return None

    def keep(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
        for skill, names in allowed.items():
            if owner(tool_def.name, skill):
                return bare(tool_def.name, skill) in names
        return True

    return FilteredToolset(toolset, keep)


class FiltersByBareNamePrefix(SkillManagerCap):
    """Tells a skill's tools by its bare name as a prefix, so `data` also filters `data-extra`."""

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return _filter(self, toolset, owner=lambda tool, skill: tool.startswith(skill))


class FiltersEveryToolNamedAfterSkill(SkillManagerCap):
    """Takes every tool named ``{skill}__...`` for the skill's, so a host's `data__helper` too."""

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return _filter(
            self,
            toolset,
            owner=lambda tool, skill: tool.startswith(f"{skill}__"),
            bare=lambda tool, skill: tool.split("__", 2)[-1],
        )


class BareNameAfterLastSeparator(SkillManagerCap):
    """Takes a tool's bare name after the last ``__``, so `get__item` is read as `item`."""

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return _filter(self, toolset, bare=lambda tool, skill: tool.rsplit("__", 1)[1])


class EmptyAllowedToolsMeansAll(SkillManagerCap):
    """Treats an empty ``allowed-tools`` list as no filter."""

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return _filter(self, toolset, declared=bool)


# -- for_run() -----------------------------------------------------------------------------


def _lost() -> str:
    """A tool whose function the run copy no longer has."""
    return "tool manager lost"


class ForRunLosesSkillTools(SkillManagerCap):
    """RFC regression (b): the per-run copy is made without the skills' Python tools."""

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        run_copy = await super().for_run(ctx)
        run_copy._skill_tools = {}
        return run_copy


class ForRunToolsUncallable(SkillManagerCap):
    """The per-run copy offers the same tool names, but without the functions behind them."""

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        run_copy = await super().for_run(ctx)
        run_copy._skill_tools = {
            skill: FunctionToolset([Tool(_lost, name=name) for name in tools.tools], id=tools.id)
            for skill, tools in self._skill_tools.items()
        }
        return run_copy


class ForRunKeepsFirstSkillTools(SkillManagerCap):
    """The per-run copy keeps the Python tools of the first skill that has any, and no other."""

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        run_copy = await super().for_run(ctx)
        run_copy._skill_tools = dict(list(self._skill_tools.items())[:1])
        return run_copy


class ForRunRestartsServers(SkillManagerCap):
    """The per-run copy gets MCP server children of its own, started again for each run."""

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        run_copy = await super().for_run(ctx)
        run_copy._skill_mcp_children = {
            name: [McpServerCap(_server(name, spec)) for spec in self.skills[name].mcp_servers]
            for name in self._skill_mcp_children
        }
        return run_copy


# -- Skill Python tools / MCP servers SHALL be registered as prefixed agent tools -----------


class SingleUnderscoreToolPrefix(SkillManagerCap):
    """Names Python tools ``{skill}_tool_{name}``."""

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return _toolset(self, python_prefix=lambda skill: f"{skill}_tool_")


class ImportFailureAbortsBuild(SkillManagerCap):
    """Lets a tool that does not import stop the whole manager from being built."""

    def _import_skill_tools(self, skill: Skill) -> None:
        before = len(self.problems)
        super()._import_skill_tools(skill)
        if len(self.problems) > before:
            raise RuntimeError(self.problems[-1])


class McpPrefixedByServer(SkillManagerCap):
    """Prefixes MCP tools with the server's name instead of the skill's."""

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return _toolset(self, mcp_prefix=lambda skill, server: f"{server.label}__mcp__")


DropsChildToolsMutant = mutant("DropsChildToolsMutant", manager=DropsChildTools)
CallsSuperToolsetMutant = mutant("CallsSuperToolsetMutant", manager=CallsSuperToolset)
ImportsToolsLazilyMutant = mutant("ImportsToolsLazilyMutant", manager=ImportsToolsLazily)
ExitsInStartOrderMutant = mutant("ExitsInStartOrderMutant", manager=ExitsInStartOrder)
FiltersByBareNamePrefixMutant = mutant(
    "FiltersByBareNamePrefixMutant", manager=FiltersByBareNamePrefix
)
FiltersEveryToolNamedAfterSkillMutant = mutant(
    "FiltersEveryToolNamedAfterSkillMutant", manager=FiltersEveryToolNamedAfterSkill
)
BareNameAfterLastSeparatorMutant = mutant(
    "BareNameAfterLastSeparatorMutant", manager=BareNameAfterLastSeparator
)
EmptyAllowedToolsMeansAllMutant = mutant(
    "EmptyAllowedToolsMeansAllMutant", manager=EmptyAllowedToolsMeansAll
)
ForRunLosesSkillToolsMutant = mutant("ForRunLosesSkillToolsMutant", manager=ForRunLosesSkillTools)
ForRunToolsUncallableMutant = mutant("ForRunToolsUncallableMutant", manager=ForRunToolsUncallable)
ForRunKeepsFirstSkillToolsMutant = mutant(
    "ForRunKeepsFirstSkillToolsMutant", manager=ForRunKeepsFirstSkillTools
)
ForRunRestartsServersMutant = mutant("ForRunRestartsServersMutant", manager=ForRunRestartsServers)
SingleUnderscoreToolPrefixMutant = mutant(
    "SingleUnderscoreToolPrefixMutant", manager=SingleUnderscoreToolPrefix
)
ImportFailureAbortsBuildMutant = mutant(
    "ImportFailureAbortsBuildMutant", manager=ImportFailureAbortsBuild
)
McpPrefixedByServerMutant = mutant("McpPrefixedByServerMutant", manager=McpPrefixedByServer)
