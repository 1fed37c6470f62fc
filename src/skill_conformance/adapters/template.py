"""A skeleton adapter to copy when porting the suite elsewhere (``--impl template``).

It runs as it is: every operation raises :class:`NotImplementedOperation`, so each scenario ends
*errored* with a message naming the operation to write next. Copy this file, rename the classes,
and replace one ``raise`` at a time, starting with :meth:`TemplateSystem.start` and
:meth:`TemplateSystem.tool_names`; ``skill-conformance smoke --impl yourmodule:YourImplementation``
shows which operations work. docs/porting.md explains each operation, the abilities and the error
kinds.

Where your implementation has no equivalent of a feature, do not fake one: list the ability in
``unsupported`` with the reason (its scenarios are then *not applicable*), or, for one operation
or one form of its arguments, ``raise skill_conformance.port.Unsupported("the reason")`` from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skill_conformance.errors import ImplementationError
from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
)

__all__ = ["NotImplementedOperation", "TemplateImplementation", "TemplateSystem"]


class NotImplementedOperation(ImplementationError, NotImplementedError):
    """An operation of the port this adapter does not implement yet."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"{operation}() is not implemented yet (docs/porting.md: {operation})")
        self.operation = operation


class TemplateImplementation:
    """The implementation under test, as ``--impl`` loads it (called with no arguments)."""

    name = "template"
    version = "0.0.0"
    # An installed version your adapter cannot drive at all: set the reason (see the port).
    cannot_drive: str | None = None

    def __init__(self) -> None:
        # Abilities your implementation lacks, each with the reason reports show for the
        # scenarios needing it (they become "not applicable"), for example:
        #     {Ability.MCP: "no MCP client yet", Ability.POOL_REBUILD: "no pool"}
        # The abilities are in skill_conformance.port.Ability; docs/porting.md explains each.
        self.unsupported: Mapping[Ability, str] = {}

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """Prepare a system for one scenario; build nothing until ``start``."""
        return TemplateSystem(setup)

    def close(self) -> None:
        """Release what the implementation holds for the whole run, after the last scenario."""


class TemplateSystem:
    """Your implementation opened on one scenario's :class:`~skill_conformance.port.Setup`."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup

    async def start(self) -> None:
        """Build the skill manager from ``setup.skills_dir`` as production does; no process."""
        raise NotImplementedOperation("start")

    async def tool_names(self) -> Sequence[str]:
        """The tool names the model is offered in a real agent run, in order."""
        raise NotImplementedOperation("tool_names")

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        """Run an agent whose model calls ``name`` once; what it was offered and got back."""
        raise NotImplementedOperation("run_tool")

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """Call the real ``load_skill`` tool with a bare name or a ``skill://`` URI."""
        raise NotImplementedOperation("load_skill")

    async def list_skills(self) -> Sequence[SkillListing]:
        """Call the real ``list_skills`` tool."""
        raise NotImplementedOperation("list_skills")

    async def read_skill_file(self, skill: str, path: str) -> str:
        """Read one of ``skill``'s files by its relative ``path``, with the reader agents get.

        Pass ``path`` on as given; a path leading outside the skill must be refused. No reader?
        Declare ``Ability.READ_FILE`` unsupported, or raise ``Unsupported``.
        """
        raise NotImplementedOperation("read_skill_file")

    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        """Resolve a ``skill://`` URI through the extension registry."""
        raise NotImplementedOperation("resolve_uri")

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        """Names the registry's visible skill resources list at ``scope``, duplicates kept."""
        raise NotImplementedOperation("registry_skill_names")

    async def rebuild(self) -> None:
        """Rescan the skills directory through the pool's rebuild path."""
        raise NotImplementedOperation("rebuild")

    async def enter(self) -> None:
        """Enter the skill manager's async context (starts its MCP servers)."""
        raise NotImplementedOperation("enter")

    async def exit(self) -> None:
        """Exit the skill manager entered by :meth:`enter`."""
        raise NotImplementedOperation("exit")

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        """Create an agent through ``path``; the tool names its model is offered."""
        raise NotImplementedOperation("agent_tool_names")

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        """Create an agent through ``path`` and call its own ``load_skill`` tool."""
        raise NotImplementedOperation("agent_load_skill")

    def problems(self) -> Sequence[str]:
        """Problems reported so far, one line each.

        Bad skills and failed imports are found when building; an MCP server found unusable
        when the manager is entered or during a run is a problem from then on.
        """
        return []

    async def close(self) -> None:
        """Shut the host down as production does; no process it started may be left running.

        Call the host's own shutdown, not :meth:`exit` first: a scenario may close while the
        manager is entered, to see that the shutdown stops its servers. The template starts
        nothing, so there is nothing to release: closing must not fail, or every scenario would
        also error in its teardown.
        """
