"""Starting the implementation process so that everything it starts can be found and killed.

The process runs in a session of its own, and its environment carries :data:`MARK_VARIABLE` set
to a value unique to it, which every process it starts inherits. Killing kills its process group
and, where ``/proc`` exists, every process that carries the mark: a grandchild that moved to a
session of its own and was orphaned is found all the same.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["MARK_VARIABLE", "kill_tree", "start"]

MARK_VARIABLE = "SKILL_CONFORMANCE_JSONL_PROCESS"
_PROC = Path("/proc")


@contextlib.contextmanager
def _uncapped() -> Iterator[None]:
    """While inside, this process's soft address-space limit is its hard one.

    A process started inside inherits no cap of the suite's own: an implementation in a
    process of its own is judged by the growth the scenarios observe (``PeakGrowth`` of
    ``skill_conformance.runtime.memory``), and a runtime that reserves more address space than
    it uses (Node's) runs as it would anywhere else.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == hard:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def start(command: Sequence[str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``command`` with piped stdio, in a new session, without the suite's memory cap.

    Returns the process and its mark.
    """
    mark = uuid.uuid4().hex
    with _uncapped():  # the suite's own address-space cap is not the implementation's
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
