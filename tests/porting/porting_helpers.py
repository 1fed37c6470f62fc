"""Running the conformance suite in a subprocess and reading the verdicts it recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.runtime.profiles import HOST_PROFILE, SERVER_PROFILE
from skill_conformance.runtime.servers import pid_alive

ROOT = Path(__file__).resolve().parents[2]
IMPLS = ROOT / "tests" / "jsonlines_impl"
SCENARIOS = sum(
    f"@profile:{SERVER_PROFILE}" not in entry.scenario.tags
    and f"@profile:{HOST_PROFILE}" not in entry.scenario.tags
    for entry in load_catalogue(specs_dir()).entries()
)
"""How many scenarios a run against a skill system that is no MCP skills host holds: the specs'
but the server profile's and the host profile's."""
HOSTED = {
    entry.name
    for entry in load_catalogue(specs_dir()).entries()
    if f"@profile:{HOST_PROFILE}" in entry.scenario.tags
}
"""The host profile's scenarios (by name): a run holds them only for a declared host."""


def run_suite(
    dump: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """``pytest steps ARGS`` in a fresh interpreter, writing the verdicts to ``dump``."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "src/skill_conformance/steps",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    command += ["-p", "tests.porting.verdict_dump", *args]
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "VERDICT_DUMP": str(dump), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def verdicts(dump: Path) -> dict[str, str]:
    """Test name -> the verdict the suite gave that scenario in the run that wrote ``dump``."""
    found: dict[str, str] = json.loads(dump.read_text())
    return found


def jsonl_command(script: str, *args: str) -> str:
    """The SKILL_CONFORMANCE_JSONL_CMD value running ``script`` of tests/jsonlines_impl."""
    import shlex

    return shlex.join([sys.executable, str(IMPLS / script), *args])


def faulty(*args: str) -> list[str]:
    """The command of the faulty JSON-lines implementation, misbehaving as ``args`` say."""
    return [sys.executable, str(IMPLS / "faulty.py"), *args]


def pids_in(path: Path) -> list[int]:
    """The pids a faulty implementation wrote to ``path``, one a line (none if absent)."""
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def still_alive(pids: list[int], within: float) -> list[int]:
    """Those of ``pids`` still alive after waiting up to ``within`` seconds for them to go."""
    deadline = time.monotonic() + within
    alive = [pid for pid in pids if pid_alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if pid_alive(pid)]
    return alive
