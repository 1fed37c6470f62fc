"""Running the suite at each commit and keeping what it gave, so that a rerun runs only new ones.

``CACHE/results/<commit9>.json`` is a commit's results file; ``CACHE/results/<commit9>.status.json``
says how it went: ``{"outcome": "results"}`` with the build's and the run's seconds, or
``{"outcome": "cannot-build" | "no-results", "reason": ...}`` for a commit that has no verdicts
(its venv could not be built, or the run ended without writing results). Those are kept too, so a
rerun does not try again unless asked to.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from skill_conformance.atomic import write_atomic
from skill_conformance.commands.history.build import BuildError
from skill_conformance.commands.history.commits import Commit
from skill_conformance.escape.terminal import printable
from skill_conformance.processes import stop_group
from skill_conformance.verdicts.comparison import cannot_drive_reason
from skill_conformance.verdicts.results import Results, ResultsError, load_results
from skill_conformance.verdicts.summary import format_counts

__all__ = ["Builder", "Outcome", "Recorder", "Runner", "SuiteRunner"]


class Builder(Protocol):
    """Makes the Python of a commit's venv (:class:`~.build.UvBuilder`)."""

    def build(self, commit: Commit) -> Path:
        """The interpreter to run the suite with; raises :class:`BuildError`."""
        ...


class Runner(Protocol):
    """Runs the suite with a commit's Python, writing a results file."""

    def run(self, python: Path, results: Path, log: Path) -> None:
        """Run; ``results`` is written unless the run ends before it can be."""
        ...


@dataclass(frozen=True)
class SuiteRunner:
    """The bundled suite against ``--impl IMPL``, raw (no expectations), bounded in time."""

    impl: str = "agentpool"
    timeout: float = 3600.0
    extra: Sequence[str] = ()

    def run(self, python: Path, results: Path, log: Path) -> None:
        """Run pytest in a fresh process group, its output into ``log``; stop it at the bound."""
        command = [
            str(python),
            *("-m", "skill_conformance", "run", f"--impl={self.impl}"),
            *("--no-expectations", f"--results={results}", "-q", *self.extra),
        ]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        scratch_dir = tempfile.TemporaryDirectory(prefix="skill-conformance-history-")
        with scratch_dir as scratch, log.open("w") as out:
            process = subprocess.Popen(
                command,
                cwd=scratch,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                process.wait(self.timeout)
            except subprocess.TimeoutExpired:
                out.write(f"\nskill-conformance history: stopped after {self.timeout:g} s\n")
            finally:  # the run, and anything it left behind (stopped at once on another Ctrl-C)
                stop_group(process, 30 if process.poll() is None else 0)


@dataclass(frozen=True)
class Outcome:
    """What the history knows of one commit: its results, or why it has none."""

    commit: Commit
    results: Results | None = None
    reason: str = ""
    """Why there are no results (``cannot build: ...``), or why the adapter cannot drive it."""

    @property
    def judged(self) -> bool:
        """Whether the commit has verdicts (the adapter could drive it)."""
        return self.results is not None and not self.reason


def _last_line(path: Path) -> str:
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        return "no log"
    found = [line for line in lines if line and not line.startswith("=")]
    return found[-1][:300] if found else "no output"


class Recorder:
    """Keeps each commit's outcome under ``cache/results``; builds and runs only what is new."""

    def __init__(
        self,
        cache: Path,
        builder: Builder,
        runner: Runner,
        progress: Callable[[str], None] = lambda line: print(printable(line), flush=True),
    ) -> None:
        self.directory = cache.absolute() / "results"  # the runs write there from elsewhere
        self.builder = builder
        self.runner = runner
        self.progress = progress

    def _paths(self, commit: Commit) -> tuple[Path, Path, Path]:
        base = self.directory / commit.short
        return base.with_suffix(".json"), base.with_suffix(".status.json"), base.with_suffix(".log")

    def known(self, commit: Commit) -> Outcome | None:
        """The outcome kept for ``commit``, or None if it was never recorded."""
        results_path, status_path, _ = self._paths(commit)
        try:
            status = json.loads(status_path.read_text())
        except (OSError, ValueError):
            return None
        if status.get("outcome") != "results":
            return Outcome(commit, reason=str(status.get("reason", "no results")))
        try:
            results = load_results(results_path)
        except ResultsError:
            return None
        return Outcome(commit, results, _undriven(results))

    def record(self, commits: Sequence[Commit], *, retry: bool = False) -> list[Outcome]:
        """The outcome of every commit, building and running those not yet recorded.

        One progress line per commit. ``retry`` tries again the commits kept without results.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        outcomes = []
        for index, commit in enumerate(commits, 1):
            head = f"[{index}/{len(commits)}] {commit.short} {commit.date} {commit.subject[:60]}"
            known = self.known(commit)
            if known is not None and (known.results is not None or not retry):
                self.progress(f"{head}: {_describe(known)} (kept)")
                outcomes.append(known)
                continue
            outcome, timing = self._record(commit)
            self.progress(f"{head}: {_describe(outcome)} ({timing})")
            outcomes.append(outcome)
        return outcomes

    def _record(self, commit: Commit) -> tuple[Outcome, str]:
        results_path, status_path, log = self._paths(commit)
        started = time.monotonic()
        try:
            python = self.builder.build(commit)
        except BuildError as error:
            reason = f"cannot build: {error}"
            _write_json(status_path, {"outcome": "cannot-build", "reason": reason})
            return Outcome(commit, reason=reason), f"{time.monotonic() - started:.0f} s"
        built = time.monotonic()
        results_path.unlink(missing_ok=True)
        self.runner.run(python, results_path, log)
        ran = time.monotonic()
        timing = f"built in {built - started:.0f} s, ran in {ran - built:.0f} s"
        try:
            results = load_results(results_path)
            if results.interrupted:
                raise ResultsError("the run was interrupted")
        except ResultsError as error:
            if isinstance(error.__cause__, OSError) or not results_path.exists():
                reason = f"the run wrote no results: {_last_line(log)}"
            else:
                reason = f"the run's results are unusable: {error}"
            _write_json(status_path, {"outcome": "no-results", "reason": reason})
            return Outcome(commit, reason=reason), timing
        _write_json(
            status_path,
            {"outcome": "results", "build_s": round(built - started), "run_s": round(ran - built)},
        )
        return Outcome(commit, results, _undriven(results)), timing


def _undriven(results: Results) -> str:
    reason = cannot_drive_reason(results)
    return f"cannot drive: {reason}" if reason else ""


def _describe(outcome: Outcome) -> str:
    if outcome.results is None or outcome.reason:
        return outcome.reason or "no results"
    return format_counts(outcome.results.counts()) or "no scenario"


def _write_json(path: Path, data: object) -> None:
    write_atomic(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
