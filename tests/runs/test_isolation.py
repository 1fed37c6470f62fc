"""Scenarios share no state: the same verdicts in another order and on two workers, no leaks.

The conformance suite runs twice in subprocesses, each with its own ``--basetemp`` and its own
empty ``TMPDIR``: once plainly, once shuffled (pytest-random-order, a fixed seed) on two
pytest-xdist workers. Both must give every scenario the same verdict. Each run loads
``isolation_probe``, which records every verdict the suite attaches to a report, and after every
scenario's teardown the modules and ``sys.path`` entries still coming from the scenarios'
temporary directories; there must be none, and nothing may be left in ``TMPDIR`` (all temporary
files live under the basetemp).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole-suite runs, twice (one shuffled): `make ci`

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261202


@dataclass(frozen=True)
class SuiteRun:
    """What one conformance run left behind."""

    returncode: int
    output: str
    verdicts: dict[str, str]
    probes: list[dict[str, object]]
    tmpdir_left: list[str]


def _run(base: Path, *options: str) -> SuiteRun:
    base.mkdir()
    tmpdir, log = base / "tmpdir", base / "probe.jsonl"
    tmpdir.mkdir()
    env = {
        **os.environ,
        "TMPDIR": str(tmpdir),
        "SC_ISOLATION_LOG": str(log),
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
        ),
    }
    command = [
        sys.executable, "-m", "pytest", "src/skill_conformance/steps", "-q",
        "--skill-conformance-impl=reference",
        "-p", "no:cacheprovider", "-p", "isolation_probe", f"--basetemp={base / 'basetemp'}",
        *options,
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    verdicts = {
        str(line["scenario_id"]): str(line["verdict"]) for line in lines if "verdict" in line
    }
    probes = [line for line in lines if "modules" in line]
    return SuiteRun(
        done.returncode,
        done.stdout[-3000:] + done.stderr[-3000:],
        verdicts,
        probes,
        sorted(p.name for p in tmpdir.iterdir()),
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[SuiteRun, SuiteRun]:
    base = tmp_path_factory.mktemp("isolation")
    plain = _run(base / "plain")
    shuffled = _run(
        base / "shuffled",
        "-n", "2",
        "--random-order", "--random-order-bucket=global", f"--random-order-seed={SEED}",
    )  # fmt: skip
    return plain, shuffled


def test_both_runs_finish_and_report_every_scenario(runs: tuple[SuiteRun, SuiteRun]) -> None:
    for run in runs:
        assert run.returncode == 0, run.output
        assert len(run.verdicts) >= 50, run.output
    plain, shuffled = runs
    assert set(plain.verdicts) == set(shuffled.verdicts)


def test_same_verdict_for_every_scenario_in_any_order(runs: tuple[SuiteRun, SuiteRun]) -> None:
    plain, shuffled = runs
    differing = {
        scenario: (verdict, shuffled.verdicts.get(scenario))
        for scenario, verdict in plain.verdicts.items()
        if shuffled.verdicts.get(scenario) != verdict
    }
    assert differing == {}


def test_the_shuffled_run_really_ran_in_another_order(runs: tuple[SuiteRun, SuiteRun]) -> None:
    plain, shuffled = runs
    probed = [str(probe["nodeid"]) for probe in shuffled.probes]
    plain_probed = [str(probe["nodeid"]) for probe in plain.probes]
    assert sorted(probed) == sorted(plain_probed)
    assert probed != plain_probed


def test_no_scenario_leaves_modules_or_import_paths_behind(
    runs: tuple[SuiteRun, SuiteRun],
) -> None:
    for run in runs:
        assert len(run.probes) == len(run.verdicts), run.output
        leaks = [probe for probe in run.probes if probe["modules"] or probe["paths"]]
        assert leaks == []


def test_no_temporary_files_outside_the_scenarios_own_directories(
    runs: tuple[SuiteRun, SuiteRun],
) -> None:
    for run in runs:
        assert run.tmpdir_left == []
