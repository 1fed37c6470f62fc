"""The summary says why pytest's closing line counts otherwise, and says nothing when it agrees."""

from __future__ import annotations

from collections import Counter

from skill_conformance.verdicts import Verdict
from skill_conformance.verdicts.reporting import counts_note


def test_no_note_when_pytest_counts_the_scenarios_as_the_summary_does() -> None:
    stats: dict[str, list[object]] = {"failed": [1], "errored": [2, 3], "deselected": [4], "": [5]}
    counts = Counter({Verdict.FAILED: 1, Verdict.ERRORED: 2})
    assert counts_note(stats, counts) == ""


def test_a_scenario_failing_then_erroring_in_teardown_is_explained() -> None:
    stats: dict[str, list[object]] = {"failed": [1], "errored": [1]}
    note = counts_note(stats, Counter({Verdict.ERRORED: 1}))
    assert note.startswith("(pytest's closing line counts reports: 1 failed, 1 errored; ")
    assert "once, with its most severe verdict" in note
