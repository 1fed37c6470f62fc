r"""The conformance matrix (``make matrix``): every implementation, each in its own Python.

Each run is ``PYTHON -m skill_conformance run --impl IMPL`` from the repository root, in the venv of
that implementation, writing its results file into the output directory as
``{adapter}-{version}.json`` beside a badge summary ``{adapter}-{version}.summary.json``
(passed, failed, not applicable, version: what a badge shows). The HTML report of all runs, in
the order given (reference first), is ``index.html``: one self-contained page to publish. Each
run prints a line when it starts and one when it ends, with its counts and how long it took.

    python -m skill_conformance.commands.matrix --out build/matrix \\
        --run reference=.venv/bin/python --run agno=build/venvs/agno/bin/python

Each run's address space is limited to :data:`MEMORY_LIMIT`. Exit status: 0 when every run's
gate passed (failures only where its expectations file lists
them), 1 when one did not, 2 when a run gave no results at all (one line says why, a venv
whose Python is missing, say; the other runs go on) or the report could not be written.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.atomic import write_atomic
from skill_conformance.processes import kill_group, stop_group
from skill_conformance.runtime.registry import implementations

__all__ = ["Outcome", "Run", "badge_summary", "main", "parse_run", "run_matrix"]

_ROOT = Path(__file__).resolve().parents[3]
"""The repository root: where ``features/`` is (an editable install)."""


MEMORY_LIMIT = 4 << 30
"""The address space each run may take (the soft ``RLIMIT_AS``), 4 GiB: an implementation that
reads a ``SKILL.md`` linked to ``/dev/zero`` to its end meets a ``MemoryError``, not the machine's
OOM killer (observed: a third party's run grew to 10 GB before the kernel killed it). Only the
soft limit: the suite lifts it for an implementation in a process of its own (JSON-lines), whose
runtime may reserve more address space than it uses (Node's), and judges it by its growth."""


def _limit_memory() -> None:
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    soft = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@dataclass(frozen=True)
class Run:
    """One implementation of the matrix: the ``--impl`` it is run with, in which Python."""

    impl: str
    python: str


@dataclass(frozen=True)
class Outcome:
    """What one run gave: its results file (if any), exit status and duration."""

    run: Run
    results: Path | None
    status: int
    seconds: float


def parse_run(text: str) -> Run:
    """``IMPL=PYTHON`` as ``--run`` takes it: IMPL registered, or ``module:Attribute``."""
    impl, equals, python = text.partition("=")
    if not equals or not impl or not python:
        raise argparse.ArgumentTypeError(f"--run {text!r}: expected IMPL=PYTHON")
    if impl not in implementations() and ":" not in impl:
        known = ", ".join(sorted(implementations()))
        raise argparse.ArgumentTypeError(f"--run {text!r}: {impl!r} is not registered ({known})")
    return Run(impl, python)


def badge_summary(results: Mapping[str, object]) -> dict[str, object]:
    """The summary a badge shows, from a results document (``--skill-conformance-results`` JSON)."""
    header = results["header"]
    counts = results.get("counts", {})
    assert isinstance(header, dict), "a results document has a header"
    assert isinstance(counts, dict), "a results document's counts are an object"
    adapter = header["adapter"]
    return {
        "implementation": adapter["name"],
        "version": adapter["version"],
        "suite_version": header["suite_version"],
        "spec_digest": header["spec_digest"],
        "total": sum(counts.values()),
        "passed": counts.get("passed", 0),
        "failed": counts.get("failed", 0) + counts.get("expected-failure", 0),
        "errored": counts.get("errored", 0),
        "not_applicable": counts.get("not-applicable", 0),
        "expected_failures": counts.get("expected-failure", 0),
        "unexpected_passes": counts.get("unexpected-pass", 0),
        "gate": "pass" if results.get("exit_status") == 0 else "fail",
    }


def _counts_line(summary: Mapping[str, object]) -> str:
    names = ("passed", "failed", "errored", "unexpected_passes", "not_applicable")
    parts = [f"{summary[name]} {name.replace('_', ' ')}" for name in names if summary[name]]
    line = ", ".join(parts) or "no scenario"
    if summary["expected_failures"]:
        line += f" ({summary['expected_failures']} of the failures expected)"
    return line


EXIT_GRACE = 30.0
"""Seconds a run may take to exit once its results are written. A thread of the implementation
still blocked (on a named pipe it opened, say) keeps the interpreter from exiting: the run is
then killed, and its status is the one its results file records."""


def _wait(process: subprocess.Popen[bytes], results: Path) -> int:
    """The run's exit status; its recorded one if it hangs after writing its results."""
    written_at: float | None = None
    while (status := process.poll()) is None:
        if written_at is None and results.exists():
            written_at = time.monotonic()
        if written_at is not None and time.monotonic() - written_at > EXIT_GRACE:
            process.kill()
            process.wait()
            recorded = json.loads(results.read_text(encoding="utf-8")).get("exit_status")
            print(f"      killed {EXIT_GRACE:.0f} s after writing its results", flush=True)
            return recorded if isinstance(recorded, int) else 1
        time.sleep(0.2)
    return status


def _one(run: Run, index: int, total: int, out: Path) -> Outcome:
    """Run the suite once, in ``run.python``, into ``out``."""
    print(
        f"[{index}/{total}] {run.impl}: skill-conformance run --impl {run.impl} ({run.python})",
        flush=True,
    )
    scratch = out / f".run-{index}.json"
    log = out / f".run-{index}.log"
    scratch.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_ROOT / "src"), str(_ROOT)])}
    command = [run.python, "-m", "skill_conformance", "run", "--impl", run.impl]
    command += ["-q", "--results", str(scratch)]
    started = time.monotonic()
    with log.open("wb") as sink:
        try:
            process = subprocess.Popen(
                command,
                cwd=_ROOT,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                preexec_fn=_limit_memory,
                start_new_session=True,  # stopped with all it started, whoever was signalled
            )
        except OSError as error:
            print(f"      {run.impl}: no results: {_unstartable(run.python, error)}", flush=True)
            return Outcome(run, None, NOT_STARTED, 0.0)
        try:
            status = _wait(process, scratch)
        except KeyboardInterrupt:  # the run ends as interrupted; its partial results are not kept
            stop_group(process, EXIT_GRACE)
            scratch.unlink(missing_ok=True)
            raise
        finally:
            kill_group(process)
    seconds = time.monotonic() - started
    if not scratch.exists():
        print(f"      {run.impl}: no results (exit {status}); its output: {log}", flush=True)
        return Outcome(run, None, status, seconds)
    document = json.loads(scratch.read_text(encoding="utf-8"))
    summary = badge_summary(document)
    stem = f"{summary['implementation']}-{summary['version']}"
    results = out / f"{stem}.json"
    scratch.replace(results)
    log.replace(out / f"{stem}.log")
    text = json.dumps(summary, indent=1) + "\n"
    write_atomic(out / f"{stem}.summary.json", text.encode("utf-8"))
    gate = "gate passes" if status == 0 else f"GATE FAILS (exit {status})"
    print(f"      {stem}: {_counts_line(summary)}; {gate} ({seconds:.0f} s)", flush=True)
    return Outcome(run, results, status, seconds)


