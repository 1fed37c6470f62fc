"""Seeing at once that an implementation waits on a scenario's hostile fixture (Linux).

A thread that opens a named pipe for reading sleeps until a writer comes, and the world's pipes
never get one; a tool module that never finishes importing never returns. The suite used to learn
of either only when the scenario's bound (30 s) ran out. Here it looks: the kernel says where each
thread of a process sleeps (``/proc/PID/task/TID/wchan``: ``wait_for_partner`` in the open of a
pipe, ``pipe_read`` in a read) and which system call it is in, with its arguments (``.../syscall``),
from which the pipe's path is read (the path argument in the process's memory, or the file
descriptor's link). The pipes of this process and of its children are looked at, so an
implementation running in a process of its own is seen too. Where ``/proc`` cannot tell (another
system, a process one may not read), nothing is seen and the bound applies as before.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType

__all__ = ["blocked_pipe", "processes", "running_in"]

_SLEEPS = frozenset(
    {"wait_for_partner", "pipe_read", "anon_pipe_read", "pipe_wait", "pipe_read_wait"}
)
"""Where a thread sleeps in the kernel when it waits to open or to read a pipe."""

_OPENS: Mapping[str, Mapping[int, int]] = {
    # system call number -> index of the path argument
    "x86_64": {2: 0, 257: 1, 437: 1},  # open, openat, openat2
    "aarch64": {56: 1, 437: 1},  # openat, openat2
}
_READS: Mapping[str, frozenset[int]] = {
    # system calls whose first argument is the file descriptor read
    "x86_64": frozenset({0, 17, 19, 295}),  # read, pread64, readv, preadv
    "aarch64": frozenset({63, 65, 67, 69}),  # read, readv, pread64, preadv
}
_AT_FDCWD = -100


def processes(root: int) -> Iterator[int]:
    """``root`` and its descendants (``/proc/PID/task/TID/children``)."""
    seen, pending = set(), [root]
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        yield pid
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            except OSError:
                continue
            pending.extend(int(child) for child in children)


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _string_at(pid: int, address: int) -> str | None:
    """The NUL-terminated path at ``address`` in the memory of process ``pid``."""
    try:
        descriptor = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.pread(descriptor, 4096, address)
    except (OSError, OverflowError, ValueError):
        return None
    finally:
        os.close(descriptor)
    end = data.find(b"\0")
    return os.fsdecode(data[:end]) if end >= 0 else None


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _waited_path(pid: int, syscall: list[str]) -> str | None:
    """The path of the pipe a thread in ``syscall`` waits on, if it can be told."""
    machine = platform.machine()
    try:
        number, args = int(syscall[0]), [int(arg, 16) for arg in syscall[1:7]]
    except (ValueError, IndexError):
        return None
    if number in _READS.get(machine, frozenset()):
        return _link(f"/proc/{pid}/fd/{args[0]}")
    where = _OPENS.get(machine, {}).get(number)
    if where is None:
        return None
    path = _string_at(pid, args[where])
    if path is None or os.path.isabs(path):
        return path
    directory_fd = args[0] - (1 << 64) if args[0] >= 1 << 63 else args[0]
    if where == 0 or directory_fd == _AT_FDCWD or directory_fd == _AT_FDCWD + (1 << 32):
        base = _link(f"/proc/{pid}/cwd")
    else:
        base = _link(f"/proc/{pid}/fd/{directory_fd}")
    return os.path.join(base, path) if base else None


def blocked_pipe(pipes: Mapping[Path, str], root: int | None = None) -> str | None:
    """What ``pipes`` names for the pipe a thread of ``root`` (this process) or a child waits on.

    ``pipes`` maps each pipe's path to what to call it. ``None`` when no thread is seen waiting on
    one of them.
    """
    if not pipes or not sys.platform.startswith("linux"):
        return None
    wanted = {os.path.normpath(path): name for path, name in pipes.items()}
    for pid in processes(os.getpid() if root is None else root):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            if _read(f"/proc/{pid}/task/{task}/wchan") not in _SLEEPS:
                continue
            path = _waited_path(pid, _read(f"/proc/{pid}/task/{task}/syscall").split())
            if path is not None and os.path.normpath(path) in wanted:
                return wanted[os.path.normpath(path)]
    return None


def running_in(thread_id: int, files: Mapping[str, str]) -> str | None:
    """What ``files`` names for a source file the Python thread ``thread_id`` is running, if any.

    Seen in this process only: a thread's frames, innermost first.
    """
    frame: FrameType | None = sys._current_frames().get(thread_id)
    while frame is not None:
        name = files.get(frame.f_code.co_filename)
        if name is not None:
            return name
        frame = frame.f_back
    return None
