"""The server profile (``run --server``): the reference skills server passes, each mutant fails.

Every check of the profile is shown failing on a server with the defect it looks for
(``skills_server_mutants.py``), and a skill-system run holds none of its scenarios.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skill_conformance.errors import InputError
from skill_conformance.runtime.profiles import in_profile
from skill_conformance.runtime.served import protocol_era

MUTANTS = Path(__file__).with_name("skills_server_mutants.py")


def _results(
    tmp_path: Path, server: str, select: str | None = None, extra: list[str] | None = None
) -> dict[str, Any]:
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "skill_conformance", "run", "--server", server]
    command += ["--results", str(results), "-p", "no:randomly", "-q", *(extra or [])]
    command += [] if select is None else ["-k", select]
    subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    data: dict[str, Any] = json.loads(results.read_text())
    return data


def _run(tmp_path: Path, server: str, select: str | None = None) -> dict[str, str]:
    return {s["name"]: s["verdict"] for s in _results(tmp_path, server, select)["scenarios"]}


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


def test_the_protocol_era_is_one_the_profile_knows() -> None:
    assert protocol_era("--protocol-era", None) == "2025-11-25"
    assert protocol_era("--protocol-era", "2026-07-28") == "2026-07-28"
    with pytest.raises(InputError, match="2025-06-18 is not one of 2025-11-25, 2026-07-28"):
        protocol_era("--protocol-era", "2025-06-18")


def test_an_era_the_client_cannot_speak_is_not_applicable_naming_why(tmp_path: Path) -> None:
    # The lock's mcp 1.x has no server/discover: each scenario says so instead of failing.
    era = ["--protocol-era", "2026-07-28"]
    data = _results(tmp_path, _mutant("size"), "extension and capability", era)
    reasons = {s["name"]: s.get("reason", "") for s in data["scenarios"]}
    assert reasons, data
    for reason in reasons.values():
        assert "protocol 2026-07-28 not offered" in reason, reasons
        assert "mcp 2.x can" in reason, reasons


def test_an_era_the_entry_says_the_server_lacks_is_not_applicable_unstarted(
    tmp_path: Path,
) -> None:
    entry = json.loads(_mutant("size"))
    entry["args"] = ["-c", "raise SystemExit('started')"]
    entry["unsupported"] = {"2025-11-25": "serves the extension on 2026-07-28 only"}
    data = _results(tmp_path, json.dumps(entry), "extension and capability", [])
    verdicts = {s["verdict"] for s in data["scenarios"]}
    assert verdicts == {"not-applicable"}, data
    for scenario in data["scenarios"]:
        assert "protocol 2025-11-25: serves the extension on 2026-07-28 only" in str(scenario)
