"""Abilities in whole runs of the suite, in subprocesses: an implementation that warns passes, one
lacking abilities or operations gets "not applicable" with the reasons (the units are
``tests/runtime/test_abilities.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.mutants.suite_run import SuiteRun, run_suite

SELECT = (
    "inherits_tool_merging or read_by_its_relative_path or load_skill_by_bare_name"
    " or skill_with_python_tools_registered or path_traversal_in_reference_path"
)


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("abilities")


@pytest.fixture(scope="module")
def runs(results_dir: Path) -> Iterator[dict[str, Future[SuiteRun]]]:
    with ThreadPoolExecutor(max_workers=2) as executor:
        yield {
            name: executor.submit(
                run_suite,
                f"tests.misbehaving.adapters:{name}",
                "-k",
                SELECT,
                f"--skill-conformance-results={results_dir / name}.json",
                scenario_timeout=30,
            )
            for name in ("Warns", "LacksFeatures")
        }


def test_an_implementation_that_warns_passes_and_its_warnings_are_shown(
    runs: dict[str, Future[SuiteRun]],
) -> None:
    run = runs["Warns"].result()
    tail = run.output[-3000:]
    assert run.returncode == 0, tail
    assert len(run.verdicts) == 6, tail
    assert set(run.verdicts.values()) == {"passed"}, run.verdicts
    assert "misbehaving: ordinary warning in start" in run.output, tail


def test_lacking_abilities_and_unsupported_operations_are_not_applicable(
    runs: dict[str, Future[SuiteRun]], results_dir: Path
) -> None:
    run = runs["LacksFeatures"].result()
    tail = run.output[-3000:]
    assert run.returncode == 0, tail
    document = json.loads((results_dir / "LacksFeatures.json").read_text())
    results = {r["name"]: r for r in document["scenarios"]}
    verdicts = {name: result["verdict"] for name, result in results.items()}
    assert verdicts == {
        "SkillManagerCap inherits tool merging": "not-applicable",
        "Skill with Python tools registered": "not-applicable",
        "A skill's file is read by its relative path": "not-applicable",
        "Load skill by bare name": "passed",
        "Path traversal in reference path is blocked": "passed",
        "Path traversal in reference path fails with a security error": "passed",
    }, tail
    merging = results["SkillManagerCap inherits tool merging"]["reason"]
    assert merging == (
        "misbehaving:LacksFeatures: mcp: no MCP client; python-tools: skills bring no Python tools"
    )
    reader = results["A skill's file is read by its relative path"]["reason"]
    assert reader == "misbehaving:LacksFeatures: no reader of skill files apart from load_skill"
