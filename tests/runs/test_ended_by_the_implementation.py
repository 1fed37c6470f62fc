"""A run the implementation ends itself (``os._exit``) leaves no process of the suite behind.

The implementation forks a helper first: a copy of the run's process, holding every descriptor
it had, the zygote's lifeline included. The helper is the implementation's (the suite neither
waits for nor stops it, as with ``ForksHelper``); the zygote and its servers are the suite's, and
must stop once the run's process is gone, lifeline held or not.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.signals.processes import processes_with

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

ROOT = Path(__file__).resolve().parents[2]


def test_a_run_ended_by_os_exit_after_a_fork_leaves_only_the_implementations_helper(
    tmp_path: Path,
) -> None:
    marker = uuid.uuid4().hex
    helpers = tmp_path / "helpers"
    env = {**os.environ, "SC_HELPER_PIDS": str(helpers), "SC_ENDED_TEST": marker}
    command = [
        sys.executable, "-m", "skill_conformance", "run",
        "--impl", "tests.misbehaving.adapters:ForksThenEnds", "-q", "-p", "no:randomly",
        "-k", "list_skills", f"--basetemp={tmp_path / 'base'}",
    ]  # fmt: skip
    log = tmp_path / "log"
    with log.open("wb") as sink:  # not a pipe: the helper holds it for ten minutes
        status = subprocess.run(
            command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=300
        ).returncode
    mine = {int(pid) for pid in helpers.read_text().split()}
    try:
        assert status == 3, log.read_text()[-3000:]
        deadline = time.monotonic() + 30  # the zygote may still be importing the MCP SDK
        while left := [p for p in processes_with(marker) if int(p.split(":")[0]) not in mine]:
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert left == []
    finally:
        for line in processes_with(marker):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
