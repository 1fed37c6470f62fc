"""The commands for reviewers and gates: ``report``, ``trace`` and ``expectations``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from skill_conformance.atomic import write_atomic
from skill_conformance.bundled import features_dir, specs_dir
from skill_conformance.catalogue import load_catalogue, specs_of
from skill_conformance.commands.report import Show, build_report, build_summary
from skill_conformance.commands.trace import (
    check_clauses,
    check_steps,
    coverage_against,
    coverage_lines,
    own_lines,
    requirements_without_scenarios,
)
from skill_conformance.errors import InputError
from skill_conformance.gherkin import UsageError
from skill_conformance.options import OptionError, writable_file
from skill_conformance.verdicts.baseline import write_baseline
from skill_conformance.verdicts.results import load_results

__all__ = ["add_report_commands"]

OK, FOUND, FAILED = 0, 1, 2


def _error(message: str) -> int:
    print(f"skill-conformance: error: {message}", file=sys.stderr)
    return FAILED


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


def _trace(args: argparse.Namespace) -> int:
    """Run ``skill-conformance trace``: exit 1 when a requirement or a step is uncovered."""
    try:
        ours = load_catalogue(Path(args.specs))
        theirs = (
            load_catalogue(specs_of(Path(args.against)), lenient=True) if args.against else None
        )
    except UsageError as error:
        return _error(str(error))
    problems = [str(problem) for problem in ours.problems]
    missing = requirements_without_scenarios(ours)
    clauses = check_clauses(ours)
    steps = None if args.no_steps else check_steps(Path(args.root), args.steps, args.features)
    lines = [f"spec does not parse: {problem}" for problem in problems]
    lines += clauses.lines()
    lines += own_lines(missing, steps)
    if theirs is not None:
        lines.append(f"against {args.against}:")
        lines += coverage_lines(coverage_against(ours, theirs), verbose=args.verbose)
    print("\n".join(lines))
    if theirs is not None and theirs.unreadable:  # its coverage above is incomplete
        for problem in theirs.unreadable:
            _error(f"--against: {problem} (left out of the coverage above)")
        return FAILED
    unchecked = clauses.unchecked and not args.allow_unchecked
    failed = problems or missing or unchecked or clauses.unmarked or clauses.points_without_reason
    return FOUND if failed or (steps is not None and not steps.ok) else OK


def _expectations(args: argparse.Namespace) -> int:
    """Run ``skill-conformance expectations``."""
    try:
        out = writable_file("--out", Path(args.out))
        results = load_results(Path(args.source))
        if results.interrupted:
            return _error(
                f"{args.source}: the run was interrupted ({len(results.scenarios)} scenarios "
                "got a verdict); a baseline needs a complete run"
            )
        baseline = write_baseline(results, out)
    except InputError as error:
        return _error(str(error))
    except OSError as error:
        return _error(f"--out: cannot write {out}: {error.strerror or error}")
    listed = len(baseline.expectations.reasons)
    print(
        f"wrote {args.out}: {listed} expected failures of {results.header.adapter} "
        f"{results.header.adapter_version} ({len(baseline.added)} new, {len(baseline.kept)} "
        f"kept, {len(baseline.dropped)} dropped as no longer failing)"
    )
    return OK


def add_report_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``report``, ``trace`` and ``expectations`` to the command line."""
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

    trace = commands.add_parser(
        "trace",
        help="check that every clause and requirement has a scenario and every step a definition",
        description="List each normative clause of the specs with the scenarios that check it. "
        "Exit 0 when every clause has a scenario (or a stated reason why none can check it), "
        "every SHALL or MUST is inside a clause, every requirement has a scenario and every "
        "step of features/ a definition; 1 when not; 2 on errors. With --against, also list "
        "which scenarios of another OpenSpec tree this suite covers by title (informational).",
    )
    trace.add_argument("--specs", default=str(specs_dir()), metavar="DIR", help="our specs")
    trace.add_argument(
        "--features", default=str(features_dir()), metavar="DIR", help="our features"
    )
    trace.add_argument(
        "--steps",
        default=str(Path(__file__).resolve().parents[1] / "steps"),
        metavar="PATH",
        help="the tests binding the features (default: the suite's own)",
    )
    trace.add_argument("--root", default=".", metavar="DIR", help="where pytest runs (default: .)")
    trace.add_argument("--no-steps", action="store_true", help="skip the step definition check")
    trace.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="list clauses no scenario checks without failing on them",
    )
    trace.add_argument(
        "--against", metavar="DIR", help="another OpenSpec tree (its specs/ if it has one)"
    )
    trace.add_argument("--verbose", action="store_true", help="list covered scenarios too")
    trace.set_defaults(command=_trace)

    expectations = commands.add_parser(
        "expectations",
        help="write an expectations file listing a run's failures, as a baseline",
        description="List every failed, errored or expected-failure scenario of a results file "
        "in an expectations file. An existing file keeps its reasons for scenarios still failing.",
    )
    expectations.add_argument(
        "--from", dest="source", required=True, metavar="RESULTS.json", help="results file"
    )
    expectations.add_argument("--out", required=True, metavar="FILE", help="expectations file")
    expectations.set_defaults(command=_expectations)
