"""Steps every capability uses: describing skills and children, listing and calling tools."""

from __future__ import annotations

import os
import re

from pytest_bdd import given, then, when

from skill_conformance.port import ErrorKind, McpChild, ServerCommand, ToolsChild
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import matches_result, one_of, step
from skill_conformance.verdicts import expect

# -- skills on disk -----


@given(step("a skill `{name:v}`"))
@given(step("skills {names:vs}"))
def given_skills(
    conformance: ScenarioContext, name: str = "", names: list[str] | None = None
) -> None:
    for skill in names or [name]:
        conformance.world.skill(skill)


@given(step("a skill `{name:v}` whose instructions are `{text:v}`"))
def given_instructions(conformance: ScenarioContext, name: str, text: str) -> None:
    conformance.world.skill(name).instructions = text


@given(step("a skill `{skill:v}` declaring the Python tool `{tool:v}`"))
@given(step("the skill `{skill:v}` declares the Python tool `{tool:v}`"))
@given(step("a skill `{skill:v}` declaring the Python tools {tools:vs}"))
def given_python_tools(
    conformance: ScenarioContext, skill: str, tool: str = "", tools: list[str] | None = None
) -> None:
    for name in tools or [tool]:
        conformance.world.add_python_tool(skill, name)


@given(
    step(
        "a skill `{skill:v}` declaring the Python tool `{tool:v}`"
        " from a module that records its import"
    )
)
def given_recording_tool(conformance: ScenarioContext, skill: str, tool: str) -> None:
    conformance.world.add_python_tool(skill, tool, records_import=True)


@given(
    step(
        "a skill `{skill:v}` declaring the Python tool `{tool:v}`"
        " from a module that raises `{failure:v}` while importing"
    )
)
@given(
    step(
        "a skill `{skill:v}` declaring the Python tool `{tool:v}`"
        " from a module that never finishes importing"
    )
)
def given_failing_tool(
    conformance: ScenarioContext, skill: str, tool: str, failure: str = "hang"
) -> None:
    conformance.world.add_failing_python_tool(skill, tool, failure)


_BROKEN_SERVERS = {
    "whose command does not exist": "missing",
    "that exits at once": "crash",
    "that never answers": "hang",
    "that is slow to answer": "slow",
    "by a URL where nothing listens": "unreachable",
}


@given(
    step(
        "a skill `{skill:v}` declaring the MCP server `{server:v}` {failure:broken}",
        extra_types={"broken": one_of(*_BROKEN_SERVERS)},
    )
)
def given_broken_mcp_server(
    conformance: ScenarioContext, skill: str, server: str, failure: str
) -> None:
    conformance.world.add_broken_mcp_server(skill, server, _BROKEN_SERVERS[failure])


@given(step("a skill `{skill:v}` declaring the MCP server `{server:v}` with the tool `{tool:v}`"))
@given(step("a skill `{skill:v}` declaring the MCP server `{server:v}` with the tools {tools:vs}"))
@given(step("the skill `{skill:v}` declares the MCP server `{server:v}` with the tool `{tool:v}`"))
@given(step("the skill `{skill:v}` declares the MCP server `{server:v}` with the tools {tools:vs}"))
def given_mcp_server(
    conformance: ScenarioContext,
    skill: str,
    server: str,
    tool: str = "",
    tools: list[str] | None = None,
) -> None:
    conformance.world.add_mcp_server(skill, server, tools or [tool])


@given(
    step(
        "a skill `{skill:v}` declaring the MCP server `{server:v}` with the tool `{tool:v}`"
        " and the environment variable `{name:v}` set to `{value:v}`"
    )
)
def given_mcp_server_with_env(
    conformance: ScenarioContext, skill: str, server: str, tool: str, name: str, value: str
) -> None:
    conformance.world.add_mcp_server(skill, server, [tool], env={name: value})


@given(
    step(
        "an MCP server `{label:v}` with the tool `{tool:v}` served over HTTP"
        " that requires the header `{name:v}` set to `{value:v}`"
    )
)
def given_http_mcp_server(
    conformance: ScenarioContext, label: str, tool: str, name: str, value: str
) -> None:
    conformance.world.servers.serve_over_http(label, [tool], header=(name, value))


@given(
    step(
        "a skill `{skill:v}` declaring the MCP server `{server:v}` by its URL"
        " with the header `{name:v}` set to `{value:v}`"
    )
)
def given_mcp_server_by_url(
    conformance: ScenarioContext, skill: str, server: str, name: str, value: str
) -> None:
    url = conformance.world.servers.http[server]
    conformance.world.add_mcp_server_by_url(skill, server, url, headers={name: value})


@given(step("a skill `{skill:v}` declaring the MCP server `{server:v}` without a command"))
def given_mcp_server_without_command(conformance: ScenarioContext, skill: str, server: str) -> None:
    conformance.world.add_mcp_server(skill, server, [], with_command=False)


