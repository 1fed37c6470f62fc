"""The HTML conformance report (``skill-conformance report``): verdicts side by side."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skill_conformance.bundled import spec_digest
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.report.render import Column, render_report
from skill_conformance.verdicts.results import Results, load_results

__all__ = ["Column", "build_report", "columns_of", "render_report"]


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


def build_report(paths: Sequence[Path], specs: Path, labels: Sequence[str] = ()) -> str:
    """The report of the results files ``paths`` against the specs under ``specs``.

    Raises:
        skill_conformance.verdicts.results.ResultsError: A results file cannot be read.
        skill_conformance.gherkin.UsageError: ``specs`` holds no spec.

    """
    runs = [load_results(path) for path in paths]
    catalogue = load_catalogue(specs)
    return render_report(columns_of(runs, labels), catalogue, spec_digest=spec_digest(specs))