NOT_STARTED = 4
"""The status of a run whose Python cannot be started (pytest's usage error)."""


def _unstartable(python: str, error: OSError) -> str:
    """Why ``python`` could not be started, on one line."""
    path = Path(python)
    if path.is_symlink() and not path.exists():
        return (
            f"cannot start {python}: it links to {os.readlink(path)}, which does not exist "
            "(the venv's base Python is gone: rebuild the venv)"
        )
    if not path.exists():
        return f"cannot start {python}: no such file (is its venv built?)"
    return f"cannot start {python}: {error.strerror or error}"


def run_matrix(runs: Sequence[Run], out: Path) -> int:
    """Run every implementation in turn, then write the report; the exit status (module doc)."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    outcomes = [_one(run, i, len(runs), out) for i, run in enumerate(runs, 1)]
    files = [str(o.results) for o in outcomes if o.results is not None]
    reported = 0
    if files:
        report = shutil.which("skill-conformance", path=str(Path(sys.executable).parent))
        command = [
            report or "skill-conformance",
            "report",
            f"--out={out / 'index.html'}",
            "--",
            *files,
        ]
        reported = subprocess.run(command, check=False).returncode
    print(f"matrix: {len(files)} of {len(runs)} runs in {time.monotonic() - started:.0f} s")
    if files and reported != 0:
        print(f"matrix: no report: skill-conformance report exited {reported}", flush=True)
        return 2
    if any(o.results is None for o in outcomes):
        return 2
    return 1 if any(o.status != 0 for o in outcomes) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m skill_conformance.commands.matrix")
    parser.add_argument("--out", required=True, type=Path, help="directory of the results")
    parser.add_argument(
        "--run", action="append", type=parse_run, required=True, metavar="IMPL=PYTHON"
    )
    args = parser.parse_args(argv)
    return run_matrix(args.run, args.out)


if __name__ == "__main__":
    from skill_conformance.signals import guarded

    sys.exit(guarded(main))