@given(step("{count:n} skills each declaring one MCP server"))
def given_many_mcp_skills(conformance: ScenarioContext, count: int) -> None:
    for index in range(1, count + 1):
        conformance.world.add_mcp_server(f"bulk-{index:03d}", f"bulk-{index:03d}-server", ["echo"])


@given(step("the skill `{skill:v}` allows only the tool `{tool:v}`"))
@given(step("the skill `{skill:v}` allows only the tools {tools:vs}"))
def given_allowed_tools(
    conformance: ScenarioContext, skill: str, tool: str = "", tools: list[str] | None = None
) -> None:
    conformance.world.skill(skill).allowed_tools = tools or [tool]


@given(step("the skill `{skill:v}` declares an empty allowed tools list"))
def given_empty_allowed_tools(conformance: ScenarioContext, skill: str) -> None:
    conformance.world.skill(skill).allowed_tools = []


# -- children of the skill manager -----


@given(step("a tool `{tool:v}` that belongs to no skill"))
def given_tools_child(conformance: ScenarioContext, tool: str) -> None:
    conformance.children.append(
        ToolsChild(label=f"child-{len(conformance.children)}", tools=(tool,))
    )


@given("a child of the skill manager that offers no tool")
def given_empty_child(conformance: ScenarioContext) -> None:
    conformance.children.append(ToolsChild(label=f"child-{len(conformance.children)}", tools=()))


@given(step("a non-skill MCP child `{label:v}` that exits at once"))
def given_crashing_mcp_child(conformance: ScenarioContext, label: str) -> None:
    server = conformance.world.servers.command(label)
    crashing = ServerCommand(server.command, (*server.args, "--mode", "crash"), server.env)
    conformance.children.append(McpChild(label=label, server=crashing))


@given(step("a non-skill MCP child `{label:v}` with the tool `{tool:v}`"))
def given_mcp_child(conformance: ScenarioContext, label: str, tool: str) -> None:
    server = conformance.world.servers.command(label, tools=[tool])
    conformance.children.append(McpChild(label=label, server=server))


@given(step("a remote skill provider `{label:v}` offering the skills {skills:vs}"))
def given_remote_provider(conformance: ScenarioContext, label: str, skills: list[str]) -> None:
    server = conformance.world.servers.command(label, skills=skills)
    conformance.children.append(McpChild(label=label, server=server))


@given(step("a remote skill provider `{label:v}` offering the skill `{skill:v}` as bytes"))
def given_remote_binary(conformance: ScenarioContext, label: str, skill: str) -> None:
    server = conformance.world.servers.command(label, binary_skills=[skill])
    conformance.children.append(McpChild(label=label, server=server))


# -- the agent's tools -----


@when("the agent's tools are listed")
def when_tools_listed(conformance: ScenarioContext) -> None:
    conformance.refresh_tools()


@when(step("the agent calls `{tool:v}` with `{arguments:v}`"))
@when(step("an agent run calls `{tool:v}` with `{arguments:v}`"))
def when_agent_calls(conformance: ScenarioContext, tool: str, arguments: str) -> None:
    conformance.call_tool(tool, arguments)


@then(step("the agent sees the tool `{tool:v}`"))
@then(step("the agent sees the tools {tools:vs}"))
def then_sees(conformance: ScenarioContext, tool: str = "", tools: list[str] | None = None) -> None:
    seen = conformance.tools()
    wanted = tools or [tool]
    missing = [name for name in wanted if name not in seen]
    expect(
        not missing,
        f"the agent does not see {missing}",
        expected=f"the tools {wanted} among those the agent sees",
        observed=f"the agent sees {seen}",
    )


@then(step("the agent sees exactly the tool `{tool:v}`"))
@then(step("the agent sees exactly the tools {tools:vs}"))
def then_sees_exactly(
    conformance: ScenarioContext, tool: str = "", tools: list[str] | None = None
) -> None:
    seen = conformance.tools()
    wanted = sorted(tools or [tool])
    expect(
        sorted(seen) == wanted,
        "the agent does not see exactly the tools the scenario names",
        expected=f"exactly {wanted}",
        observed=f"the agent sees {sorted(seen)}",
    )


@then(step("the agent does not see the tool `{tool:v}`"))
def then_does_not_see(conformance: ScenarioContext, tool: str) -> None:
    seen = conformance.tools()
    expect(
        tool not in seen,
        f"the agent sees {tool!r}",
        expected=f"no tool {tool!r}",
        observed=f"the agent sees {seen}",
    )


@then(step("the agent sees no tool starting with `{prefix:v}`"))
def then_sees_no_prefix(conformance: ScenarioContext, prefix: str) -> None:
    seen = conformance.tools()
    offending = [name for name in seen if name.startswith(prefix)]
    expect(
        not offending,
        f"the agent sees tools starting with {prefix!r}: {offending}",
        expected=f"no tool starting with {prefix!r}",
        observed=f"the agent sees {seen}",
    )


