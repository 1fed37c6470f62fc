"""The conformance report (``skill-conformance report``): verdicts side by side.

One HTML page, or a Markdown summary for a CI job page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skill_conformance.bundled import spec_digest
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.report._render import Column, render_report
from skill_conformance.commands.report._summary import ROW_LIMIT, Show, render_markdown
from skill_conformance.verdicts.results import Results, load_results

__all__ = [
    "ROW_LIMIT",
    "Column",
    "Show",
    "build_report",
    "build_summary",
    "columns_of",
    "render_markdown",
    "render_report",
]


def columns_of(runs: Sequence[Results], labels: Sequence[str] = ()) -> list[Column]:
    """One column per run, labelled by ``labels`` or else by adapter name and version."""
    columns = []
    used: set[str] = set()
    for index, results in enumerate(runs):
        base = (
            labels[index]
            if index < len(labels)
            else f"{results.header.adapter} {results.header.adapter_version}"
        )
        label, number = base, 2
        while label in used:
            label, number = f"{base} ({number})", number + 1
        used.add(label)
        columns.append(Column(label, results))
    return columns


def build_report(
    paths: Sequence[Path], specs: Path, labels: Sequence[str] = (), *, failing_only: bool = False
) -> str:
    """The HTML report of the results files ``paths`` against the specs under ``specs``.

    Raises:
        skill_conformance.verdicts.results.ResultsError: A results file cannot be read.
        skill_conformance.gherkin.UsageError: ``specs`` holds no spec.

    """
    runs = [load_results(path) for path in paths]
    catalogue = load_catalogue(specs)
    return render_report(
        columns_of(runs, labels),
        catalogue,
        spec_digest=spec_digest(specs),
        failing_only=failing_only,
    )


def build_summary(
    paths: Sequence[Path],
    labels: Sequence[str] = (),
    *,
    show: Show = Show.FAILURES,
    report_url: str = "",
) -> str:
    """The Markdown summary of the results files ``paths``.

    Raises:
        skill_conformance.verdicts.results.ResultsError: A results file cannot be read.

    """
    runs = [load_results(path) for path in paths]
    return render_markdown(columns_of(runs, labels), show=show, report_url=report_url)
