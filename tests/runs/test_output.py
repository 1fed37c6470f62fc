"""What a CI user reads: a short block per failing scenario, JUnit named after the scenarios,
pytest's closing line agreeing with the summary, and the summary printed last.

Broken implementations run in real pytest processes: the RFC's regression B (tests/mutants: the
run's copy of the skill manager loses the skill tools) fails a ``Then`` step, and an adapter that
raises on every question (tests/misbehaving) errors in a ``When`` step.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue

pytestmark = pytest.mark.slow  # whole-suite runs, one per kind of output: `make ci`

ROOT = Path(__file__).resolve().parents[2]
MUTANT = "tests.mutants.manager_mutants:ForRunLosesSkillToolsMutant"
RAISING = "tests.misbehaving.adapters:Raising"
FOR_RUN = "for_run preserves tool_manager"
PASSES = "Skill not found"
ERRORS = "Load skill by bare name"
_ENTRIES = {entry.name: entry for entry in load_catalogue(specs_dir()).entries()}
_OFFERED_STEP = "Then the model was offered the tool `my-skill__tool__loads` in that run"


def _line(feature: str, text: str) -> str:
    """``features/{feature}:N``: where ``text`` first appears in that generated feature file."""
    lines = (ROOT / "features" / feature).read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if text in line)
    return f"features/{feature}:{number}"


def _selecting(*names: str) -> str:
    return " or ".join("test_" + re.sub(r"\W", "", n.replace(" ", "_")).lower() for n in names)


@dataclass(frozen=True)
class Run:
    directory: Path
    status: int
    output: str

    @property
    def lines(self) -> list[str]:
        return self.output.splitlines()


def _run(directory: Path, impl: str, names: tuple[str, ...], *extra: str) -> subprocess.Popen[str]:
    directory.mkdir()
    command = [
        *(
            sys.executable,
            "-m",
            "pytest",
            "src/skill_conformance/steps",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
        ),
        *(
            f"--skill-conformance-impl={impl}",
            "--skill-conformance-scenario-timeout=60",
            "--skill-conformance-no-expectations",
        ),
        *(f"--junitxml={directory / 'junit.xml'}", "-k", _selecting(*names), *extra),
    ]
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The runs of this module, started at once and awaited together."""
    tmp = tmp_path_factory.mktemp("output")
    started = {
        "mutant": _run(tmp / "mutant", MUTANT, (FOR_RUN, PASSES)),
        "traceback": _run(tmp / "traceback", MUTANT, (FOR_RUN,), "--skill-conformance-traceback"),
        "raising": _run(tmp / "raising", RAISING, (ERRORS, PASSES)),
    }
    finished = {}
    for label, process in started.items():
        out, _ = process.communicate(timeout=600)
        finished[label] = Run(tmp / label, process.returncode, out)
    return finished


def _block(run: Run, scenario: str) -> list[str]:
    """The lines printed for ``scenario`` under its ``____ capability > scenario ____`` rule."""
    lines = run.lines
    start = next(
        (i for i, line in enumerate(lines) if line.startswith("_") and f" {scenario} " in line),
        None,
    )
    assert start is not None, f"no block headed {scenario!r}:\n{run.output}"
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(r"^[_=]{3,}", lines[i])), len(lines)
    )
    return lines[start:end]


def test_a_failing_scenario_prints_a_short_block_with_step_expected_and_observed(
    runs: dict[str, Run],
) -> None:
    run = runs["mutant"]
    assert run.status == 1, run.output
    block = _block(run, FOR_RUN)
    assert len(block) <= 15, "\n".join(block)
    text = "\n".join(block)
    assert "skill-manager-cap > for_run preserves tool_manager" in block[0]
    assert _line("skill-manager-cap.feature", f"Scenario: {FOR_RUN}") in text
    assert f"failed at {_line('skill-manager-cap.feature', _OFFERED_STEP)}:" in text
    assert _OFFERED_STEP in text
    expected = next(line for line in block if line.strip().startswith("expected:"))
    observed = next(line for line in block if line.strip().startswith("observed:"))
    assert "my-skill__tool__loads" in expected
    assert observed.strip() == "observed: the model was offered []"
    assert "--skill-conformance-traceback" in text  # how to get the traceback
    assert "fixturefunc" not in run.output  # none of pytest's fixture frames
    assert "Traceback" not in run.output


def test_an_error_prints_a_short_block_with_the_step_and_the_crash(runs: dict[str, Run]) -> None:
    run = runs["raising"]
    assert run.status == 1, run.output
    block = _block(run, ERRORS)
    assert len(block) <= 15, "\n".join(block)
    text = "\n".join(block)
    assert "When `load_skill` is called with `ponytail`" in text
    assert f"errored at {_line('skill-tools.feature', 'is called with `ponytail`')}:" in text
    assert "RuntimeError: misbehaving: unexpected exception" in text
    assert "fixturefunc" not in run.output


def test_the_full_traceback_is_printed_on_request(runs: dict[str, Run]) -> None:
    run = runs["traceback"]
    block = _block(run, FOR_RUN)
    text = "\n".join(block)
    assert _OFFERED_STEP in text
    assert "steps/shared.py:" in text  # the step's own frame, from pytest's traceback
    assert text.index("observed: ") < text.index("steps/shared.py:")  # the block comes first


def test_junit_names_each_testcase_after_its_scenario_and_capability(
    runs: dict[str, Run],
) -> None:
    run = runs["mutant"]
    root = ET.parse(run.directory / "junit.xml").getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {FOR_RUN, PASSES}
    assert cases[FOR_RUN].get("classname") == "skill-manager-cap"
    assert cases[PASSES].get("classname") == "skill-tools"
    for name, case in cases.items():
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert properties["scenario_id"] == _ENTRIES[name].id
    failure = cases[FOR_RUN].find("failure")
    assert failure is not None
    message = failure.get("message") or ""  # what CI dashboards list: expected and observed
    assert "; expected " in message, message
    assert "observed the model was offered []" in message, message
    assert "observed: the model was offered []" in (failure.text or "")


def _closing_counts(run: Run) -> dict[str, int]:
    closing = run.lines[-1]
    assert closing.startswith("="), run.output
    found = dict(
        (word, int(count))
        for count, word in re.findall(r"(\d+) ([a-z-]+)", closing.split(" in ")[0])
    )
    found.pop("deselected", None)
    return found


def _summary_counts(run: Run) -> dict[str, int]:
    total = next(line for line in reversed(run.lines) if line.startswith("total: "))
    return {word: int(count) for count, word in re.findall(r"(\d+) ([a-z-]+)", total)}


@pytest.mark.parametrize("label", ["mutant", "raising"])
def test_pytests_closing_line_and_the_summary_agree_on_the_counts(
    runs: dict[str, Run], label: str
) -> None:
    run = runs[label]
    assert _closing_counts(run) == _summary_counts(run), run.output


@pytest.mark.parametrize("label", ["mutant", "raising"])
def test_the_summary_is_printed_last(runs: dict[str, Run], label: str) -> None:
    lines = runs[label].lines
    total = max(i for i, line in enumerate(lines) if line.startswith("total: "))
    after = lines[total + 1 :]
    assert all(line.startswith(("FAILED ", "ERRORED ", "XPASS ")) for line in after[:-1]), after
    assert re.match(r"^=+ .* in [\d.]+s( \([\d:]+\))? =+$", after[-1])  # pytest's closing line
    assert not any("short test summary info" in line for line in after)
