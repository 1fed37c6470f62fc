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
