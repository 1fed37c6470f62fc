"""The peak growth of the memory and its bound, as the alias-expansion scenarios use them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skill_conformance.runtime.memory import GrowthBound, PeakGrowth

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="needs Linux's clear_refs"
)


def test_a_peak_inside_one_call_is_seen_after_it_is_freed() -> None:
    with PeakGrowth() as growth:
        len(b"x" * (300 * 1024 * 1024))  # one C call; freed before the block ends
    assert growth.mib is not None
    assert growth.mib >= 250


def test_an_earlier_peak_does_not_hide_a_later_one() -> None:
    len(b"x" * (400 * 1024 * 1024))
    with PeakGrowth() as quiet:
        pass
    with PeakGrowth() as growth:
        len(b"x" * (200 * 1024 * 1024))
    assert quiet.mib is not None
    assert quiet.mib < 50
    assert growth.mib is not None
    assert growth.mib >= 150


def test_a_bound_on_growth_stops_an_expansion_at_once_and_is_lifted_after() -> None:
    resource = pytest.importorskip("resource")
    before = resource.getrlimit(resource.RLIMIT_AS)
    expansion = [["x"] * 1000] * 100_000  # 10^8 values, about 500 MB as text
    with PeakGrowth() as growth, GrowthBound(64) as bound, pytest.raises(MemoryError):
        repr(expansion)
    assert growth.mib is not None
    assert growth.mib < 250  # stopped near the bound (64 MiB more), far short of the whole text
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert len(b"x" * (200 * 1024 * 1024)) > 0  # the bound is gone
    if hasattr(sys, "monitoring"):  # the MemoryError reached Python code: it was counted
        assert bound.memory_errors >= 1


def test_a_child_process_growing_is_seen() -> None:
    """An implementation behind the JSON-lines protocol runs in a child: its growth counts."""
    import subprocess
    import sys

    grow = (
        "import sys; sys.stdin.readline(); b = b'x' * (300 * 1024 * 1024); "
        "sys.stdout.write('grown'); sys.stdout.flush(); sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", grow], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None
    assert child.stdout is not None
    try:
        with PeakGrowth() as growth:
            child.stdin.write(b"go\n")
            child.stdin.flush()
            assert child.stdout.read(5) == b"grown"
    finally:
        child.communicate(b"")
    assert growth.mib is not None
    assert growth.mib >= 250


def test_growth_stopped_by_a_memory_error_still_counts() -> None:
    """A cap the implementation can catch hides nothing: what was taken before it counts."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    size = int(Path("/proc/self/statm").read_text().split()[0]) * 4096
    resource.setrlimit(resource.RLIMIT_AS, (size + 400 * 1024 * 1024, hard))
    try:
        with PeakGrowth() as growth:
            chunks = []
            try:
                while True:
                    chunks.append(b"x" * (50 * 1024 * 1024))
            except MemoryError:
                chunks.clear()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert growth.mib is not None
    assert growth.mib >= 250


def test_a_jsonlines_process_inherits_not_the_suites_cap() -> None:
    """The suite's own cap would kill a runtime reserving address space (Node), silently."""
    import resource

    from skill_conformance.adapters.jsonlines.processes import kill_tree, start

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, hard))
    try:
        process, mark = start(["sh", "-c", "ulimit -Sv"])
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    try:
        out, _ = process.communicate(timeout=10)
    finally:
        kill_tree(process, mark)
    expected = "unlimited" if hard == resource.RLIM_INFINITY else str(hard // 1024)
    assert out.decode().strip() == expected
    assert resource.getrlimit(resource.RLIMIT_AS) == (soft, hard)
