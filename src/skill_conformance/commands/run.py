"""``skill-conformance run --impl NAME [options] [pytest options]``: the bundled suite, anywhere.

The command becomes pytest (it replaces its own process, so a signal sent to it reaches pytest)
on the suite's step definitions and features, configured only by the suite's ``suite.ini``: the
current directory's ``pytest.ini``, ``pyproject.toml`` or ``conftest.py`` (another project's
checkout, say) cannot change what the suite does. The directory stays importable, so
``--impl mypackage.adapter:Impl`` finds an adapter kept in it, but last on the path: a module or
package there that bears the name of one the suite uses (a ``yaml.py``, an ``mcp/`` folder)
cannot take its place. pytest's cache (for ``--lf``) is kept per implementation in the user's
cache directory, not in the current one.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_conformance.runtime.options import (
    IMPL,
    OPTIONS,
    RESULTS,
    SCENARIOS,
    SERVER,
    TRACEBACK,
    SuiteOption,
)

__all__ = ["add_run", "pytest_arguments", "run_suite"]

_PACKAGE = SCENARIOS.parents[1]
_INI = _PACKAGE / "runtime" / "suite.ini"


def _cache_dir(impl: str) -> Path | None:
    """Where pytest keeps its cache for runs against ``impl``; ``None`` if it cannot be written."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    name = hashlib.sha256(impl.encode()).hexdigest()[:16]
    folder = base / "skill-conformance" / "pytest" / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


def pytest_arguments(suite: dict[str, object], extra: Sequence[str]) -> list[str]:
    """The pytest command line of a bundled run: ``suite`` options by ``dest``, ``extra`` last."""
    impl = str(suite[IMPL.dest])
    cache = _cache_dir(impl)
    arguments = [
        str(SCENARIOS),
        "-c",
        str(_INI),
        "--rootdir",
        str(_PACKAGE),
        "--noconftest",
        *(["-p", "no:cacheprovider"] if cache is None else ["-o", f"cache_dir={cache}"]),
    ]
    for option in OPTIONS:
        arguments += option.pytest_arguments(suite.get(option.dest))
    return [*arguments, *extra]


_PYTEST_MAIN = (
    "import os, runpy, sys; sys.path.append(os.getcwd()); "
    "runpy.run_module('pytest', run_name='__main__', alter_sys=True)"
)
"""``python -m pytest`` with the working directory last on the path instead of first (``-P``)."""


def run_suite(suite: dict[str, object], extra: Sequence[str]) -> int:
    """Become pytest running the bundled suite (where exec exists); else pytest's exit status."""
    command = [sys.executable, "-P", "-c", _PYTEST_MAIN, *pytest_arguments(suite, extra)]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(sys.executable, command)
    process = subprocess.Popen(command)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:  # the child got the same Ctrl-C, each time; it ends the run
            continue


def _run(args: argparse.Namespace) -> int:
    suite = {option.dest: getattr(args, option.dest) for option in OPTIONS}
    if suite[IMPL.dest] is None and suite[SERVER.dest] is None:
        print(
            "skill-conformance run: error: --impl NAME or --server ENTRY is required",
            file=sys.stderr,
        )
        return 2
    return run_suite(suite, args.pytest_args)


def add_run(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance run``; the options it does not know are given to pytest."""
    parser = commands.add_parser(
        "run",
        allow_abbrev=False,
        help="run the bundled conformance suite against an implementation",
        description=(
            "Run the conformance suite bundled with this installation against --impl, from any "
            "directory. Every other option goes to pytest: -k EXPR and -m EXPR select scenarios "
            "(by capability, requirement, clause, scenario id or needed ability, e.g. "
            "-m 'needs:mcp', -k skill-tools), -x stops at the first failure, --lf reruns the "
            "last run's failures, --junitxml=FILE writes JUnit XML (pytest --help lists them "
            "all). The exit status is pytest's. In pytest itself the options below are spelt "
            "--skill-conformance-NAME."
        ),
    )
    for option in OPTIONS:
        if option.flag:
            parser.add_argument(
                option.run_flag, dest=option.dest, action="store_true", help=option.help
            )
        else:
            parser.add_argument(
                option.run_flag,
                dest=option.dest,
                metavar=option.metavar,
                help=option.help,
            )
    for old, new in _FORMER_NAMES.items():  # as earlier versions spelt them
        parser.add_argument(old, dest=new.dest, action=_action(new), help=argparse.SUPPRESS)
    parser.set_defaults(command=_run, pytest_args=[], passes_unknown=True)


def _action(option: SuiteOption) -> str:
    return "store_true" if option.flag else "store"


_FORMER_NAMES = {"--conformance-results": RESULTS, "--scenario-traceback": TRACEBACK}
