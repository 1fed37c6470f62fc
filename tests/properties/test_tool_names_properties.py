"""Properties of the tool names an agent is offered, and of the ``allowed-tools`` filter.

For arbitrary valid skill names (often prefixes of each other) and tool names (often with ``__``
inside), a real agent run over the reference's skill manager is offered exactly
``{skill}__tool__{name}`` / ``{skill}__mcp__{name}`` for the allowed tools of each skill, plus every
non-skill tool under its own name, each once. ``allowed-tools`` absent (``None``) and empty
(``[]``) are different: all of the skill's tools, or none of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st
from property_helpers import budget, identifiers, opened, skill_names, temporary_world

from skill_conformance.port import ToolsChild
from skill_conformance.runtime.world import World

_SEPARATORS = ("__tool__", "__mcp__")


@dataclass(frozen=True)
class SkillPlan:
    """One skill: its Python tools and its ``allowed-tools`` (``None``: the field is absent)."""

    name: str
    tools: tuple[str, ...]
    allowed: tuple[str, ...] | None

    def offered(self, separator: str = "__tool__") -> list[str]:
        """The names the agent must be offered for this skill's tools."""
        kept = [t for t in self.tools if self.allowed is None or t in self.allowed]
        return [f"{self.name}{separator}{tool}" for tool in kept]


@st.composite
def skill_plans(draw: st.DrawFn, max_skills: int = 4) -> list[SkillPlan]:
    """Skills with tools and an ``allowed-tools`` that may name tools of other skills too."""
    names = draw(skill_names(max_size=max_skills))
    tools = {name: draw(st.lists(identifiers, max_size=4, unique=True)) for name in names}
    every_tool = sorted({tool for listed in tools.values() for tool in listed})
    plans = []
    for name in names:
        allowed = draw(
            st.one_of(
                st.none(),
                st.just(()),
                st.lists(st.sampled_from(every_tool or ["absent"]), unique=True).map(tuple),
            )
        )
        plans.append(SkillPlan(name, tuple(tools[name]), allowed))
    return plans


def _plain_names(plans: list[SkillPlan]) -> st.SearchStrategy[list[str]]:
    """Non-skill tool names, unlike every skill tool's name (duplicates are not allowed)."""
    taken = {name for plan in plans for name in plan.offered()}
    return st.lists(
        identifiers.filter(lambda n: n not in taken and not any(s in n for s in _SEPARATORS)),
        max_size=3,
        unique=True,
    )


def _write(world: World, plans: list[SkillPlan]) -> None:
    for plan in plans:
        world.skill(plan.name).allowed_tools = None if plan.allowed is None else [*plan.allowed]
        for tool in plan.tools:
            world.add_python_tool(plan.name, tool)


def _assert_exactly(offered: list[str], expected: list[str]) -> None:
    duplicates = [name for name, count in Counter(offered).items() if count > 1]
    assert not duplicates, f"offered twice: {duplicates} in {offered}"
    assert sorted(offered) == sorted(expected)


def _check(plans: list[SkillPlan], plain: list[str]) -> None:
    with temporary_world() as world:
        _write(world, plans)
        children = (ToolsChild(label="plain", tools=tuple(plain)),) if plain else ()
        with opened(world, children) as system:
            offered = list(system.tool_names())
            problems = list(system.problems())
            # An offered tool really is its own function: the skill's, or the child's.
            results = {name: system.run_tool(name, {}).result for name in offered[:1]}
    assert problems == []
    expected = [name for plan in plans for name in plan.offered()] + plain
    _assert_exactly(offered, expected)
    for name, result in results.items():
        if name in plain:
            assert result == f"plain:{name}"
        else:
            skill, _, tool = name.partition("__tool__")
            assert result == f"{skill}:{tool}"


@budget(25)
@given(st.data())
def test_offered_python_tool_names_are_exactly_prefixed_and_filtered(data: st.DataObject) -> None:
    plans = data.draw(skill_plans(), label="skills")
    _check(plans, data.draw(_plain_names(plans), label="non-skill tools"))


def test_prefix_names_dunder_tools_and_none_versus_empty() -> None:
    _check(
        [
            SkillPlan("a", ("x", "x__y"), ("x__y",)),
            SkillPlan("ab", ("x",), None),
            SkillPlan("a-b", ("x", "y__tool__z", "__w"), ("y__tool__z", "__w", "q")),
            SkillPlan("a-bc", ("x",), ()),
        ],
        ["x", "a__x", "ab__mcp"],
    )


@budget(2)
@given(
    tools=st.lists(
        st.from_regex(r"[a-z][a-z0-9]{0,4}(__[a-z0-9]{1,4}){0,2}", fullmatch=True),
        min_size=1,
        max_size=8,
        unique=True,
    ),
    data=st.data(),
)
def test_offered_mcp_tool_names_are_exactly_prefixed_and_filtered(
    tools: list[str], data: st.DataObject
) -> None:
    # One real server per example (about 0.6 s to start), offering many tools at once.
    names = data.draw(skill_names(min_size=2, max_size=3), label="skills")
    server_skill, *others = names
    allowed = data.draw(
        st.one_of(st.none(), st.just(()), st.lists(st.sampled_from(tools), unique=True).map(tuple)),
        label="allowed-tools",
    )
    plan = SkillPlan(server_skill, tuple(tools), allowed)
    with temporary_world() as world:
        world.add_mcp_server(server_skill, "server1", tools)
        world.skill(server_skill).allowed_tools = None if allowed is None else [*allowed]
        for other in others:
            world.add_python_tool(other, "ping")
        with opened(world) as system:
            offered = list(system.tool_names())
    expected = plan.offered("__mcp__") + [f"{other}__tool__ping" for other in others]
    _assert_exactly(offered, expected)


def test_absent_and_empty_allowed_tools_differ() -> None:
    plans = [SkillPlan("absent", ("one", "two"), None), SkillPlan("empty", ("one", "two"), ())]
    with temporary_world() as world:
        _write(world, plans)
        with opened(world, (ToolsChild("plain", ("one",)),)) as system:
            offered = list(system.tool_names())
    assert sorted(offered) == ["absent__tool__one", "absent__tool__two", "one"]
