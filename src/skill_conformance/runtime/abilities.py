"""Which abilities an operation, or a scenario's world, relies on.

A scenario's ``@needs`` tags must name every ability it relies on, or an implementation lacking
one would be reported *failed* where it is merely *not applicable*. The suite checks this on
every run: each operation a scenario calls, and each feature of the world it writes, names the
abilities it needs (:func:`operation_needs`, :func:`world_needs`), and a scenario relying on one
it is not tagged with ends *errored* with :class:`UntaggedAbility`, a defect of the specs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from skill_conformance.errors import ConformanceError
from skill_conformance.port import Ability, AgentPath, McpChild, ToolsChild
from skill_conformance.runtime.world import World

__all__ = [
    "EITHER_OF",
    "EITHER_SEPARATOR",
    "OPERATION_NEEDS",
    "UntaggedAbility",
    "either_tag",
    "operation_needs",
    "world_needs",
]

SKILL_URI_SCHEME = "skill://"

OPERATION_NEEDS: Mapping[str, frozenset[Ability]] = {
    "read_skill_file": frozenset({Ability.READ_FILE}),
    "resolve_uri": frozenset({Ability.REGISTRY, Ability.SKILL_URI}),
    "registry_skill_names": frozenset({Ability.REGISTRY}),
    "rebuild": frozenset({Ability.POOL_REBUILD}),
    "enter": frozenset({Ability.LIFECYCLE}),
    "cancel_enter": frozenset({Ability.LIFECYCLE, Ability.CANCELLATION}),
    "exit": frozenset({Ability.LIFECYCLE}),
    "problems": frozenset({Ability.PROBLEMS}),
}
"""Operations that need abilities whatever their arguments; the others need none of their own."""

EITHER_OF: tuple[frozenset[Ability], ...] = (
    frozenset({Ability.SKILL_URI, Ability.READ_FILE}),
    frozenset({Ability.INLINE_REFERENCES, Ability.READ_FILE}),
)
"""The either-of needs a scenario may name, as ``@needs:skill-uri/read-file``: an obligation
every implementation owes, checked through whichever of these surfaces the implementation
offers (a reference read by ``skill://`` or by the skill's file reader). The scenario is not
applicable only where the implementation lacks them all."""

EITHER_SEPARATOR = "/"


def either_tag(group: frozenset[Ability]) -> str:
    """The tag value of an either-of need: its abilities in declaration order, ``/`` between."""
    return EITHER_SEPARATOR.join(ability.value for ability in Ability if ability in group)


_PATHS: Mapping[AgentPath, Ability] = {
    AgentPath.CHILD_SESSION: Ability.CHILD_SESSION,
    AgentPath.STANDALONE: Ability.STANDALONE_AGENT,
}


class UntaggedAbility(ConformanceError):
    """A scenario relies on an ability its ``@needs`` tags do not name (a defect of the specs)."""


def operation_needs(operation: str, *arguments: object) -> frozenset[Ability]:
    """The abilities calling ``operation`` with ``arguments`` relies on."""
    needs = set(OPERATION_NEEDS.get(operation, ()))
    if operation in ("agent_tool_names", "agent_load_skill"):
        needs.add(_PATHS[AgentPath(str(arguments[0]))])
    if operation in ("load_skill", "agent_load_skill"):
        skill = arguments[0] if operation == "load_skill" else arguments[1]
        if str(skill).startswith(SKILL_URI_SCHEME):
            needs.add(Ability.SKILL_URI)
        if operation == "load_skill" and len(arguments) > 1 and arguments[1] is not None:
            needs.add(Ability.ARGUMENTS)
    return frozenset(needs)


def world_needs(
    world: World, children: Iterable[ToolsChild | McpChild] = ()
) -> Mapping[Ability, str]:
    """The abilities a system opened on ``world`` and ``children`` relies on, each with why."""
    needs: dict[Ability, str] = {}
    for draft in world.skills.values():
        for ability, why in draft.needs().items():
            needs.setdefault(ability, why)
    if world.skills_dir_linked:
        needs.setdefault(Ability.SYMLINKS, "the skills directory is reached through a link")
    for child in children:
        if isinstance(child, McpChild):
            needs.setdefault(Ability.MCP, f"the MCP server {child.label!r} is a child")
            if child.server.args and "--skill" in child.server.args:
                needs.setdefault(
                    Ability.REMOTE_SKILLS, f"{child.label!r} is a remote skill provider"
                )
    return needs
