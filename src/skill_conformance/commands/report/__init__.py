"""The conformance report (``skill-conformance report``): verdicts side by side.

One HTML page, or a Markdown summary for a CI job page.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_conformance.atomic import write_atomic
from skill_conformance.bundled import spec_digest, specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands._status import OK
from skill_conformance.commands._status import error as _error
from skill_conformance.commands.report._render import Column, render_report
from skill_conformance.commands.report._summary import ROW_LIMIT, Show, render_markdown
from skill_conformance.errors import InputError
from skill_conformance.options import OptionError, writable_file
from skill_conformance.verdicts.results import Results, load_results

__all__ = [
    "ROW_LIMIT",
    "Column",
    "Show",
    "add_report",
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


def _report(args: argparse.Namespace) -> int:
    """Run ``skill-conformance report``."""
    paths = [Path(p) for p in args.results]
    default = Show.FAILURES if args.format == "markdown" else Show.ALL
    show = Show(args.show) if args.show else default
    try:
        if args.format == "markdown":
            out = writable_file("--out", Path(args.out)) if args.out else None
            text = build_summary(paths, args.label, show=show, report_url=args.report_url)
        else:
            if not args.out:
                return _error("--out: the HTML report needs a file to go to")
            out = writable_file("--out", Path(args.out))
            failing_only = show is Show.FAILURES
            text = build_report(paths, Path(args.specs), args.label, failing_only=failing_only)
        if out is None:
            sys.stdout.write(text)
            return OK
        _write(out, text)
    except InputError as error:
        return _error(str(error))
    print(f"wrote {out} ({len(args.results)} results file(s))")
    return OK


def _write(out: Path, text: str) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text.encode("utf-8"))
    except OSError as error:
        raise OptionError(f"--out: cannot write {out}: {error.strerror or error}") from None


def add_report(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance report`` to the command line."""
    report = commands.add_parser(
        "report",
        help="render the verdicts of results files: an HTML page, or a Markdown summary",
        description="Render the verdicts of one or more results files (--results) side by "
        "side: a self-contained HTML page, requirement by requirement with each scenario's "
        "steps, or a Markdown summary for a CI job page (--format markdown). Exit 0, or 2 on "
        "errors.",
    )
    report.add_argument("results", nargs="+", metavar="RESULTS.json", help="results files")
    report.add_argument(
        "--out",
        metavar="FILE",
        help="the file to write (required for HTML; Markdown goes to standard output without it)",
    )
    report.add_argument(
        "--format",
        choices=("html", "markdown"),
        default="html",
        help="html (default): one page; markdown: a summary for a CI job page or a comment",
    )
    report.add_argument(
        "--show",
        choices=[s.value for s in Show],
        default=None,
        help="failures: only the scenarios that did not pass (the Markdown default; the HTML "
        "page opens filtered so); all: every scenario (the HTML default; in Markdown, folded)",
    )
    report.add_argument(
        "--report-url",
        default="",
        metavar="URL",
        help="where the HTML report is published: the Markdown summary links each scenario there",
    )
    report.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="TEXT",
        help="column heading of the next results file, in order (default: adapter and version)",
    )
    report.add_argument(
        "--specs", default=str(specs_dir()), metavar="DIR", help="specs the scenario text is from"
    )
    report.set_defaults(command=_report)
