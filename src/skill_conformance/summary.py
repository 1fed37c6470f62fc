"""The one-screen summary of a run: counts per capability and requirement, then what went wrong.

When every applicable scenario passed, each requirement gets a line. When something failed, the
summary turns compact so it fits a screen: a capability whose requirements are all fine is one
line, only the requirements with a bad verdict are listed, and then each bad scenario, one line
each with its reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from skill_conformance.results import BAD, VERDICTS, ScenarioResult

__all__ = ["format_counts", "summary_lines"]

_COLUMNS = (
    ("passed", "pass"),
    ("failed", "fail"),
    ("errored", "err"),
    ("expected-failure", "xfail"),
    ("unexpected-pass", "xpass"),
    ("not-applicable", "n/a"),
)
_LABELS = {"failed": "FAILED", "errored": "ERRORED", "unexpected-pass": "XPASS"}
_CELL = 6
_MAX_BAD = 25
_BAD_WIDTH = 200
"""A bad scenario's line may be wider than the terminal: its reason is what a reviewer needs."""


def format_counts(counts: Counter[str]) -> str:
    """``"3 passed, 1 failed"``: the non-zero counts in verdict order."""
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def _cells(counts: Counter[str]) -> str:
    return "".join(f"{counts[v] or '.':>{_CELL}}" for v, _ in _COLUMNS)


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(width - 3, 1)] + "..."


def _mark(counts: Counter[str]) -> str:
    return "FAIL" if BAD & counts.keys() else "ok  "


def summary_lines(results: Sequence[ScenarioResult], width: int = 100) -> list[str]:
    """The summary of ``results``, each line at most ``width`` characters."""
    if not results:
        return []
    by_requirement: dict[str, dict[str, Counter[str]]] = {}
    for result in results:
        requirements = by_requirement.setdefault(result.capability, {})
        requirements.setdefault(result.requirement_title, Counter())[result.verdict] += 1
    bad = [result for result in results if result.verdict in BAD]
    heading = "".join(f"{label:>{_CELL}}" for _, label in _COLUMNS)
    lines = [f"{heading}       capability / requirement"]
    for capability, requirements in sorted(by_requirement.items()):
        lines += _capability_lines(capability, requirements, compact=bool(bad))
    total: Counter[str] = Counter(result.verdict for result in results)
    lines.append(f"total: {format_counts(total)}")
    lines = [_fit(line, width) for line in lines]
    return lines + [_fit(line, max(width, _BAD_WIDTH)) for line in _bad_lines(bad)]


def _capability_lines(
    capability: str, requirements: dict[str, Counter[str]], *, compact: bool
) -> list[str]:
    overall = sum(requirements.values(), Counter[str]())
    fine = [title for title, counts in requirements.items() if not BAD & counts.keys()]
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
        f"{_LABELS[r.verdict]:<7} {r.capability} > {r.name}: {r.reason or '(no reason given)'}"
        for r in ordered[:_MAX_BAD]
    ]
    if len(ordered) > _MAX_BAD:
        lines.append(
            f"... and {len(ordered) - _MAX_BAD} more (all are in --conformance-results FILE)"
        )
    return lines
