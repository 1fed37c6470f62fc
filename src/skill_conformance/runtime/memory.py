"""A bound on the memory of the suite's process, so that an implementation cannot take the machine.

The implementation under test runs in the suite's own process. One that reads without a bound (a
``SKILL.md`` linked to ``/dev/zero``) would grow until the kernel kills a process, maybe another
one. Under the bound its allocation fails with :class:`MemoryError` instead: a crash of the
implementation, reported as such, and the run goes on.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MemoryCap", "PeakGrowth", "cap_memory"]

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
