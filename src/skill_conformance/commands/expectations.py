"""``skill-conformance expectations``: a baseline listing a run's failures."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skill_conformance.commands._status import OK
from skill_conformance.commands._status import error as _error
from skill_conformance.errors import InputError
from skill_conformance.escape.terminal import printable
from skill_conformance.options import writable_file
from skill_conformance.verdicts.baseline import write_baseline
from skill_conformance.verdicts.results import load_results

__all__ = ["add_expectations"]


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
    adapter = printable(f"{results.header.adapter} {results.header.adapter_version}")
    print(
        f"wrote {args.out}: {listed} expected failures of {adapter} "
        f"({len(baseline.added)} new, {len(baseline.kept)} kept, "
        f"{len(baseline.dropped)} dropped as no longer failing)"
    )
    return OK


def add_expectations(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance expectations`` to the command line."""
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
