"""Steps of the agent-factory capability: the tools each agent creation path offers."""

from __future__ import annotations

from pytest_bdd import given, then, when

from skill_conformance.port import AgentPath, skill_tool_names
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect


@given("the host has no skill tools provider")
def given_no_skill_tools_provider(conformance: ScenarioContext) -> None:
    conformance.skills_tools_provider = False


@when("an agent is created for a child session")
def when_child_session_agent(conformance: ScenarioContext) -> None:
    conformance.create_agent(AgentPath.CHILD_SESSION)


@when("a standalone agent is created without a session pool")
def when_standalone_agent(conformance: ScenarioContext) -> None:
    conformance.create_agent(AgentPath.STANDALONE)


@then("the agent is created without an error")
def then_created(conformance: ScenarioContext) -> None:
    conformance.expect_value()


def _named(conformance: ScenarioContext, tools: list[str]) -> list[str]:
    """The implementation's own names of ``tools``; one no tool stands for is left out."""
    names = skill_tool_names(conformance.implementation, *tools).values()
    return [name for name in names if name is not None]


@then(step("that agent is offered the tools {tools:vs}"))
def then_agent_offered(conformance: ScenarioContext, tools: list[str]) -> None:
    offered = conformance.agent_tools()
    tools = _named(conformance, tools)
    missing = [name for name in tools if name not in offered]
    expect(
        not missing,
        f"the agent is not offered {missing}",
        expected=f"the tools {tools} among those offered",
        observed=f"the agent is offered {offered}",
    )


@then(step("that agent is offered neither `{first:v}` nor `{second:v}`"))
def then_agent_not_offered(conformance: ScenarioContext, first: str, second: str) -> None:
    offered = conformance.agent_tools()
    present = [name for name in _named(conformance, [first, second]) if name in offered]
    expect(
        not present,
        f"the agent is offered {present}",
        expected=f"neither {first!r} nor {second!r}",
        observed=f"the agent is offered {offered}",
    )


@then(step("that agent's `load_skill` call with `{skill:v}` returns the skill's instructions"))
def then_agent_load_skill(conformance: ScenarioContext, skill: str) -> None:
    path = conformance.agent_path()
    text = conformance.start().agent_load_skill(path, skill)
    expected = conformance.world.skill(skill).body()
    expect(
        expected in text,
        f"load_skill({skill!r}) did not return the skill's instructions",
        expected=f"a text containing {expected!r}",
        observed=repr(text),
    )
