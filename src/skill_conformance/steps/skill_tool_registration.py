"""Steps of the skill-tool-registration capability: tools as declared, problems of bad entries.

Listing and calling tools is shared with skill-manager-cap and lives in ``steps.shared``.
"""

from __future__ import annotations

from pytest_bdd import given, then, when

from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect


@given(
    step(
        "a skill `{skill:v}` declaring the Python tool `{alias:v}` whose function is named"
        " `{function:v}`"
    )
)
def given_aliased_tool(conformance: ScenarioContext, skill: str, alias: str, function: str) -> None:
    conformance.world.add_aliased_python_tool(skill, alias, function)


@when(step("the skill `{skill:v}` is changed to declare also the Python tool `{tool:v}`"))
def when_skill_changed(conformance: ScenarioContext, skill: str, tool: str) -> None:
    assert conformance.started, "the pool has not started; the step is misplaced"
    conformance.world.add_python_tool(skill, tool)
    conformance.world.write()


@then(step("a problem is reported naming `{first:v}` and `{second:v}`"))
def then_problem_reported(conformance: ScenarioContext, first: str, second: str) -> None:
    problems = list(conformance.start().problems())
    expect(
        any(first in p and second in p for p in problems),
        f"no reported problem names both {first!r} and {second!r}",
        expected=f"a problem naming {first!r} and {second!r}",
        observed=f"problems: {problems}",
    )
