"""The adapter template runs: every scenario gets a verdict, the run fails, nothing crashes."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from skill_conformance.adapters.template import NotImplementedOperation, TemplateImplementation
from skill_conformance.port import AgentPath, Implementation, Scope, Setup
from skill_conformance.runtime.loading import load_implementation
from tests.porting.porting_helpers import SCENARIOS, run_suite, verdicts


def test_the_template_is_a_registered_implementation() -> None:
    implementation = load_implementation("template")
    assert isinstance(implementation, TemplateImplementation)
    assert isinstance(implementation, Implementation)


@pytest.mark.parametrize(
    ("operation", "args"),
    [
        ("start", ()),
        ("tool_names", ()),
        ("run_tool", ("t", {})),
        ("load_skill", ("s",)),
        ("list_skills", ()),
        ("resolve_uri", ("skill://s",)),
        ("registry_skill_names", (Scope.POOL,)),
        ("rebuild", ()),
        ("enter", ()),
        ("exit", ()),
        ("agent_tool_names", (AgentPath.STANDALONE,)),
        ("agent_load_skill", (AgentPath.STANDALONE, "s")),
    ],
)
def test_each_operation_names_itself_as_not_implemented(
    tmp_path: Path, operation: str, args: tuple[object, ...]
) -> None:
    system = TemplateImplementation().open(Setup(skills_dir=tmp_path))
    with pytest.raises(NotImplementedOperation, match=rf"^{operation}\(\) is not implemented yet"):
        asyncio.run(getattr(system, operation)(*args))
    assert list(system.problems()) == []
    asyncio.run(system.close())


def test_the_suite_runs_the_template_to_a_full_report(tmp_path: Path) -> None:
    dump = tmp_path / "verdicts.json"
    done = run_suite(dump, "--skill-conformance-impl", "template")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]  # tests failed; not 2 (interrupted) nor 3/4
    assert "INTERNALERROR" not in output
    assert "skill-conformance: template 0.0.0" in done.stdout
    found = verdicts(dump)
    assert len(found) == SCENARIOS, found
    assert Counter(found.values()) == {"errored": SCENARIOS}, Counter(found.values())
    assert f"total: {SCENARIOS} errored" in done.stdout
    assert "NotImplementedOperation: start() is not implemented yet" in output
