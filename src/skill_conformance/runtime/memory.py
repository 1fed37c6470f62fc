"""A bound on the memory of the suite's process, so that an implementation cannot take the machine.

The implementation under test runs in the suite's own process. One that reads without a bound (a
``SKILL.md`` linked to ``/dev/zero``) would grow until the kernel kills a process, maybe another
one. Under the bound its allocation fails with :class:`MemoryError` instead: a crash of the
implementation, reported as such, and the run goes on.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MemoryCap", "cap_memory"]

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
