"""The report as a Markdown summary for a CI job page (``report --format markdown``).

Counts per run first, then, per run, the scenarios that break its gate, open, and its known
failures folded; ``--show all`` adds every scenario, folded. Scenario names are the report's, and
each row names the scenario's key, the anchor of its row in the HTML report.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from urllib.parse import quote

from skill_conformance.commands.report._render import Column, scenario_anchor
from skill_conformance.escape.markdown import cell, folded, in_html, table
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["ROW_LIMIT", "Show", "render_markdown"]

_URL_SAFE = ":/?#[]@!$&'*+,;=%~"
"""What a URL given as ``--report-url`` keeps as it is; the rest (spaces, ``<>()``) is quoted."""

ROW_LIMIT = 200
"""Scenarios listed per table; the rest are counted (a job summary holds at most 1 MiB)."""


class Show(StrEnum):
    """Which scenarios the summary lists."""

    FAILURES = "failures"
    """Those that break the gate, and the known failures, folded."""
    ALL = "all"
    """Those, and every scenario, folded."""


def render_markdown(
    columns: Sequence[Column], *, show: Show = Show.FAILURES, report_url: str = ""
) -> str:
    """The summary of the runs in ``columns``, as GitHub-flavoured Markdown.

    Args:
        columns: One column per results file, as the HTML report has them.
        show: Which scenarios to list.
        report_url: Where the HTML report is published; each listed scenario then links to its
            row there.

    """
    failing = [c for c in columns if _gate_fails(c)]
    if not failing:
        title = "✅ skill-conformance: the gate passes"
    elif len(columns) == 1:
        title = "❌ skill-conformance: the gate fails"
    else:
        title = f"❌ skill-conformance: {len(failing)} of {len(columns)} runs fail the gate"
    lines = [f"### {title}", "", *_counts(columns)]
    for column in columns:
        lines += _run(column, show, report_url)
    return "\n".join(lines) + "\n"


def _gate_fails(column: Column) -> bool:
    results = column.results
    return results.interrupted or results.exit_status != 0


def _counts(columns: Sequence[Column]) -> list[str]:
    present = [v for v in Verdict if any(c.results.counts()[v] for c in columns)]
    headings = ["implementation", "exit status", *(v.prose for v in present)]
    rows = []
    for column in columns:
        results = column.results
        status = "?" if results.exit_status is None else str(results.exit_status)
        mark = "❌" if _gate_fails(column) else "✅"
        if results.interrupted:
            status += " (interrupted: partial run)"
        counts = results.counts()
        rows.append([cell(column.label), f"{mark} {status}", *(str(counts[v]) for v in present)])
    return table(headings, rows, numeric=len(present))


def _run(column: Column, show: Show, report_url: str) -> list[str]:
    scenarios = column.results.scenarios
    bad = [r for r in scenarios if r.verdict.bad]
    known = [r for r in scenarios if r.verdict is Verdict.EXPECTED_FAILURE]
    lines: list[str] = []
    if bad:
        lines += ["", f"#### {cell(column.label)}: {len(bad)} breaking the gate", ""]
        lines += _scenarios(bad, report_url)
    if known:
        title = f"{in_html(column.label)}: {len(known)} known failures (expectations file)"
        lines += ["", *folded(title, _scenarios(known, report_url))]
    if show is Show.ALL:
        title = f"{in_html(column.label)}: every scenario ({len(scenarios)})"
        lines += ["", *folded(title, _scenarios(scenarios, report_url))]
    return lines


def _scenarios(results: Sequence[ScenarioResult], report_url: str) -> list[str]:
    rows = []
    for result in results[:ROW_LIMIT]:
        name = cell(result.name)
        if report_url:
            anchor = quote(scenario_anchor(result.key), safe="/")
            name = f"[{name}]({quote(report_url, safe=_URL_SAFE)}#{anchor})"
        why = result.reason
        if result.raw is not None and result.observed:
            why = f"{why} (observed: {result.observed})"
        rows.append([cell(result.capability), name, result.verdict.prose, cell(why)])
    lines = table(["capability", "scenario", "verdict", "why"], rows)
    if len(results) > ROW_LIMIT:
        lines += ["", f"… and {len(results) - ROW_LIMIT} more (the results file has them all)"]
    return lines
