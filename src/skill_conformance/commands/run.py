"""``skill-conformance run --impl NAME [pytest options]``: the bundled suite, from any directory.

The run is pytest on the suite's own step definitions and features, in a fresh interpreter of
this environment, configured only by the suite's ``suite.ini``: the current directory's
``pytest.ini``, ``pyproject.toml`` or ``conftest.py`` (another project's checkout, say) cannot
change what the suite does, and nothing is written there unless an option asks for it
(``--junitxml=FILE``). The directory stays importable, so ``--impl mypackage.adapter:Impl``
finds an adapter kept in it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_run", "pytest_arguments", "run_suite"]

_PACKAGE = Path(__file__).resolve().parents[1]
_INI = _PACKAGE / "runtime" / "suite.ini"
_TESTS = _PACKAGE / "steps" / "test_conformance.py"


def pytest_arguments(impl: str, extra: Sequence[str]) -> list[str]:
    """The pytest command line of a bundled run against ``impl``, ``extra`` last."""
    return [
        str(_TESTS),
        "-c",
        str(_INI),
        "--rootdir",
        str(_PACKAGE),
        "--noconftest",
        "-p",
        "no:cacheprovider",
        "-p",
        "skill_conformance.runtime.suite",
        "--impl",
        impl,
        *extra,
    ]


def run_suite(impl: str, extra: Sequence[str]) -> int:
    """Run the bundled suite against ``impl`` in a fresh interpreter; pytest's exit status."""
    command = [sys.executable, "-m", "pytest", *pytest_arguments(impl, extra)]
    process = subprocess.Popen(command)
    try:
        return process.wait()
    except KeyboardInterrupt:  # the child got the same Ctrl-C; let it finish its report
        return process.wait()


def _run(args: argparse.Namespace) -> int:
    return run_suite(args.impl, args.pytest_args)


def add_run(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance run``; the options it does not know are given to pytest."""
    parser = commands.add_parser(
        "run",
        allow_abbrev=False,
        help="run the bundled conformance suite against an implementation",
        description=(
            "Run the conformance suite bundled with this installation against --impl, from any "
            "directory. Options after --impl that the command does not know go to pytest "
            "(e.g. --junitxml=FILE, -x, -k EXPR). The exit status is pytest's."
        ),
    )
    parser.add_argument(
        "--impl",
        required=True,
        metavar="NAME",
        help="reference, agentpool, wolfharness, jsonlines, or package.module:Attribute",
    )
    parser.set_defaults(command=_run, pytest_args=[], passes_unknown=True)
