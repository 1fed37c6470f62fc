"""The one-screen summary of a run: counts per capability and requirement, then what went wrong.

When every applicable scenario passed, each requirement gets a line. When something failed, the
summary turns compact so it fits a screen: a capability whose requirements are all fine is one
line, only the requirements with a bad verdict are listed, and then each bad scenario, one line
each with its whole reason (the terminal wraps it; a value is never cut).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from skill_conformance.escape.terminal import printable
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["format_counts", "summary_lines"]

_LABELS = {Verdict.FAILED: "FAILED", Verdict.ERRORED: "ERRORED", Verdict.UNEXPECTED_PASS: "XPASS"}
_CELL = 6
_MAX_BAD = 25
_COLUMNS = tuple(verdict for verdict in Verdict if verdict is not Verdict.CANNOT_DRIVE)
"""The table's columns; a run the adapter cannot drive gets one line instead of a table."""


def format_counts(counts: Counter[Verdict]) -> str:
    """``"3 passed, 1 failed"``: the non-zero counts in verdict order."""
    return ", ".join(f"{counts[v]} {v}" for v in Verdict if counts[v])


def _cells(counts: Counter[Verdict]) -> str:
    return "".join(f"{counts[v] or '.':>{_CELL}}" for v in _COLUMNS)


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(width - 3, 1)] + "..."


def _is_bad(counts: Counter[Verdict]) -> bool:
    return any(verdict.bad for verdict in counts)


def _mark(counts: Counter[Verdict]) -> str:
    return "FAIL" if _is_bad(counts) else "ok  "


def summary_lines(results: Sequence[ScenarioResult], width: int = 100) -> list[str]:
    """The summary of ``results``: the table fitted to ``width``, then the bad scenarios whole."""
    if not results:
        return []
    undriven = sorted({r.reason for r in results if r.verdict is Verdict.CANNOT_DRIVE})
    if undriven:
        return [
            f"cannot drive: {printable(reason)} ({len(results)} scenarios not run)"
            for reason in undriven
        ]
    by_requirement: dict[str, dict[str, Counter[Verdict]]] = {}
    for result in results:
        requirements = by_requirement.setdefault(result.capability, {})
        requirements.setdefault(result.requirement_title, Counter())[result.verdict] += 1
    bad = [result for result in results if result.verdict.bad]
    heading = "".join(f"{verdict.column:>{_CELL}}" for verdict in _COLUMNS)
    lines = [f"{heading}       capability / requirement"]
    for capability, requirements in sorted(by_requirement.items()):
        lines += _capability_lines(capability, requirements, compact=bool(bad))
    total: Counter[Verdict] = Counter(result.verdict for result in results)
    lines.append(f"total: {format_counts(total)}")
    return [_fit(printable(line), width) for line in lines] + _bad_lines(bad)


def _capability_lines(
    capability: str, requirements: dict[str, Counter[Verdict]], *, compact: bool
) -> list[str]:
    overall = sum(requirements.values(), Counter[Verdict]())
    fine = [title for title, counts in requirements.items() if not _is_bad(counts)]
    if compact and len(fine) == len(requirements):
        note = f"  ({_requirements(len(fine))}, all ok)"
        return [f"{_cells(overall)}  {_mark(overall)} {capability}{note}"]
    lines = [f"{_cells(overall)}  {_mark(overall)} {capability}"]
    for title, counts in sorted(requirements.items()):
        if compact and title in fine:
            continue
        lines.append(f"{_cells(counts)}  {_mark(counts)}   {title}")
    if compact and fine:
        lines.append(f"{'':>{_CELL * len(_COLUMNS)}}         + {_requirements(len(fine))} ok")
    return lines


def _requirements(count: int) -> str:
    return f"{count} requirement" if count == 1 else f"{count} requirements"


def _bad_lines(bad: Iterable[ScenarioResult]) -> list[str]:
    ordered = sorted(bad, key=lambda r: (r.capability, r.requirement_title, r.name))
    lines = [
        printable(
            f"{_LABELS[r.verdict]:<7} {r.capability} > {r.name}: {r.reason or '(no reason given)'}"
        )
        for r in ordered[:_MAX_BAD]
    ]
    if len(ordered) > _MAX_BAD:
        lines.append(
            f"... and {len(ordered) - _MAX_BAD} more (all are in --skill-conformance-results FILE)"
        )
    return lines
