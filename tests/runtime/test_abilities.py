"""Abilities: "failed" means wrong, never "lacks a feature"; implementations run as in production.

- which abilities an operation and a world rely on, and that a scenario relying on one it is not
  tagged with errs (the specs' defect, caught on every run of the suite);
- a scenario needing several lacking abilities is not applicable with every reason;
- an operation raising ``Unsupported`` makes its scenario not applicable, with the reason;
- an implementation that warns, as libraries do, is not crashed by the suite's
  ``filterwarnings = error``: its calls run under Python's default filters.

Whole runs of the suite with such implementations are ``tests/runs/test_abilities_run.py``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import (
    Ability,
    AgentPath,
    ErrorKind,
    McpChild,
    Scope,
    ServerCommand,
    SkillSystemError,
)
from skill_conformance.runtime.abilities import (
    EITHER_OF,
    UntaggedAbility,
    either_tag,
    operation_needs,
    world_needs,
)
from skill_conformance.runtime.context import Outcome, ScenarioContext
from skill_conformance.runtime.production import production_warnings
from skill_conformance.runtime.run import missing_abilities
from skill_conformance.runtime.world import World
from skill_conformance.verdicts import Mismatch

A = Ability


@pytest.mark.parametrize(
    ("operation", "arguments", "needs"),
    [
        ("tool_names", (), set()),
        ("load_skill", ("my-skill", None), set()),
        ("load_skill", ("my-skill", "a b"), {A.ARGUMENTS}),
        ("load_skill", ("skill://my-skill/x.md", None), {A.SKILL_URI}),
        ("read_skill_file", (), {A.READ_FILE}),
        ("resolve_uri", (), {A.REGISTRY, A.SKILL_URI}),
        ("registry_skill_names", (), {A.REGISTRY}),
        ("rebuild", (), {A.POOL_REBUILD}),
        ("enter", (), {A.LIFECYCLE}),
        ("problems", (), {A.PROBLEMS}),
        ("agent_tool_names", (AgentPath.CHILD_SESSION,), {A.CHILD_SESSION}),
        (
            "agent_load_skill",
            (AgentPath.STANDALONE, "skill://x"),
            {A.STANDALONE_AGENT, A.SKILL_URI},
        ),
    ],
)
def test_what_each_operation_relies_on(
    operation: str, arguments: tuple[object, ...], needs: set[Ability]
) -> None:
    assert operation_needs(operation, *arguments) == needs


def test_what_a_world_relies_on(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        world.skill("plain").files["references/guide.md"] = "text"
        assert world_needs(world) == {}
        world.add_python_tool("tooled", "json:loads")
        world.skill("tooled").allowed_tools = []
        world.add_mcp_server_by_url("web", "remote", "http://127.0.0.1:1/mcp")
        world.skill("plain").links["references/link.md"] = "../x"
        provider = world.servers.command("hub", skills=["remote-one"])
        needs = world_needs(world, [McpChild("hub", provider)])
        assert set(needs) == {
            A.PYTHON_TOOLS, A.ALLOWED_TOOLS, A.MCP_HTTP, A.SYMLINKS, A.MCP, A.REMOTE_SKILLS
        }  # fmt: skip
        assert needs[A.MCP_HTTP] == "skill 'web' declares the MCP server 'remote'"
        plain_child = McpChild("third", ServerCommand("server", ("--tool", "ping")))
        assert set(world_needs(World(tmp_path / "other"), [plain_child])) == {A.MCP}
    finally:
        world.teardown()


def test_every_lacking_ability_is_named_with_its_reason() -> None:
    unsupported = {A.MCP: "no MCP client", A.PYTHON_TOOLS: "no tools", A.REGISTRY: "no registry"}
    needs = frozenset({A.PYTHON_TOOLS, A.MCP, A.ARGUMENTS})
    assert missing_abilities(needs, unsupported) == "mcp: no MCP client; python-tools: no tools"
    assert missing_abilities(frozenset({A.ARGUMENTS}), unsupported) is None


def test_an_either_of_need_is_lacking_only_when_every_one_of_its_abilities_is() -> None:
    readers = frozenset({A.SKILL_URI, A.READ_FILE})
    no_uri = {A.SKILL_URI: "no URIs", A.MCP: "no MCP client"}
    assert missing_abilities((readers,), no_uri) is None
    assert missing_abilities((readers, frozenset({A.MCP})), no_uri) == "mcp: no MCP client"
    neither = {**no_uri, A.READ_FILE: "no reader"}
    assert missing_abilities((readers,), neither) == "skill-uri: no URIs; read-file: no reader"
    assert readers in EITHER_OF
    assert either_tag(readers) == "skill-uri/read-file"


def test_a_refusal_is_judged_by_its_kind_only_where_the_implementation_names_kinds(
    tmp_path: Path,
) -> None:
    kindless_implementation = ReferenceImplementation()
    kindless_implementation.unsupported = {A.ERROR_KINDS: "errors carry no kind"}
    unclassified = Outcome(error=SkillSystemError(ErrorKind.UNCLASSIFIED, "no such file"))
    ended = Outcome(error=SkillSystemError(ErrorKind.RUN_ENDED, "ValueError: embedded null byte"))
    kindless = ScenarioContext(
        kindless_implementation, World(tmp_path / "a"), timeout=30, needs=frozenset()
    )
    kindless.outcome = unclassified
    kindless.expect_refusal(ErrorKind.NOT_FOUND, ErrorKind.SECURITY)
    kindless.outcome = Outcome(value='{"error": "not found"}')
    kindless.expect_refusal(ErrorKind.NOT_FOUND)
    kindless.outcome = ended
    with pytest.raises(Mismatch, match="ended the agent's run"):
        kindless.expect_refusal(ErrorKind.NOT_FOUND)
    named = _context(tmp_path / "b", frozenset())
    named.outcome = unclassified
    with pytest.raises(Mismatch, match="another kind"):
        named.expect_refusal(ErrorKind.NOT_FOUND, ErrorKind.SECURITY)
    named.outcome = Outcome(value="GUIDE-CONTENT")
    with pytest.raises(Mismatch, match="did not fail"):
        named.expect_refusal(ErrorKind.NOT_FOUND)


def _context(tmp_path: Path, needs: frozenset[Ability] | None) -> ScenarioContext:
    return ScenarioContext(ReferenceImplementation(), World(tmp_path), timeout=30, needs=needs)


def test_a_scenario_relying_on_an_ability_it_is_not_tagged_with_errs(tmp_path: Path) -> None:
    context = _context(tmp_path, frozenset())
    try:
        context.world.add_python_tool("tooled", "json:loads")
        with pytest.raises(UntaggedAbility, match=r"python-tools .*not tagged @needs:python-tools"):
            context.start()
        assert not context.started
    finally:
        context.close()


def test_each_call_and_each_kind_of_check_is_held_to_the_tags(tmp_path: Path) -> None:
    context = _context(tmp_path, frozenset({A.REGISTRY}))
    try:
        context.world.skill("my-skill")
        context.start()
        assert list(context.start().registry_skill_names(Scope.POOL)) == ["my-skill"]
        with pytest.raises(UntaggedAbility, match="it calls resolve_uri"):
            context.start().resolve_uri("skill://my-skill")
        with pytest.raises(UntaggedAbility, match="it calls read_skill_file"):
            context.start().read_skill_file("my-skill", "SKILL.md")
        context.attempt(lambda: context.start().load_skill("missing"))
        with pytest.raises(UntaggedAbility, match="expects a not-found error"):
            context.expect_error(ErrorKind.NOT_FOUND)
    finally:
        context.close()


def test_without_tags_to_hold_to_nothing_is_checked(tmp_path: Path) -> None:
    context = _context(tmp_path, None)
    try:
        context.world.add_python_tool("tooled", "json:loads")
        assert "tooled__tool__loads" in context.refresh_tools()
    finally:
        context.close()


def test_calls_into_an_implementation_see_python_default_filters_not_the_suites() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what the suite's filterwarnings = error installs
        with pytest.raises(UserWarning):
            warnings.warn("raised", UserWarning, stacklevel=1)
        with production_warnings(), warnings.catch_warnings(record=True) as seen:
            warnings.warn("shown", UserWarning, stacklevel=1)
            warnings.warn("ignored by default", DeprecationWarning, stacklevel=1)
        assert [str(w.message) for w in seen] == ["shown"]
        with pytest.raises(UserWarning):  # and the suite's filters are back
            warnings.warn("raised again", UserWarning, stacklevel=1)
