"""Steps of the extension-registry capability: registration, rebuilds, URI resolution."""

from __future__ import annotations

from pytest_bdd import given, then, when

from skill_conformance.port import ErrorKind, ResolvedSkill, Scope
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import Mismatch, expect


@given("the pool has started")
def given_pool_started(conformance: ScenarioContext) -> None:
    conformance.start()


@given("the pool has started, which must finish without blocking")
def given_pool_started_bounded(conformance: ScenarioContext) -> None:
    conformance.bounded(conformance.start)


@when(step("the skill `{skill:v}` is removed from the skills directory"))
def when_skill_removed(conformance: ScenarioContext, skill: str) -> None:
    conformance.world.remove_skill(skill)


@when(step("a skill `{skill:v}` is added to the skills directory"))
def when_skill_added(conformance: ScenarioContext, skill: str) -> None:
    conformance.world.skill(skill)
    conformance.world.write()


@when(
    step(
        "a skill `{skill:v}` declaring the Python tool `{tool:v}` is added to the skills directory"
    )
)
def when_tooled_skill_added(conformance: ScenarioContext, skill: str, tool: str) -> None:
    conformance.world.add_python_tool(skill, tool)
    conformance.world.write()


@when("the pool rebuilds its skills")
@when(step("the pool rebuilds its skills {times:n} times"))
def when_rebuilt(conformance: ScenarioContext, times: int = 1) -> None:
    for _ in range(times):
        conformance.rebuild()


@then(step("the registry lists the skill `{skill:v}` at every scope"))
def then_registry_lists(conformance: ScenarioContext, skill: str) -> None:
    for scope in Scope:
        names = list(conformance.start().registry_skill_names(scope))
        expect(
            skill in names,
            f"at {scope} scope the registry does not list {skill!r}",
            expected=f"{skill!r} among the skills listed",
            observed=f"the registry lists {names}",
        )


@then(step("the registry lists exactly the skill `{skill:v}` at every scope"))
@then(step("the registry lists exactly the skills {skills:vs} at every scope"))
def then_registry_lists_exactly(
    conformance: ScenarioContext, skill: str = "", skills: list[str] | None = None
) -> None:
    expected = sorted(skills or [skill])
    for scope in Scope:
        names = sorted(conformance.start().registry_skill_names(scope))
        expect(
            names == expected,
            f"at {scope} scope the registry does not list exactly the skills named",
            expected=f"exactly {expected}",
            observed=f"the registry lists {names}",
        )


@when(step("the URI `{uri:v}` is resolved"))
def when_uri_resolved(conformance: ScenarioContext, uri: str) -> None:
    conformance.attempt(lambda: conformance.start().resolve_uri(uri))


def _resolved(conformance: ScenarioContext) -> ResolvedSkill:
    value = conformance.expect_value()
    if not isinstance(value, ResolvedSkill):
        raise Mismatch("resolving gave no skill", expected="a resolved skill", observed=repr(value))
    return value


@then(step("the resolved skill is named `{name:v}`"))
def then_resolved_name(conformance: ScenarioContext, name: str) -> None:
    resolved = _resolved(conformance)
    expect(
        resolved.name == name,
        "the URI resolved to another skill",
        expected=repr(name),
        observed=repr(resolved.name),
    )


@then(step("the resolved instructions contain `{text:v}`"))
def then_resolved_instructions(conformance: ScenarioContext, text: str) -> None:
    resolved = _resolved(conformance)
    expect(
        text in resolved.instructions,
        f"{text!r} is not in the resolved instructions",
        expected=f"instructions containing {text!r}",
        observed=repr(resolved.instructions),
    )


@then(step("resolving `{uri:v}` through the registry gives instructions containing `{text:v}`"))
def then_resolving_gives(conformance: ScenarioContext, uri: str, text: str) -> None:
    conformance.attempt(lambda: conformance.start().resolve_uri(uri))
    then_resolved_instructions(conformance, text)


@then(step("resolving `{uri:v}` through the registry succeeds"))
def then_resolving_succeeds(conformance: ScenarioContext, uri: str) -> None:
    conformance.attempt(lambda: conformance.start().resolve_uri(uri))
    _resolved(conformance)


@then(step("resolving `{uri:v}` through the registry fails with a not-found error"))
def then_resolving_not_found(conformance: ScenarioContext, uri: str) -> None:
    conformance.attempt(lambda: conformance.start().resolve_uri(uri))
    conformance.expect_error(ErrorKind.NOT_FOUND)