@then("every tool name the agent sees is unique")
def then_unique(conformance: ScenarioContext) -> None:
    seen = conformance.tools()
    duplicates = sorted({name for name in seen if seen.count(name) > 1})
    expect(
        not duplicates,
        f"the agent sees these more than once: {duplicates}",
        expected="every tool name once",
        observed=f"the agent sees {seen}",
    )


@then(step("the call returns `{expected:v}`"))
@then(step("the call returns the text `{expected:v}`"))
@then(step("the tool returned `{expected:v}` in that run"))
def then_call_returns(conformance: ScenarioContext, expected: str) -> None:
    result = conformance.last_run().result
    expect(
        matches_result(result, expected),
        "the tool returned something else",
        expected=expected,
        observed=repr(result),
    )


@then("the call returns the current working directory")
def then_call_returns_cwd(conformance: ScenarioContext) -> None:
    result = conformance.last_run().result
    expect(
        result == os.getcwd(),
        "the tool did not return the current working directory",
        expected=repr(os.getcwd()),
        observed=repr(result),
    )


@then(step("the model was offered the tool `{tool:v}` in that run"))
def then_offered_in_run(conformance: ScenarioContext, tool: str) -> None:
    offered = conformance.last_run().offered
    expect(
        tool in offered,
        f"the model was not offered {tool!r} in that run",
        expected=f"{tool!r} among the tools offered",
        observed=f"the model was offered {list(offered)}",
    )


# -- outcomes of calls -----


@then(step("the call fails with a {kind:v} error"))
def then_fails_with(conformance: ScenarioContext, kind: str) -> None:
    """One kind (``a security error``), or any of several (``a not-found or security error``)."""
    kinds = [ErrorKind(name) for name in re.split(r", | or ", kind)]
    conformance.expect_error(*kinds)


@then(
    step(
        "the call is refused, with a {kind:v} error where the implementation names kinds,"
        " else by a result the agent's run goes on from"
    )
)
def then_refused(conformance: ScenarioContext, kind: str) -> None:
    """A refusal the agent continues from: of the kinds named where the implementation names any.

    No ``@needs:error-kinds``: an implementation whose errors carry no kind is held to the
    refusal alone (an unclassified error, or its refusal as a result), never to a run it ended.
    What the refusal must not hold is for the scenario's other steps to say.
    """
    conformance.expect_refusal(*[ErrorKind(name) for name in re.split(r", | or ", kind)])


@then(step("the call fails with a {kind:v} error naming `{name:v}`"))
def then_fails_naming(conformance: ScenarioContext, kind: str, name: str) -> None:
    """As ``the call fails with a ... error``, and its message holds ``name``."""
    error = conformance.expect_error(*[ErrorKind(k) for k in re.split(r", | or ", kind)])
    expect(
        name in error.message,
        f"the error does not name {name!r}",
        expected=f"an error message containing {name!r}",
        observed=repr(error.message),
    )


@then(step("no result or error contains `{text:v}`"))
def then_nothing_contains(conformance: ScenarioContext, text: str) -> None:
    leaked = [found for found in conformance.last_outcome().texts() if text in found]
    expect(
        not leaked,
        f"{text!r} reached the caller",
        expected=f"no result or error containing {text!r}",
        observed=f"{leaked}",
    )


@then("no result or error reveals a host path")
def then_no_host_path(conformance: ScenarioContext) -> None:
    """No path of the scenario's directory outside its skills directory.

    Paths in the skills directory are what the caller may have been given: the format's
    catalogue shows every skill's absolute ``<location>`` to the model. A path is read to its end
    (a quote, a space or the text's end) and normalised, so that one climbing out of the skills
    directory with ``..`` counts as outside.
    """
    leaked = [
        found for found in conformance.last_outcome().texts() if _outside_skills(conformance, found)
    ]
    expect(
        not leaked,
        "a path of the host outside the skills reached the caller",
        expected=f"no result or error naming {conformance.world.root} or a path below it "
        f"other than {conformance.world.skills_dir} and the paths below it",
        observed=f"{leaked}",
    )


def _outside_skills(conformance: ScenarioContext, text: str) -> bool:
    """Whether ``text`` names the scenario's directory or a path in it outside the skills."""
    world = conformance.world
    for root, skills in (
        (world.root, world.skills_dir),
        (world.root.resolve(), world.skills_dir.resolve()),
    ):
        for match in re.finditer(re.escape(str(root)) + r"[^\s'\"`]*", text):
            path = os.path.normpath(match.group())
            if path != str(skills) and not path.startswith(f"{skills}{os.sep}"):
                return True
    return False
