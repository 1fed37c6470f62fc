"""Starting the implementation process so that everything it starts can be found and killed.

The process runs in a session of its own, and its environment carries :data:`MARK_VARIABLE` set
to a value unique to it, which every process it starts inherits. Killing kills its process group
and, where ``/proc`` exists, every process that carries the mark: a grandchild that moved to a
session of its own and was orphaned is found all the same.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import uuid
from collections.abc import Sequence
from pathlib import Path

__all__ = ["MARK_VARIABLE", "kill_tree", "start"]

MARK_VARIABLE = "SKILL_CONFORMANCE_JSONL_PROCESS"
_PROC = Path("/proc")


def start(command: Sequence[str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``command`` with piped stdio, in a new session; return it and its mark."""
    mark = uuid.uuid4().hex
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, MARK_VARIABLE: mark},
    )
    return process, mark


def kill_tree(process: subprocess.Popen[bytes], mark: str) -> None:
    """SIGKILL ``process``, its process group and every process carrying ``mark``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    for pid in marked(mark):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def marked(mark: str) -> list[int]:
    """The live processes whose environment carries ``mark`` (none where ``/proc`` is absent)."""
    needle = f"{MARK_VARIABLE}={mark}\0".encode()
    found = []
    with contextlib.suppress(OSError):
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found
