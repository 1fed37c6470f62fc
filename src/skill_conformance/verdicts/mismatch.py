"""What a ``Then`` step raises when the implementation behaved otherwise: expected and observed.

Steps check with :func:`expect`, which raises :class:`Mismatch`; the failure block of the run
shows its three parts whole, one per line, and the results file keeps them on one line. Expected
and observed are written by the step, values in ``repr``: ``expected=f"the tool {tool!r}"``.
"""

from __future__ import annotations

from skill_conformance.errors import ConformanceError

__all__ = ["Mismatch", "expect"]


class Mismatch(ConformanceError, AssertionError):
    """The implementation behaved otherwise than the scenario says; a failed verdict."""

    def __init__(self, what: str, *, expected: str, observed: str) -> None:
        self.what = what
        self.expected = expected
        self.observed = observed
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """What went wrong, then ``expected: ...`` and ``observed: ...``, each whole."""
        return [self.what, f"  expected: {self.expected}", f"  observed: {self.observed}"]

    def one_line(self) -> str:
        """The three parts on one line, for results files and the summary."""
        return f"{self.what}; expected {self.expected}, observed {self.observed}"


def expect(holds: bool, what: str, *, expected: str, observed: str) -> None:
    """Raise :class:`Mismatch` naming ``what``, ``expected`` and ``observed`` unless ``holds``."""
    if not holds:
        raise Mismatch(what, expected=expected, observed=observed)
