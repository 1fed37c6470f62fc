"""The CI gate: each verdict kept apart, and pytest's exit status 0 exactly when the gate passes.

A throwaway adapter, the reference with deliberate defects, is run in real pytest processes:
it answers one scenario wrongly (failed), crashes in another and hangs in a third (errored),
lacks pool rebuilds (not applicable); an expectations file lists one scenario that still fails
(expected failure) and one that passes (unexpected pass, which must fail the run).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_conformance import __version__
from skill_conformance.bundled import spec_digest, specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.main import main
from skill_conformance.verdicts.expectations import Expectations, write_expectations
from skill_conformance.verdicts.results import load_results

pytestmark = pytest.mark.slow  # whole-suite runs, one per verdict kind, one under xdist: `make ci`

ROOT = Path(__file__).resolve().parents[2]

ADAPTER = """
import asyncio

from skill_conformance.adapters.reference import ReferenceImplementation, ReferenceSystem
from skill_conformance.port import Ability


class GateSystem(ReferenceSystem):
    async def load_skill(self, skill, arguments=None):
        if arguments == "alpha beta":
            return "first=beta second=alpha"  # wrong behaviour
        if arguments == "a b c d e f g h i j k l":
            raise RuntimeError("placeholder parser exploded")  # a crash
        if skill == "skill://ponytail":
            await asyncio.sleep(3600)  # a hang
        return await super().load_skill(skill, arguments)


class Gate(ReferenceImplementation):
    name = "gate"

    def __init__(self):
        super().__init__()
        self.version = "1.2.3"
        self.unsupported = {Ability.POOL_REBUILD: "gate keeps no pool"}

    def open(self, setup):
        return GateSystem(setup)
