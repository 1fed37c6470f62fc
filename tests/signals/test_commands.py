"""Every command, Ctrl-C or SIGTERM at a random moment: exit 2 and one line, or its whole output.

A property over the moment: each example starts the real command in a process group of its own,
waits until it handles SIGTERM (its first instruction: nothing it imports runs before), sleeps a
random fraction of the command's uninterrupted run time, and sends one signal, SIGTERM to the
command or SIGINT to its group (a terminal's Ctrl-C). Then either the command ended interrupted
(exit 2, ``skill-conformance: interrupted`` alone on stderr, what it printed before a beginning of
its whole output) or it ended as it does uninterrupted (same status, same output). Either way no
traceback, every file it writes is absent or whole, no temporary file, and no process left. The
number of examples per command is ``SKILL_CONFORMANCE_SIGNAL_EXAMPLES`` (default 3).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.report.report_helpers import results_file
from tests.signals.processes import catches, processes_with

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("SKILL_CONFORMANCE_SIGNAL_EXAMPLES", "3"))
INTERRUPTED_LINE = "skill-conformance: interrupted\n"


@dataclass(frozen=True)
class Invocation:
    """A command line and the files it writes (compared whole with an uninterrupted run's)."""

    argv: list[str]
    out: Path
    """The folder it writes into (fresh for each example); its name is ``OUT`` in the output."""
    written: str = ""
    """The folder under :attr:`out` whose files are compared (the others are its cache)."""


@dataclass(frozen=True)
class Outcome:
    status: int
    stdout: str
    stderr: str
    seconds: float
    files: dict[str, bytes]
    left: list[str]


def _inputs(base: Path) -> dict[str, Path]:
    base.mkdir(parents=True, exist_ok=True)
    first = results_file(base / "a.json", "impl", "1.0", lambda i, _e: ("passed", ""))
    second = results_file(
        base / "b.json",
        "impl",
        "2.0",
        lambda i, _e: ("failed", "observed 3, expected 2") if i % 3 == 0 else ("passed", ""),
    )
    stale = base / "features"
    if not stale.exists():
        stale.mkdir()
        for feature in (ROOT / "features").glob("*.feature"):
            (stale / feature.name).write_text(feature.read_text() + "# stale\n")
    uv = base / "uv"
    uv.write_text(f"#!{sys.executable}\nimport sys\nsys.exit('uv: no network here')\n")
    uv.chmod(0o755)
    repo = base / "repo"
    if not repo.exists():
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        for version in range(3):
            (repo / "src" / "pkg" / "skills").mkdir(parents=True, exist_ok=True)
            (repo / "src" / "pkg" / "skills" / "loader.py").write_text(f"v{version}\n")
            (repo / "uv.lock").write_text("version = 1\n")
            subprocess.run([*git, "add", "-A"], check=True)
            subprocess.run([*git, "commit", "-qm", f"v{version}"], check=True)
    return {"a": first, "b": second, "stale": stale, "uv": uv, "repo": repo}


COMMANDS: dict[str, Callable[[dict[str, Path], Path], Invocation]] = {
    "gherkin": lambda i, out: Invocation(
        ["gherkin", "--specs", str(ROOT / "openspec" / "specs"), "--out", str(out)], out
    ),
    "gherkin-check": lambda i, out: Invocation(
        [
            "gherkin",
            "--specs",
            str(ROOT / "openspec" / "specs"),
            "--out",
            str(i["stale"]),
            "--check",
        ],
        out,
    ),
    "trace": lambda i, out: Invocation(["trace"], out),
    "report": lambda i, out: Invocation(
        ["report", str(i["a"]), str(i["b"]), "--out", str(out / "report.html")], out
    ),
    "expectations": lambda i, out: Invocation(
        ["expectations", "--from", str(i["b"]), "--out", str(out / "expected.yaml")], out
    ),
    "compare": lambda i, out: Invocation(
        ["compare", str(i["a"]), str(i["b"]), "--format", "json", "--out", str(out / "c.json")],
        out,
    ),
    "compare-text": lambda i, out: Invocation(["compare", str(i["a"]), str(i["b"])], out),
    "smoke": lambda i, out: Invocation(["smoke", "--impl", "reference"], out),
    "history": lambda i, out: Invocation(
        [
            *("history", "--repo", str(i["repo"]), "--since", "HEAD~2"),
            *("--cache", str(out / "cache"), "--out", str(out / "pages"), "--uv", str(i["uv"])),
            *("--python", sys.executable, "--suite", str(ROOT)),
        ],
        out,
        "pages",
    ),
    "matrix": lambda i, out: Invocation(
        ["matrix", "--out", str(out), "--run", f"template={out / 'no-python'}"], out
    ),
}


def _command(argv: list[str]) -> list[str]:
    if argv[0] == "matrix":
        return [sys.executable, "-m", "skill_conformance.commands.matrix", *argv[1:]]
    return [sys.executable, "-m", "skill_conformance", *argv]


def _files(folder: Path, out: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {
        str(path.relative_to(folder)): path.read_bytes().replace(str(out).encode(), b"OUT")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _run(
    invocation: Invocation, sig: signal.Signals | None, fraction: float, whole: float
) -> Outcome:
    marker = uuid.uuid4().hex
    env = {**os.environ, "SKILL_CONFORMANCE_SIGNAL_TEST": marker, "COLUMNS": "100"}
    process = subprocess.Popen(
        _command(invocation.argv),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not catches(process.pid) and process.poll() is None:
            assert time.monotonic() < deadline, "the command never handled SIGTERM"
            time.sleep(0.001)
        started = time.monotonic()
        if sig is not None:
            time.sleep(fraction * whole)
            with contextlib.suppress(ProcessLookupError):  # it may have ended by then
                if sig == signal.SIGINT:
                    os.killpg(process.pid, sig)
                else:
                    process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=120)
        seconds = time.monotonic() - started
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    time.sleep(0.1)
    left = processes_with(marker)
    for line in left:
        os.kill(int(line.split(":")[0]), signal.SIGKILL)

    def named(text: bytes) -> str:  # the folder as named in the output, whole or relative
        where = invocation.out
        return text.decode(errors="replace").replace(str(where), "OUT").replace(where.name, "OUT")

    return Outcome(
        process.returncode,
        named(stdout),
        named(stderr),
        seconds,
        _files(invocation.out / invocation.written, invocation.out),
        left,
    )


_BASELINES: dict[str, Outcome] = {}


def _baseline(name: str, tmp: Path) -> Outcome:
    if name not in _BASELINES:
        inputs = _inputs(tmp / "inputs")
        _BASELINES[name] = _run(COMMANDS[name](inputs, tmp / "baseline"), None, 0.0, 0.0)
    return _BASELINES[name]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("signals")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_signal_at_any_moment_ends_a_command_in_one_line_or_not_at_all(
    shared: Path, name: str, sig: signal.Signals
) -> None:
    baseline = _baseline(name, shared)
    assert "Traceback" not in baseline.stderr, baseline.stderr
    assert baseline.left == []
    counter = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(fraction=st.floats(min_value=0.0, max_value=1.1))
    def interrupted_at(fraction: float) -> None:
        out = shared / f"{name}-{sig.name}-{next(counter)}"
        invocation = COMMANDS[name](_inputs(shared / "inputs"), out)
        got = _run(invocation, sig, fraction, baseline.seconds)
        note = f"{name} {sig.name} at {fraction:.2f} of {baseline.seconds:.2f} s: {got}"
        assert "Traceback" not in got.stdout + got.stderr, note
        assert got.left == [], note
        if got.status == 2 and got.stderr == INTERRUPTED_LINE:
            assert baseline.stdout.startswith(got.stdout) or name == "smoke", note
        else:
            assert (got.status, got.stdout, got.stderr) == (
                baseline.status,
                baseline.stdout,
                baseline.stderr,
            ), note
        for file, data in got.files.items():  # absent, or whole: never half, never a temp file
            assert file in baseline.files, note
            assert data == baseline.files[file] or _volatile(file), note

    interrupted_at()


def _volatile(file: str) -> bool:
    """A file whose bytes hold the time it was written: whole if it parses."""
    return file.endswith((".html", ".md", ".status.json"))


def test_gherkin_check_into_a_reader_that_stops_at_once_is_quiet(tmp_path: Path) -> None:
    """`gherkin --check | head -1` on features that differ: no error line, SIGPIPE's status."""
    stale = _inputs(tmp_path)["stale"]
    command = _command(["gherkin", "--specs", str(ROOT / "openspec" / "specs")])
    command += ["--out", str(stale), "--check"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()  # gone before the command writes its diff
        errors = process.stderr.read().decode()
        status = process.wait(timeout=120)
    assert (status, errors) == (128 + signal.SIGPIPE, "")


def _run_argv(tmp_path: Path) -> list[str]:
    results, junit = tmp_path / "out" / "results.json", tmp_path / "out" / "junit.xml"
    argv = [
        "run", "--impl", "reference", "-q", "-p", "no:randomly", "-k", "bare_name or uri",
        f"--basetemp={tmp_path / 'base'}", "--results", str(results), f"--junitxml={junit}",
    ]  # fmt: skip
    return argv


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_a_signal_at_any_moment_of_a_run_leaves_results_that_say_so(
    tmp_path_factory: pytest.TempPathFactory, sig: signal.Signals
) -> None:
    """`run` becomes pytest: its outcome is the results file, which must tell the truth.

    Interrupted before pytest's session begins: no results file, no JUnit XML, one line. Later:
    a results file saying interrupted (exit status 2) and JUnit XML that parses; or, once the
    results are written, the run's own status and a results file saying not interrupted.
    """
    first = tmp_path_factory.mktemp("run")
    argv = _run_argv(first)
    whole = _run(Invocation(argv, first / "out"), None, 0.0, 0.0)
    assert whole.status == 0, whole.stdout[-2000:]
    counter = iter(range(10**6))

    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(fraction=st.floats(min_value=0.0, max_value=1.1))
    def interrupted_at(fraction: float) -> None:
        tmp = tmp_path_factory.mktemp(f"run-{next(counter)}")
        argv = _run_argv(tmp)
        got = _run(Invocation(argv, tmp / "out"), sig, fraction, whole.seconds)
        note = f"run {sig.name} at {fraction:.2f} of {whole.seconds:.2f} s: {got.status} {got}"
        assert "Traceback" not in got.stdout + got.stderr, note
        assert got.left == [], note
        assert set(got.files) <= {"results.json", "junit.xml"}, note
        if "junit.xml" in got.files:
            ElementTree.fromstring(got.files["junit.xml"])
        if "results.json" not in got.files:
            assert (got.status, got.stderr) == (2, INTERRUPTED_LINE), note
            return
        written = json.loads(got.files["results.json"])
        assert written["exit_status"] == got.status, note
        assert written.get("interrupted", False) is (got.status == 2), note
        assert got.status in (0, 2), note

    interrupted_at()
