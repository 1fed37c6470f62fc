"""A failure shows a bounded excerpt of what a call returned, however large the returned text."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import ErrorKind
from skill_conformance.runtime.context import SHOWN_TEXT, Outcome, ScenarioContext
from skill_conformance.runtime.world import World
from skill_conformance.verdicts import Mismatch


def _failure_of(tmp_path: Path, value: object) -> Mismatch:
    context = ScenarioContext(ReferenceImplementation(), World(tmp_path), timeout=30, needs=None)
    try:
        context.outcome = Outcome(value=value)
        with pytest.raises(Mismatch) as raised:
            context.expect_error(ErrorKind.NOT_FOUND)
        return raised.value
    finally:
        context.close()


def test_an_oversized_returned_text_is_cut_and_its_length_named(tmp_path: Path) -> None:
    failure = _failure_of(tmp_path, "\x00" * (8 * SHOWN_TEXT))
    assert len(failure.observed) < 5 * SHOWN_TEXT  # a NUL shows as 4 characters
    assert failure.observed.endswith(f"... ({8 * SHOWN_TEXT:,} characters in all)")


def test_a_short_returned_text_is_shown_whole(tmp_path: Path) -> None:
    assert _failure_of(tmp_path, "text").observed == "it returned 'text'"
