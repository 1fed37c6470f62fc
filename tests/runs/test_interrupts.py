"""One Ctrl-C or SIGTERM stops a conformance run cleanly.

Each test starts a real ``pytest steps`` run in a subprocess, waits until it is inside a scenario
that runs a test MCP server (over stdio, or the HTTP one the world starts itself), sends one real
signal, and checks: the run ends soon, as *interrupted* (exit 2, nothing blamed on the
implementation), no process it started survives, it leaves no temporary file, and the results
file says the run was interrupted.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.signals.processes import processes_with

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

_EXIT_WITHIN = 20.0
"""Seconds from the signal to the run's exit. Generous: the machine is shared; a run that is
not stopped takes much longer (it goes on with the next scenarios) and exits 1, not 2."""


def _stdio_server_started(base: Path) -> bool:
    # The worlds of passing scenarios are deleted while this looks: `os.walk` passes over a folder
    # that is gone by the time it is read (`Path.rglob` raised FileNotFoundError).
    for folder, _subfolders, files in os.walk(base):
        if "mcp.log" not in files:
            continue
        try:
            if '"start"' in (Path(folder) / "mcp.log").read_text():
                return True
        except OSError:
            pass
    return False


def _http_server_running(marker: str) -> bool:
    return any("--http" in line for line in processes_with(marker))


def _jsonlines_hangs(pids: Path) -> bool:
    # The process marks the moment it reaches the hanging op inside a scenario (its pids are
    # written earlier, when the run loads it, and collection can take seconds under load).
    return Path(f"{pids}.hanging").exists()


def _run_and_signal(
    tmp_path: Path,
    sig: signal.Signals,
    select: str,
    ready: Callable[[Path, str], bool],
    impl: str = "reference",
    extra_env: dict[str, str] | None = None,
    via: str = "pytest",
    to_group: bool = False,
    times: int = 1,
) -> tuple[int, float, str, Path, Path, str]:
    marker = f"SKILL_CONFORMANCE_INTERRUPT_TEST={uuid.uuid4().hex}"
    base, temp, results = tmp_path / "base", tmp_path / "tmp", tmp_path / "out" / "results.json"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), marker.split("=")[0]: marker.split("=")[1]}
    env.update(extra_env or {})
    if via == "run":  # the command users run: the signal goes to it, and so to pytest
        start = [sys.executable, "-m", "skill_conformance", "run", "--impl", impl]
    else:
        start = [sys.executable, "-m", "pytest", "src/skill_conformance/steps"]
        start += ["--skill-conformance-impl", impl, "-p", "no:cacheprovider"]
    command = [
        *start, "-q", "-p", "no:randomly", "-k", select, f"--basetemp={base}",
        f"--skill-conformance-results={results}",
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not ready(base, marker):
            assert process.poll() is None, "the run ended before the signal could be sent"
            assert time.monotonic() < deadline, "the scenario to interrupt never started"
            time.sleep(0.02)
        for again in range(times):
            time.sleep(0.05 if again else 0)
            if to_group:  # as a terminal's Ctrl-C, or a CI runner killing the job's process group
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
        sent = time.monotonic()
        output, _ = process.communicate(timeout=120)
        elapsed = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode, elapsed, output.decode(errors="replace"), temp, results, marker


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
@pytest.mark.parametrize(
    ("where", "via"),
    [("stdio", "pytest"), ("stdio", "run"), ("http", "pytest"), ("jsonlines", "pytest")],
)
def test_one_signal_stops_the_run_and_leaves_nothing_behind(
    tmp_path: Path, sig: signal.Signals, where: str, via: str
) -> None:
    """Also sent to ``skill-conformance run``, which becomes pytest rather than wait for it."""
    impl, env = "reference", {}
    if where == "stdio":
        select, ready = "mcp and not by_url", lambda base, _marker: _stdio_server_started(base)
    elif where == "http":
        select = "reached_by_url or python_tools"
        ready = lambda _base, marker: _http_server_running(marker)  # noqa: E731
    else:  # a JSON-lines implementation hanging in run_tool, with a child process of its own
        pids = tmp_path / "pids"
        faulty = ROOT / "tests" / "jsonlines_impl" / "faulty.py"
        command = [sys.executable, str(faulty), "--at", "run_tool", "--do", "hang"]
        impl, env = "jsonlines", {"SKILL_CONFORMANCE_JSONL_CMD": shlex.join(command)}
        select = "python_tools"
        ready = lambda _base, _marker: _jsonlines_hangs(pids)  # noqa: E731
        env["SKILL_CONFORMANCE_JSONL_CMD"] += f" --pids {shlex.quote(str(pids))}"
    status, elapsed, output, temp, results, marker = _run_and_signal(
        tmp_path, sig, select, ready, impl, env, via
    )
    _stopped_cleanly(status, elapsed, output, temp, results, marker)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_one_signal_to_the_whole_process_group_stops_the_run(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """As a terminal's Ctrl-C or a CI runner's kill of the job's group: the servers get it too."""
    select, ready = "mcp and not by_url", lambda base, _marker: _stdio_server_started(base)
    status, elapsed, output, temp, results, marker = _run_and_signal(
        tmp_path, sig, select, ready, via="run", to_group=True
    )
    _stopped_cleanly(status, elapsed, output, temp, results, marker)


