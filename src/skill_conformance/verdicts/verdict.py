"""The verdict of one scenario, kept apart as the best harnesses keep them.

=================  ==========================================================================
verdict            meaning
=================  ==========================================================================
passed             the implementation behaved as the scenario says
failed             it behaved otherwise (an assertion of a step failed)
errored            it crashed, hung, left a process behind, or the suite itself broke
expected-failure   a failure listed in the expectations file, and it still fails
unexpected-pass    a failure listed in the expectations file that now passes (stale entry)
not-applicable     the scenario needs an ability the adapter declared it lacks
cannot-drive       the adapter cannot drive this version of the implementation at all (its
                   entry points are not ones the adapter knows); the same reason for every
                   scenario of the run, which says nothing about the implementation's behaviour
=================  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Verdict"]


@dataclass(frozen=True)
class _Words:
    column: str
    """The summary's column heading."""
    letter: str
    """pytest's progress letter."""
    prose: str
    """The verdict in prose."""
    meaning: str


class Verdict(StrEnum):
    """One scenario's verdict; its value is the word in results files and pytest's closing line.

    Members are in reporting order (results files, the summary's columns).
    """

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    EXPECTED_FAILURE = "expected-failure"
    UNEXPECTED_PASS = "unexpected-pass"
    NOT_APPLICABLE = "not-applicable"
    CANNOT_DRIVE = "cannot-drive"

    @property
    def bad(self) -> bool:
        """Whether this verdict fails the run (a run that could judge nothing fails too)."""
        return self in (
            Verdict.FAILED,
            Verdict.ERRORED,
            Verdict.UNEXPECTED_PASS,
            Verdict.CANNOT_DRIVE,
        )

    @property
    def severity(self) -> int:
        """Rank among the verdicts the phases of one scenario give: the highest one stands."""
        return _SEVERITY.index(self)

    @property
    def column(self) -> str:
        """The heading of this verdict's column in the summary."""
        return _WORDS[self].column

    @property
    def letter(self) -> str:
        """Pytest's progress letter for this verdict."""
        return _WORDS[self].letter

    @property
    def prose(self) -> str:
        """The verdict in prose: ``expected failure``."""
        return _WORDS[self].prose

    @property
    def meaning(self) -> str:
        """What the verdict says about the implementation, in a few words."""
        return _WORDS[self].meaning


_SEVERITY = (
    Verdict.PASSED,
    Verdict.NOT_APPLICABLE,
    Verdict.CANNOT_DRIVE,
    Verdict.EXPECTED_FAILURE,
    Verdict.UNEXPECTED_PASS,
    Verdict.FAILED,
    Verdict.ERRORED,
)
_WORDS = {
    Verdict.PASSED: _Words("pass", ".", "passed", "behaves as the scenario says"),
    Verdict.FAILED: _Words("fail", "F", "failed", "behaves otherwise (a step's assertion failed)"),
    Verdict.ERRORED: _Words("err", "E", "errored", "crashed or hung"),
    Verdict.EXPECTED_FAILURE: _Words(
        "xfail", "x", "expected failure", "a known failure of the expectations file, still failing"
    ),
    Verdict.UNEXPECTED_PASS: _Words(
        "xpass", "X", "unexpected pass", "listed as a known failure, but passes"
    ),
    Verdict.NOT_APPLICABLE: _Words(
        "n/a", "n", "not applicable", "needs an ability the adapter declares it lacks"
    ),
    Verdict.CANNOT_DRIVE: _Words(
        "n/d", "D", "cannot drive", "this version is beyond what the adapter can drive at all"
    ),
}
