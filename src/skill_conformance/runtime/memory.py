"""The memory of the implementation under test: a bound that protects the machine, and growth.

An implementation run in the suite's own process that reads without a bound (a ``SKILL.md``
linked to ``/dev/zero``) would grow until the kernel kills a process, maybe another one. Under the
bound (:func:`cap_memory`) its allocation fails with :class:`MemoryError` instead, and the run
goes on. The bound judges nothing: an implementation may catch that error like any other. What a
scenario judges is the growth it observes (:class:`PeakGrowth`), in this process and the
processes below it alike.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["GrowthBound", "MemoryCap", "PeakGrowth", "cap_memory"]

try:
    import resource
except ImportError:  # pragma: no cover - not on POSIX
    resource = None  # type: ignore[assignment]


def _address_space() -> int | None:
    """The process's current virtual size in bytes (Linux), or ``None`` where it cannot be read."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


class MemoryCap:
    """The soft address-space limit set for a run, and the one it replaced."""

    def __init__(self, previous: tuple[int, int] | None) -> None:
        self._previous = previous

    def release(self) -> None:
        """Put the previous limit back."""
        if self._previous is not None and resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, self._previous)
            self._previous = None


def cap_memory(extra_mib: int) -> MemoryCap:
    """Let the process grow by at most ``extra_mib`` MiB beyond its size now (0: no bound)."""
    size = _address_space()
    if extra_mib <= 0 or resource is None or size is None:
        return MemoryCap(None)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + extra_mib * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft <= limit:
        return MemoryCap(None)  # a tighter bound is already set: keep it
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return MemoryCap((soft, hard))


_PROC = Path("/proc")


def _status_kib(pid: int | str, field: str) -> int | None:
    try:
        for line in (_PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _descendants(root: int) -> set[int]:
    """``root`` and every process below it (Linux; ``{root}`` alone where /proc is missing)."""
    parents: dict[int, int] = {}
    for entry in _PROC.glob("[0-9]*"):
        try:
            # The parent's pid is the second field after the command, which is in parentheses.
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in found]
        found.update(children)
        frontier.extend(children)
    return found


class PeakGrowth:
    """How far the resident size rose, at its peak, during a ``with`` block (Linux).

    Measured over this process and every process below it (an implementation behind the
    JSON-lines protocol runs in a child), each from its size when the block began (a process
    started inside the block from nothing): a cap the implementation could catch
    (``MemoryError``) never hides an unbounded read, since what counts is what was taken. The
    kernel keeps each process's peak (``VmHWM``) and lets it be reset to the current size
    (``clear_refs``), so no sampling is needed: a peak reached inside one long C call is seen
    all the same. :attr:`mib` is ``None`` where this process's peak cannot be reset or read.
    """

    def __init__(self) -> None:
        self.mib: float | None = None
        self._start: dict[int, int] = {}

    def __enter__(self) -> PeakGrowth:
        for pid in _descendants(os.getpid()):
            try:
                (_PROC / str(pid) / "clear_refs").write_text("5")
            except OSError:
                continue
            size = _status_kib(pid, "VmRSS")
            if size is not None:
                self._start[pid] = size
        return self

    def __exit__(self, *_: object) -> None:
        if os.getpid() not in self._start:
            return
        grown = 0
        for pid in _descendants(os.getpid()):
            peak = _status_kib(pid, "VmHWM")
            if peak is not None:
                grown += max(0, peak - self._start.get(pid, 0))
        self.mib = grown / 1024


_TOOL_NAME = "skill-conformance memory bound"


class GrowthBound:
    """Within a ``with`` block the process may grow by ``mib`` MiB at most (Linux, POSIX).

    Its address space is capped that much above its size on entry, so an implementation that
    expands without bound meets :class:`MemoryError` there, in whatever C call it is, instead of
    growing for minutes while the suite waits; the previous limit is put back on exit. Where
    ``sys.monitoring`` exists (Python 3.12+), every :class:`MemoryError` that reaches Python code
    meanwhile, in any thread, is counted (:attr:`memory_errors`); one that C code catches (as
    pydantic-core does, printing ``<unprintable ...>``) is not.
    """

    def __init__(self, mib: int) -> None:
        self.mib = mib
        self.memory_errors = 0
        self._previous: tuple[int, int] | None = None
        self._tool: int | None = None

    def __enter__(self) -> GrowthBound:
        size = _address_space()
        if resource is not None and size is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = size + self.mib * 1024 * 1024
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            if soft == resource.RLIM_INFINITY or soft > limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
                self._previous = (soft, hard)
        self._watch()
        return self

    def _watch(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is None:
            return
        tool = next((t for t in range(5, 0, -1) if monitoring.get_tool(t) is None), None)
        if tool is None:
            return
        monitoring.use_tool_id(tool, _TOOL_NAME)
        monitoring.register_callback(tool, monitoring.events.RAISE, self._raised)
        monitoring.set_events(tool, monitoring.events.RAISE)
        self._tool = tool

    def _raised(self, _code: object, _offset: int, exception: BaseException) -> None:
        if isinstance(exception, MemoryError):
            self.memory_errors += 1

    def __exit__(self, *_: object) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if self._tool is not None and monitoring is not None:
            monitoring.set_events(self._tool, 0)
            monitoring.register_callback(self._tool, monitoring.events.RAISE, None)
            monitoring.free_tool_id(self._tool)
            self._tool = None
        if self._previous is not None and resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, self._previous)
            self._previous = None
