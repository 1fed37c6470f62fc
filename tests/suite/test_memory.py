"""The peak growth of the process's memory, as the alias-expansion scenarios observe it."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_conformance.runtime.memory import PeakGrowth

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
