"""A bound on the memory of the suite's process, so that an implementation cannot take the machine.

The implementation under test runs in the suite's own process. One that reads without a bound (a
``SKILL.md`` linked to ``/dev/zero``) would grow until the kernel kills a process, maybe another
one. Under the bound its allocation fails with :class:`MemoryError` instead: a crash of the
implementation, reported as such, and the run goes on.
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


_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


class PeakGrowth:
    """How far the process's resident size rose, at its peak, during a ``with`` block (Linux).

    The kernel keeps the peak (``VmHWM``) and lets a process reset it to its current size
    (``clear_refs``), so no sampling is needed: a peak reached inside one long C call, which no
    Python thread could sample, is seen all the same. :attr:`mib` is ``None`` where the peak cannot
    be reset or read.
    """

    def __init__(self) -> None:
        self.mib: float | None = None
        self._start: int | None = None

    def __enter__(self) -> PeakGrowth:
        try:
            _CLEAR_REFS.write_text("5")
        except OSError:
            return self
        self._start = _status_kib("VmRSS")
        return self

    def __exit__(self, *_: object) -> None:
        peak = _status_kib("VmHWM")
        if self._start is not None and peak is not None:
            self.mib = max(0, peak - self._start) / 1024


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
