"""``skill-conformance smoke``: one line per port operation, ok / unsupported / error."""

from __future__ import annotations

import io

import pytest

from skill_conformance.adapters.reference import ReferenceImplementation, ReferenceSystem
from skill_conformance.adapters.template import TemplateImplementation
from skill_conformance.commands.main import main
from skill_conformance.commands.smoke import report, smoke
from skill_conformance.port import Ability, Unsupported

OPERATIONS = [
    "start",
    "problems",
    "tool_names",
    "run_tool",
    "load_skill",
    "load_skill(arguments)",
    "load_skill(skill://)",
    "list_skills",
    "read_skill_file",
    "resolve_uri",
    "registry_skill_names(pool)",
    "enter",
    "exit",
    "rebuild",
    "agent_tool_names(child-session)",
    "agent_tool_names(standalone)",
    "agent_load_skill(child-session)",
    "agent_load_skill(standalone)",
    "close",
]


def test_the_reference_passes_every_operation() -> None:
    checks = smoke(ReferenceImplementation(), mcp=False, timeout=60)
    assert [c.operation for c in checks] == OPERATIONS
    assert {c.operation: c.status for c in checks} == dict.fromkeys(OPERATIONS, "ok"), checks
    run_tool = next(c for c in checks if c.operation == "run_tool")
    assert "smoke__tool__ping returned 'smoke:ping'" in run_tool.detail
    out = io.StringIO()
    assert report(ReferenceImplementation(), checks, out) == 0
    assert out.getvalue().splitlines()[-1] == "19 ok, 0 unsupported, 0 error"


def test_declared_abilities_are_unsupported_and_not_called() -> None:
    implementation = ReferenceImplementation()
    implementation.unsupported = {
        Ability.LIFECYCLE: "no context manager",
        Ability.MCP: "no MCP client",
    }
    checks = smoke(implementation, mcp=True, timeout=60)
    status = {c.operation: (c.status, c.detail) for c in checks}
    assert status["mcp server"] == ("unsupported", "mcp: no MCP client")
    assert status["enter"] == ("unsupported", "needs lifecycle: no context manager")
    assert status["exit"][0] == "unsupported"
    assert status["tool_names"][0] == "ok"
    assert "smoke__mcp__echo" not in status["tool_names"][1]


def test_an_operation_needing_several_lacking_abilities_names_every_reason() -> None:
    implementation = ReferenceImplementation()
    implementation.unsupported = {
        Ability.REGISTRY: "no registry",
        Ability.SKILL_URI: "no URIs",
        Ability.PYTHON_TOOLS: "no Python tools",
        Ability.ARGUMENTS: "no arguments",
    }
    checks = smoke(implementation, mcp=False, timeout=60)
    status = {c.operation: (c.status, c.detail) for c in checks}
    assert status["resolve_uri"] == (
        "unsupported",
        "needs skill-uri: no URIs; needs registry: no registry",
    )
    assert status["run_tool"] == ("unsupported", "needs python-tools: no Python tools")
    assert status["load_skill(arguments)"][0] == "unsupported"
    # without Python tools the world declares none, so listing the tools still works
    assert status["tool_names"] == ("ok", "0 tools: []")
    assert status["load_skill"][0] == "ok"


class _NoFileReader(ReferenceSystem):
    async def read_skill_file(self, skill: str, path: str) -> str:
        raise Unsupported("no reader of skill files")


def test_an_operation_raising_unsupported_is_reported_unsupported() -> None:
    implementation = ReferenceImplementation()
    implementation.open = _NoFileReader  # type: ignore[method-assign]
    checks = smoke(implementation, mcp=False, timeout=60)
    status = {c.operation: (c.status, c.detail) for c in checks}
    assert status["read_skill_file"] == ("unsupported", "no equivalent: no reader of skill files")
    assert {c.status for c in checks if c.operation != "read_skill_file"} == {"ok"}


def test_the_template_errors_on_each_operation_it_lacks() -> None:
    checks = smoke(TemplateImplementation(), mcp=False, timeout=10)
    errors = [c for c in checks if c.status == "error"]
    assert [c.operation for c in checks if c.status == "ok"] == ["problems", "close"]
    assert len(errors) == 17
    assert errors[0].detail == (
        "NotImplementedOperation: start() is not implemented yet (docs/porting.md: start)"
    )
    out = io.StringIO()
    assert report(TemplateImplementation(), checks, out) == 1
    assert len(out.getvalue().splitlines()) == 21  # one screen


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--impl", "template", "--timeout", "5"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("smoke: template 0.0.0\n")
    assert "  error       start " in out
    assert main(["smoke", "--impl", "no.such.module:Impl"]) == 2
    assert "cannot import no.such.module" in capsys.readouterr().err


def test_smoke_waits_as_long_as_a_run_does_by_default() -> None:
    """A first start() that imports an SDK must not time out in smoke and pass in run."""
    import argparse

    from skill_conformance.commands.smoke import add_smoke
    from skill_conformance.runtime.options import OPTIONS

    parser = argparse.ArgumentParser()
    add_smoke(parser.add_subparsers())
    run_default = next(o.default for o in OPTIONS if o.name == "scenario-timeout")
    assert parser.parse_args(["smoke"]).timeout == float(run_default or "nan")
    assert parser.parse_args(["smoke", "--scenario-timeout", "7"]).timeout == 7.0