"""

PASSED = "Skill not found"
FAILED = "Positional argument substitution"
CRASHED = "A two-digit placeholder is one placeholder"
HUNG = "Load skill by URI"
NOT_APPLICABLE = "Repeated rebuilds leave no stale registration"
STILL_FAILS = "All arguments substitution"
NOW_PASSES = "No arguments provided"

_ENTRIES = {entry.name: entry for entry in load_catalogue(specs_dir()).entries()}


def _key(name: str) -> str:
    return _ENTRIES[name].key


def _selecting(names: Iterable[str]) -> str:
    """A ``-k`` expression selecting exactly the scenarios ``names``."""
    functions = ["test_" + re.sub(r"\W", "", name.replace(" ", "_")).lower() for name in names]
    return " or ".join(functions)


@dataclass
class Run:
    directory: Path
    process: subprocess.Popen[str]

    def wait(self) -> tuple[int, str]:
        out, _ = self.process.communicate(timeout=600)
        return self.process.returncode, out

    @property
    def results(self) -> Path:
        return self.directory / "results.json"


def _start(
    tmp_path: Path,
    label: str,
    names: list[str],
    *extra: str,
    known: Iterable[str] = (),
    expectations: Path | None = None,
) -> Run:
    """Start, in the background, a run of the scenarios ``names`` on the gate adapter."""
    directory = tmp_path / label
    directory.mkdir()
    (directory / "gate_adapter.py").write_text(ADAPTER)
    if expectations is None:
        expectations = directory / "expectations.toml"
        reasons = {_key(name): f"known: {name}" for name in known}
        write_expectations(expectations, Expectations("gate", "1.2.3", reasons))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "src/skill_conformance/steps",
        "-p",
        "no:cacheprovider",
        "--skill-conformance-impl",
        "gate_adapter:Gate",
        "--skill-conformance-scenario-timeout",
        "10",
        "--skill-conformance-expectations",
        str(expectations),
        "--skill-conformance-results",
        str(directory / "results.json"),
        "-k",
        _selecting(names),
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": str(directory), "COLUMNS": "100"}
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    return Run(directory, process)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Run, int, str]]:
    """Every run of this module, started at once and awaited together."""
    tmp = tmp_path_factory.mktemp("gate")
    everything = [PASSED, FAILED, CRASHED, HUNG, NOT_APPLICABLE, STILL_FAILS, NOW_PASSES]
    started = {
        "all": _start(
            tmp,
            "all",
            everything,
            f"--junitxml={tmp / 'all' / 'junit.xml'}",
            f"--cucumberjson={tmp / 'all' / 'cucumber.json'}",
            known=[STILL_FAILS, NOW_PASSES],
        ),
        "green": _start(
            tmp, "green", [PASSED, NOT_APPLICABLE, STILL_FAILS], "-n", "2", known=[STILL_FAILS]
        ),
        "failed": _start(tmp, "failed", [PASSED, FAILED]),
        "crashed": _start(tmp, "crashed", [PASSED, CRASHED]),
        "unexpected-pass": _start(tmp, "xpass", [PASSED, NOW_PASSES], known=[NOW_PASSES]),
    }
    return {label: (run, *run.wait()) for label, run in started.items()}


def test_every_verdict_is_kept_apart_in_the_results(runs: dict[str, tuple[Run, int, str]]) -> None:
    run, status, out = runs["all"]
    assert status == 1, out[-3000:]
    results = load_results(run.results)
    verdicts = {result.name: result.verdict for result in results.scenarios}
    assert verdicts == {
        PASSED: "passed",
        FAILED: "failed",
        CRASHED: "errored",
        HUNG: "errored",
        NOT_APPLICABLE: "not-applicable",
        STILL_FAILS: "expected-failure",
        NOW_PASSES: "unexpected-pass",
    }
    reasons = {result.name: result.reason for result in results.scenarios}
    assert reasons[PASSED] == ""
    assert reasons[FAILED].startswith("'first=alpha second=beta' is not in the text")
    assert "first=beta second=alpha" in reasons[FAILED]  # the message's lines, joined
    assert "placeholder parser exploded" in reasons[CRASHED]
    assert "load_skill() did not finish within 10 s" in reasons[HUNG]
    assert reasons[NOT_APPLICABLE] == "gate: pool-rebuild: gate keeps no pool"
    assert reasons[STILL_FAILS] == f"known: {STILL_FAILS}"
    raws = {result.name: (result.raw, result.observed) for result in results.scenarios}
    raw, observed = raws.pop(STILL_FAILS)  # what the expected failure really did, and why
    assert raw == "failed"
    assert observed.startswith("'all=[alpha beta] again=[alpha beta]' is not in the text")
    assert set(raws.values()) == {(None, "")}  # only an expected failure has a raw verdict
    assert f"known: {NOW_PASSES}" in reasons[NOW_PASSES]
    assert results.exit_status == 1


def test_the_results_carry_the_header(runs: dict[str, tuple[Run, int, str]]) -> None:
    run, _, out = runs["all"]
    header = load_results(run.results).header
    assert (header.suite_version, header.spec_digest) == (__version__, spec_digest())
    assert (header.adapter, header.adapter_version, header.impl) == (
        "gate",
        "1.2.3",
        "gate_adapter:Gate",
    )
    assert header.line() in out.splitlines()[:8]  # printed at the start of the run
    document = json.loads(run.results.read_text())
    entry = next(e for e in document["scenarios"] if e["name"] == FAILED)
    assert entry["requirement"] == {
        "slug": "load-skill-shall-support-argument-substitution",
        "title": "load_skill SHALL support argument substitution",
    }
    assert entry["id"] == _ENTRIES[FAILED].id
    assert entry["capability"] == "skill-tools"


def test_junit_xml_and_cucumber_json_are_written_on_request(
    runs: dict[str, tuple[Run, int, str]],
) -> None:
    run, _, _ = runs["all"]
    suite = ET.parse(run.directory / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert properties == {
        "skill_conformance_version": __version__,
        "spec_digest": spec_digest(),
        "adapter": "gate",
        "adapter_version": "1.2.3",
        "impl": "gate_adapter:Gate",
    }
    assert len(suite.findall("testcase")) == 7
    cucumber = json.loads((run.directory / "cucumber.json").read_text())
    ran = {element["name"]: element for feature in cucumber for element in feature["elements"]}
    assert FAILED in ran
    # Every scenario is there, a not-applicable one with each of its steps skipped.
    assert len(ran) == 7
    skipped = {step["result"]["status"] for step in ran[NOT_APPLICABLE]["steps"]}
    assert skipped == {"skipped"}


def test_a_failing_run_ends_with_a_compact_summary_naming_the_bad_scenarios(
    runs: dict[str, tuple[Run, int, str]],
) -> None:
    _, _, out = runs["all"]
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "skill-conformance: gate 1.2.3" in line)
    summary = lines[start:-1]  # the last thing before pytest's closing line
    assert len(summary) <= 24, "\n".join(summary)
    text = "\n".join(summary)
    assert "total: 1 passed, 1 failed, 2 errored, 1 expected-failure, 1 unexpected-pass, " in text
    assert "  ok   agent-factory" not in text  # capabilities not run are not listed
    assert "ok   extension-registry  (1 requirement, all ok)" in text  # one line when all fine
    assert "FAIL   load_skill SHALL support argument substitution" in text
    bad = [line for line in summary if line.split(" ", 1)[0] in ("FAILED", "ERRORED", "XPASS")]
    assert [line.split(" > ")[1].split(":")[0] for line in bad] == [
        CRASHED,
        NOW_PASSES,
        FAILED,
        HUNG,
    ]  # by capability, requirement title, scenario name
    table = summary[next(i for i, line in enumerate(summary) if line.endswith("requirement")) :]
    assert all(len(line) <= 100 for line in table if line not in bad)  # COLUMNS=100
    counted = re.findall(r"\d+ [a-z-]+", lines[-1].split(" in ")[0])
    closing = {count for count in counted if not count.endswith(" deselected")}
    total = next(line for line in summary if line.startswith("total: "))
    assert closing == set(re.findall(r"\d+ [a-z-]+", total))  # pytest counts as the suite does


@pytest.mark.parametrize(
    ("label", "expected"),
    [("green", 0), ("failed", 1), ("crashed", 1), ("unexpected-pass", 1)],
)
def test_exit_status_is_zero_exactly_when_every_applicable_scenario_passes_or_fails_as_known(
    runs: dict[str, tuple[Run, int, str]], label: str, expected: int
) -> None:
    run, status, out = runs[label]
    assert status == expected, out[-3000:]
    assert load_results(run.results).exit_status == expected


def test_the_green_run_under_xdist_has_the_same_verdicts(
    runs: dict[str, tuple[Run, int, str]],
) -> None:
    run, _, out = runs["green"]
    verdicts = {r.name: r.verdict for r in load_results(run.results).scenarios}
    assert verdicts == {
        PASSED: "passed",
        NOT_APPLICABLE: "not-applicable",
        STILL_FAILS: "expected-failure",
    }
    assert "2 workers" in out


def test_a_baseline_written_from_a_failing_run_makes_the_same_run_pass(
    runs: dict[str, tuple[Run, int, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, _, _ = runs["all"]
    baseline = tmp_path / "baseline" / "gate.toml"
    assert main(["expectations", "--from", str(run.results), "--out", str(baseline)]) == 0
    assert "4 expected failures of gate 1.2.3" in capsys.readouterr().out
    names = [PASSED, FAILED, CRASHED, HUNG, NOT_APPLICABLE, STILL_FAILS]
    status, out = _start(tmp_path, "rerun", names, expectations=baseline).wait()
    assert status == 0, out[-3000:]
    verdicts = {
        r.name: r.verdict for r in load_results(tmp_path / "rerun" / "results.json").scenarios
    }
    assert verdicts == {
        PASSED: "passed",
        FAILED: "expected-failure",
        CRASHED: "expected-failure",
        HUNG: "expected-failure",
        NOT_APPLICABLE: "not-applicable",
        STILL_FAILS: "expected-failure",
    }
