"""The server profile (``run --server``): the reference skills server passes, each mutant fails.

Every check of the profile is shown failing on a server with the defect it looks for
(``skills_server_mutants.py``), and a skill-system run holds none of its scenarios.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skill_conformance.runtime.profiles import in_profile

MUTANTS = Path(__file__).with_name("skills_server_mutants.py")


def _run(tmp_path: Path, server: str, select: str | None = None) -> dict[str, str]:
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "skill_conformance", "run", "--server", server]
    command += ["--results", str(results), "-p", "no:randomly", "-q"]
    command += [] if select is None else ["-k", select]
    subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    data = json.loads(results.read_text())
    return {s["name"]: s["verdict"] for s in data["scenarios"]}


def _mutant(name: str) -> str:
    return json.dumps({"command": sys.executable, "args": [str(MUTANTS), name, "{skills}"]})


def test_profiles_split_the_scenarios() -> None:
    assert in_profile({"profile": ["mcp-server"]}, server=True)
    assert not in_profile({"profile": ["mcp-server"]}, server=False)
    assert in_profile({}, server=False)
    assert not in_profile({}, server=True)
    host = {"profile": ["mcp-host"]}
    assert in_profile(host, server=False, host=True)
    assert not in_profile(host, server=False, host=False)
    assert not in_profile(host, server=True, host=True)
    assert in_profile({}, server=False, host=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "scenario"),
    [
        ("size", "Every file is listed once with the digest and size of its bytes"),
        ("traversal", "Reading out of the tree is refused"),
        ("links", "A file linked from outside the skill is not the skill's"),
        ("bom", "Every listed file reads back as its digest and size say"),
        ("nested", "A nested skill has an entry of its own"),
    ],
)
def test_a_mutant_fails_its_scenario(tmp_path: Path, mutant: str, scenario: str) -> None:
    select = scenario.split()[0] + " and " + scenario.split()[-1]
    verdicts = _run(tmp_path, _mutant(mutant), select.replace("'", ""))
    assert verdicts.get(scenario) == "failed", verdicts


@pytest.mark.slow
def test_the_reference_server_passes_every_scenario(tmp_path: Path) -> None:
    verdicts = _run(tmp_path, "reference")
    assert verdicts, "no scenario ran"
    assert set(verdicts.values()) == {"passed"}, verdicts
