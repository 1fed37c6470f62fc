"""What ``skill_conformance._compat`` does with private pytest and pytest-bdd names, end to end.

Runs at the locked pins in ``make test`` and at the oldest in ``make conformance-oldest``: each
check reads what a CI tool reads (Cucumber JSON, JUnit XML, the selection), so a pytest or
pytest-bdd that moved a name fails here, not in a user's dashboard.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, impl: str, *selection: str) -> tuple[Path, Path, str]:
    junit, cucumber = tmp_path / "junit.xml", tmp_path / "cucumber.json"
    command = [sys.executable, "-m", "skill_conformance", "run", "--impl", impl, "-q"]
    command += [f"--junitxml={junit}", f"--cucumberjson={cucumber}", *selection]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr
    return junit, cucumber, done.stdout


def test_not_applicable_scenarios_are_in_cucumber_json_with_their_steps_skipped(
    tmp_path: Path,
) -> None:
    """``steps_not_run`` and ``named_mark`` (the selection by ``-m``)."""
    impl = "tests.misbehaving.adapters:LacksFeatures"  # lacks mcp
    junit, cucumber, output = _run(tmp_path, impl, "-m", "needs:mcp and capability:skill-tools")
    elements = [
        element for feature in json.loads(cucumber.read_text()) for element in feature["elements"]
    ]
    assert elements, output[-3000:]
    for element in elements:
        statuses = {step["result"]["status"] for step in element["steps"]}
        assert statuses == {"skipped"}, element["name"]
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert len(cases) == len(elements)
    for case in cases:
        assert case.get("classname") == "skill-tools"  # scenario_of: the scenario's capability
        skipped = case.find("skipped")
        assert skipped is not None
        assert (skipped.text or "").startswith("features/skill-tools.feature:")
        assert "not applicable: misbehaving:LacksFeatures: mcp: no MCP client" in (
            skipped.get("message") or ""
        )


def test_errored_scenarios_are_junit_errors_with_their_reason(tmp_path: Path) -> None:
    """``junit_error``: a crash of the implementation is an ``<error>``, not a ``<failure>``."""
    junit, _cucumber, output = _run(tmp_path, "template", "-k", "load_skill_by_bare_name")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("errors"), suite.get("failures")) == ("1", "0"), output[-3000:]
    error = suite.find("testcase/error")
    assert error is not None
    assert (error.get("message") or "").startswith("ImplementationCrash: start() crashed:")
