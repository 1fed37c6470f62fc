"""Child processes that cannot outlive the command that started them: each leads its own group.

A build tool's children (uv's resolver, a build backend, git's helpers) are not stopped when
only the tool is: each command here starts in a new process group, and the whole group is killed
when the command ends, times out or is interrupted (Ctrl-C, SIGTERM), before the interrupt goes on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["kill_group", "run_in_group", "stop_group"]


def kill_group(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """SIGKILL every process of ``process``'s group, then reap ``process`` (uninterrupted)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    _reap(process, None)


def stop_group(process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float) -> None:
    """SIGTERM ``process``'s group; SIGKILL it after ``grace`` s (at once on another interrupt)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired, KeyboardInterrupt):
        process.wait(grace)
    kill_group(process)


def _reap(process: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float | None) -> None:
    while True:
        try:
            process.wait(timeout)
            return
        except KeyboardInterrupt:  # the group is being killed: waiting for it is quick
            continue


def run_in_group(
    command: Sequence[str],
    *,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True)`` in a group of its own.

    The group is killed once the command ends (helpers it left behind included), on the timeout
    (``subprocess.TimeoutExpired`` is raised, as by :func:`subprocess.run`) or on an interrupt.
    """
    process = subprocess.Popen(
        list(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=None if env is None else dict(env),
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        kill_group(process)
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)
