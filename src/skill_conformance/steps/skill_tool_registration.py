"""Steps of the skill-tool-registration capability: problems reported for bad tool entries.

Listing and calling tools is shared with skill-manager-cap and lives in ``steps.shared``.
"""

from __future__ import annotations

from pytest_bdd import then

from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect


@then(step("a problem is reported naming `{first:v}` and `{second:v}`"))
def then_problem_reported(conformance: ScenarioContext, first: str, second: str) -> None:
    problems = list(conformance.start().problems())
    expect(
        any(first in p and second in p for p in problems),
        f"no reported problem names both {first!r} and {second!r}",
        expected=f"a problem naming {first!r} and {second!r}",
        observed=f"problems: {problems}",
    )