@pytest.mark.parametrize("via", ["pytest", "run"])
def test_ctrl_c_three_times_ends_the_run_as_interrupted_in_one_line(
    tmp_path: Path, via: str
) -> None:
    """The second and third land while the run finishes (closing a hanging implementation)."""
    pids = tmp_path / "pids"
    faulty = ROOT / "tests" / "jsonlines_impl" / "faulty.py"
    command = [sys.executable, str(faulty), "--at", "run_tool", "--do", "hang", "--pids", str(pids)]
    env = {"SKILL_CONFORMANCE_JSONL_CMD": shlex.join(command)}
    status, elapsed, output, temp, results, marker = _run_and_signal(
        tmp_path, signal.SIGINT, "python_tools", lambda _base, _marker: _jsonlines_hangs(pids),
        "jsonlines", env, via, to_group=True, times=3,
    )  # fmt: skip
    assert "Traceback" not in output, output[-3000:]
    assert "run interrupted:" in output, output[-3000:]  # pytest's banner of one interrupt follows
    assert status == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert elapsed < _EXIT_WITHIN, f"exited {elapsed:.1f} s after the signal"
    time.sleep(0.2)
    assert processes_with(marker) == []
    assert list(temp.iterdir()) == []
    assert json.loads(results.read_text())["interrupted"] is True


def _stopped_cleanly(
    status: int, elapsed: float, output: str, temp: Path, results: Path, marker: str
) -> None:
    """Interrupted (exit 2) soon, nothing blamed on the implementation or left behind."""
    assert "ImplementationCrash" not in output, output[-3000:]
    assert status == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert elapsed < _EXIT_WITHIN, f"exited {elapsed:.1f} s after the signal"
    time.sleep(0.2)  # let the kernel reap what was killed last
    assert processes_with(marker) == []
    assert list(temp.iterdir()) == []
    assert [p.name for p in results.parent.iterdir()] == ["results.json"]
    written = json.loads(results.read_text())
    assert written["interrupted"] is True
    assert written["exit_status"] == pytest.ExitCode.INTERRUPTED
    assert "errored" not in written["counts"]
    assert "run interrupted:" in output


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_an_interrupt_inside_pytests_handling_of_one_still_gives_an_interrupted_run(
    tmp_path: Path,
) -> None:
    """pytest then writes exit status 0 and lets the interrupt escape as a traceback."""
    results = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "pytest", "src/skill_conformance/steps", "-q", "-p", "no:randomly",
        "--skill-conformance-impl", "reference", "-p", "no:cacheprovider",
        "-p", "interrupted_twice", "-k", "bare_name", f"--basetemp={tmp_path / 'base'}",
        f"--skill-conformance-results={results}",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    run = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == pytest.ExitCode.INTERRUPTED, run.stderr[-3000:]
    assert "Traceback" not in run.stdout + run.stderr, run.stderr[-3000:]
    assert run.stderr.splitlines() == [
        "skill-conformance: interrupted again while the run was stopping: its report may be cut "
        "short"
    ]
    written = json.loads(results.read_text())
    assert (written["interrupted"], written["exit_status"]) == (True, 2)
