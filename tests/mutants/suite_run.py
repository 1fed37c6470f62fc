"""Run the full conformance suite against one ``--impl`` in a subprocess, and read its verdicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[2]
TRACEBACK_MARKERS = ("Traceback (most recent call last)", "INTERNALERROR")


@dataclass(frozen=True)
class SuiteRun:
    """What one run of ``pytest steps --impl IMPL`` gave."""

    impl: str
    returncode: int
    verdicts: dict[str, str]
    """Scenario id -> verdict, as the suite's plugin classified it."""
    output: str
    seconds: float
    scratch: str
    """The run's private temporary directory: every MCP server it started has it in its argv."""

    def bad(self) -> set[str]:
        """Ids of the scenarios that failed or errored."""
        caught = (Verdict.FAILED, Verdict.ERRORED)
        return {sid for sid, verdict in self.verdicts.items() if Verdict(verdict) in caught}

    def internal_errors(self) -> list[str]:
        """Lines showing that pytest itself (not a scenario) broke."""
        return [line for line in self.output.splitlines() if "INTERNALERROR" in line]


def processes_mentioning(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry.name))
    return found


def run_suite(
    impl: str,
    *extra: str,
    scenario_timeout: float = 10.0,
    timeout: float = 600.0,
    env: dict[str, str] | None = None,
) -> SuiteRun:
    """Run the conformance suite on ``impl``; ``extra`` arguments go to pytest."""
    with tempfile.TemporaryDirectory(prefix="sc-suite-") as scratch:
        verdicts_file = Path(scratch) / "verdicts.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "src/skill_conformance/steps",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.mutants.verdict_dump",
            f"--verdicts-json={verdicts_file}",
            f"--skill-conformance-impl={impl}",
            f"--skill-conformance-scenario-timeout={scenario_timeout:g}",
            "-q",
            "--basetemp",
            str(Path(scratch) / "tmp"),
            *extra,
        ]
        started = time.monotonic()
        completed = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            check=False,
        )
        seconds = time.monotonic() - started
        verdicts = json.loads(verdicts_file.read_text()) if verdicts_file.exists() else {}
    return SuiteRun(
        impl=impl,
        returncode=completed.returncode,
        verdicts=verdicts,
        output=completed.stdout + completed.stderr,
        seconds=seconds,
        scratch=scratch,
    )
