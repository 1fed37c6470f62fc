"""Scenarios run in workers forked after collection: the run reports what one process reports.

Each test runs ``pytest steps`` in a subprocess. A run in workers must give the same results
file, the same JUnit XML and the same terminal output as a run in one process (only timings and
the line naming the workers differ), stop at the same scenario under ``-x``, carry the workers'
warnings to the summary, err only the scenario whose worker died, and fall back to one process,
saying why, where workers cannot be used.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skill_conformance.runtime.parallel import Plan, plan_workers
from tests.mutants.suite_run import ROOT, SuiteRun, processes_mentioning, run_suite

_NOTE = re.compile(r"^scenarios ran in .*\n", re.MULTILINE)
_SECONDS = re.compile(r"\b\d+\.\d+s\b")


def _results(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    document.pop("created")
    return document


def _junit(path: Path) -> str:
    text = path.read_text()
    return re.sub(r' (time|timestamp|hostname)="[^"]*"', "", text)


def _terminal(run: SuiteRun) -> str:
    return _SECONDS.sub("Ns", _NOTE.sub("", run.output))


def _run_both(tmp_path: Path, impl: str, *extra: str) -> tuple[SuiteRun, SuiteRun]:
    runs = []
    for workers in ("1", "3"):
        out = tmp_path / workers
        out.mkdir()
        runs.append(
            run_suite(
                impl,
                f"--scenario-workers={workers}",
                f"--conformance-results={out / 'results.json'}",
                f"--junitxml={out / 'junit.xml'}",
                *extra,
            )
        )
    return runs[0], runs[1]


def test_a_run_in_workers_reports_exactly_what_a_run_in_one_process_does(tmp_path: Path) -> None:
    alone, forked = _run_both(tmp_path, "reference")
    assert alone.returncode == forked.returncode == 0, forked.output[-3000:]
    assert "scenarios ran in 3 worker processes forked after collection" in forked.output
    assert "scenarios ran in" not in alone.output
    assert len(forked.verdicts) == 145
    assert _results(tmp_path / "3" / "results.json") == _results(tmp_path / "1" / "results.json")
    assert _junit(tmp_path / "3" / "junit.xml") == _junit(tmp_path / "1" / "junit.xml")
    assert _terminal(forked) == _terminal(alone)


def test_maxfail_stops_at_the_scenario_one_process_stops_at(tmp_path: Path) -> None:
    impl = "tests.misbehaving.adapters:Raising"
    alone, forked = _run_both(tmp_path, impl, "--maxfail=3")
    assert alone.returncode == forked.returncode == 1, forked.output[-3000:]
    assert len(alone.bad()) == 3, alone.output[-3000:]
    assert forked.verdicts == alone.verdicts
    assert _results(tmp_path / "3" / "results.json") == _results(tmp_path / "1" / "results.json")


def test_a_worker_that_dies_errs_the_scenario_it_ran_and_the_run_goes_on() -> None:
    select = "list_skills or load_skill_by or tool_merging or python_tools"
    run = run_suite("tests.misbehaving.adapters:EndsProcess", "-k", select, "--scenario-workers=2")
    tail = run.output[-4000:]
    assert run.returncode == 1, tail
    assert not run.internal_errors(), tail
    assert len(run.verdicts) == 9, tail
    errored = {sid for sid, verdict in run.verdicts.items() if verdict == "errored"}
    assert errored == {sid for sid in run.verdicts if "list-skills" in sid}, run.verdicts
    assert set(run.verdicts.values()) == {"passed", "errored"}, run.verdicts
    assert "WorkerDied: the worker process running it exited with status 3" in tail
    assert processes_mentioning(run.scratch) == []


def test_when_pytest_s_own_process_breaks_no_worker_outlives_it(tmp_path: Path) -> None:
    base = tmp_path / "base"  # in the command line of pytest's process and of each worker
    command = [
        *(
            sys.executable,
            "-m",
            "pytest",
            "src/skill_conformance/steps",
            "-q",
            "-p",
            "no:cacheprovider",
        ),
        *("--impl=reference", "-p", "tests.suite.breaks_parent", "--scenario-workers=2"),
        f"--basetemp={base}",
    ]
    with (tmp_path / "output").open("w") as output:  # no pipe for a worker to hold open
        done = subprocess.run(
            command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, timeout=120, check=False
        )
    text = (tmp_path / "output").read_text()
    assert done.returncode == pytest.ExitCode.INTERNAL_ERROR, text[-3000:]
    assert "the parent's report hook broke" in text
    assert processes_mentioning(str(base)) == []


@pytest.mark.parametrize("workers", ["1", "2"])
def test_only_the_worlds_of_scenarios_that_did_not_pass_are_kept(
    tmp_path: Path, workers: str
) -> None:
    """The suite's configuration: a world is deleted as its scenario passes, in its worker."""
    base = tmp_path / "base"
    command = [
        *(
            sys.executable,
            "-m",
            "pytest",
            "src/skill_conformance/steps",
            "-q",
            "-p",
            "no:cacheprovider",
        ),
        *("--impl=reference", "-p", "tests.suite.fails_merging", f"--scenario-workers={workers}"),
        *("-k", "list_skills or tool_merging or python_tools", f"--basetemp={base}"),
    ]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:]
    assert "1 failed, 6 passed" in done.stdout, done.stdout[-3000:]
    kept = sorted(path.name for path in base.iterdir() if not path.is_symlink())
    assert kept == ["test_skillmanagercap_inherits_0"]
    assert (base / kept[0] / "skills").is_dir()


def test_warnings_raised_in_workers_reach_the_summary() -> None:
    select = "list_skills or load_skill_by or tool_merging or python_tools"
    run = run_suite("tests.misbehaving.adapters:Warns", "-k", select, "--scenario-workers=2")
    assert run.returncode == 0, run.output[-3000:]
    assert "scenarios ran in 2 worker processes" in run.output
    assert "misbehaving: ordinary warning in start" in run.output, run.output[-3000:]


def test_workers_asked_of_an_implementation_that_is_not_fork_safe_say_why_not() -> None:
    run = run_suite("template", "-k", "list_skills or tool_merging", "--scenario-workers=2")
    assert run.returncode == 1, run.output[-3000:]
    assert (
        "scenarios ran in this process, not in 2 workers: "
        "template does not declare itself fork_safe (docs/porting.md)"
    ) in run.output, run.output[-3000:]


def test_a_traced_run_keeps_its_scenarios_where_the_tracer_sees_them() -> None:
    select = "list_skills or tool_merging"
    run = run_suite("reference", "-p", "tests.suite.traced", "-k", select, "--scenario-workers=2")
    assert run.returncode == 0, run.output[-3000:]
    assert (
        "scenarios ran in this process, not in 2 workers: "
        "a tracer (coverage, a debugger) watches this process, and not its workers"
    ) in run.output, run.output[-3000:]


# -- how many workers --------------------------------------------------------------------------


class _Item:
    def __init__(self, name: str) -> None:
        self.nodeid = name


def _plan(
    count: int,
    asked: int | None,
    *,
    others: int = 0,
    unsuitable: str | None = None,
    memory: int = 0,
) -> Plan:
    items: list[Any] = [_Item(f"s{i}") for i in range(count)] + [_Item("t") for _ in range(others)]
    return plan_workers(
        items,
        asked,
        is_scenario=lambda item: item.nodeid != "t",
        memory_limit_mib=memory,
        unsuitable=unsuitable,
    )


def test_one_worker_asked_is_this_process() -> None:
    assert _plan(145, 1) == Plan(1)


def test_workers_asked_by_number_are_forked_up_to_one_per_scenario() -> None:
    assert _plan(145, 4).workers == 4
    assert _plan(3, 8).workers == 3
    assert _plan(1, 8) == Plan(1)


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"others": 1}, "the run holds tests that are not scenarios"),
        ({"unsuitable": "--pdb and --trace debug in this process"}, "--pdb and --trace"),
    ],
)
def test_workers_asked_where_they_cannot_run_are_refused_with_the_reason(
    kwargs: dict[str, Any], why: str
) -> None:
    plan = _plan(145, 4, **kwargs)
    assert plan.workers == 1
    assert plan.note is not None
    assert plan.note.startswith("scenarios ran in this process, not in 4 workers: ")
    assert why in plan.note


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auto forks on Linux only")
def test_auto_forks_one_more_worker_than_cpus_when_the_run_is_large_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("skill_conformance.runtime.parallel._cpus", lambda: 2)
    assert _plan(145, None).workers == 3
    assert _plan(16, None).workers == 2  # eight scenarios per worker at least
    assert _plan(8, None) == Plan(1)
    assert _plan(145, None, others=1) == Plan(1)  # silently: nobody asked
    assert _plan(145, None, unsuitable="no") == Plan(1)
    monkeypatch.setattr("skill_conformance.runtime.parallel._cpus", lambda: 1)
    assert _plan(145, None) == Plan(1)


@pytest.mark.skipif(not Path("/proc/meminfo").exists(), reason="reads /proc/meminfo")
def test_auto_forks_no_more_workers_than_the_memory_limit_leaves_room_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("skill_conformance.runtime.parallel._cpus", lambda: 64)
    available = next(
        int(line.split()[1]) // 1024
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemAvailable:")
    )
    assert _plan(1000, None, memory=available // 2).workers == 2
    assert _plan(1000, None, memory=available * 2) == Plan(1)


def test_auto_runs_in_this_process_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("skill_conformance.runtime.parallel.sys.platform", "darwin")
    assert _plan(145, None) == Plan(1)
    assert _plan(145, 3).workers == 3
