"""``skill-conformance run --impl NAME [options] [pytest options]``: the bundled suite, anywhere.

The command becomes pytest (it replaces its own process, so a signal sent to it reaches pytest)
on the suite's step definitions and features, configured only by the suite's ``suite.ini``: the
current directory's ``pytest.ini``, ``pyproject.toml`` or ``conftest.py`` (another project's
checkout, say) cannot change what the suite does. The directory stays importable, so
``--impl mypackage.adapter:Impl`` finds an adapter kept in it, but last on the path: a module or
package there that bears the name of one the suite uses (a ``yaml.py``, an ``mcp/`` folder)
cannot take its place. pytest's cache (for ``--lf``) is kept in the user's cache directory, not
in the current one, one per implementation, environment and working directory.

pytest's own options work as they do in pytest, but for the few that would take the suite's
configuration or plugins away: those are refused in one line naming them. A test id that a run
printed (``steps/test_conformance.py::test_x``, or its full path) selects that scenario.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_conformance import signals
from skill_conformance.errors import InputError
from skill_conformance.runtime.options import (
    IMPL,
    OPTIONS,
    RESULTS,
    SCENARIOS,
    SERVER,
    TRACEBACK,
    SuiteOption,
)
from skill_conformance.runtime.registry import implementations

__all__ = ["add_run", "pytest_arguments", "run_suite"]

_PACKAGE = SCENARIOS.parents[1]
_INI = _PACKAGE / "runtime" / "suite.ini"


def _cache_dir(impl: str) -> Path | None:
    """Where pytest keeps its cache for runs against ``impl`` from here, in this environment.

    ``None`` if it cannot be written. The same ``--impl`` text names another implementation in
    another project (its working directory) or another venv (``sys.prefix``): each its own
    last-failed list.
    """
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    key = "\0".join((impl, str(Path.cwd().resolve()), sys.prefix))
    name = hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = base / "skill-conformance" / "pytest" / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


REFUSED_OPTIONS = {
    "-c": "the suite runs on its own configuration (give -o NAME=VALUE for one setting)",
    "--config-file": "the suite runs on its own configuration (give -o NAME=VALUE for one setting)",
    "--rootdir": "the suite's test ids are relative to its own folder",
    "--pastebin": "it would send the run's output to a web service, and pytest deprecates it",
}
"""pytest's options that ``run`` refuses, and why: each would take the suite's own away."""

REFUSED_PLUGINS = {
    "no:skill_conformance": "the suite is that plugin",
    "no:pytest-bdd": "the scenarios are pytest-bdd's",
    "no:pytest_bdd": "the scenarios are pytest-bdd's",
}
"""``-p`` values that ``run`` refuses, and why."""

_NEEDED_PLUGINS = ("-p", "pytest-bdd", "-p", "skill_conformance")
"""Loaded by name, so that the suite runs where pytest's plugin autoloading is turned off."""

_TEST_ID = re.compile(r"(?P<path>[^:]*test_conformance\.py)(?P<rest>::.*)?")


def _plugins(arguments: Sequence[str]) -> list[str]:
    """The plugin names given with ``-p NAME`` or ``-pNAME`` in ``arguments``."""
    names = []
    for before, token in zip(["", *arguments], arguments, strict=False):
        if before == "-p":
            names.append(token)
        elif token.startswith("-p") and token != "-p" and not token.startswith("--"):
            names.append(token[2:].removeprefix("="))
    return names


def _scenario_id(token: str, base: Path) -> str | None:
    """``token`` as a test id of the bundled scenarios from ``base``, if it is one a run printed."""
    match = _TEST_ID.fullmatch(token)
    if match is None:
        return None
    path = match["path"]
    if Path(path).exists() and Path(path).resolve() != SCENARIOS:
        return None  # a file of the user's own, of that name
    if not f"/{path}".endswith(("/steps/test_conformance.py", "/test_conformance.py")):
        return None
    where = SCENARIOS if base == Path("/") else SCENARIOS.relative_to(base)
    return f"{where}{match['rest'] or ''}"


def _passed_ids(extra: Sequence[str]) -> tuple[list[str], bool]:
    """``extra`` with the scenarios' test ids as pytest takes them; whether one selects some.

    A test id selects by its path (made whole); ``--deselect`` compares test ids as pytest
    writes them (relative to the suite's folder).
    """
    arguments, selects = [], False
    for before, token in zip(["", *extra], extra, strict=False):
        option, equals, value = token.partition("=")
        if equals and option == "--deselect" and (short := _scenario_id(value, _PACKAGE)):
            arguments.append(f"--deselect={short}")
        elif before == "--deselect" and (short := _scenario_id(token, _PACKAGE)):
            arguments.append(short)
        elif (whole := _scenario_id(token, Path("/"))) is not None:
            arguments.append(whole)
            selects = True
        else:
            arguments.append(token)
    return arguments, selects


def _refused(arguments: Sequence[str]) -> str | None:
    """Why ``run`` cannot take ``arguments``, naming the option; ``None`` when it can."""
    for token in arguments:
        option = token.partition("=")[0]
        if token.startswith("-c") and not token.startswith("--"):
            option = "-c"  # -c FILE, -cFILE
        if option in REFUSED_OPTIONS:
            return f"{option} cannot be given to `skill-conformance run`: {REFUSED_OPTIONS[option]}"
    for name in _plugins(arguments):
        if name in REFUSED_PLUGINS:
            return f"-p {name} cannot be given to `skill-conformance run`: {REFUSED_PLUGINS[name]}"
    return None


def pytest_arguments(suite: dict[str, object], extra: Sequence[str]) -> list[str]:
    """The pytest command line of a bundled run: ``suite`` options by ``dest``, ``extra`` last.

    Raises :class:`InputError` naming an option of ``extra`` (or ``PYTEST_ADDOPTS``) that the
    run cannot take.
    """
    added = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    refusal = _refused([*added, *extra])
    if refusal is not None:
        raise InputError(refusal)
    impl = str(suite[IMPL.dest])
    uncached = "no:cacheprovider" in _plugins([*added, *extra])
    cache = None if uncached else _cache_dir(impl)
    extra, selects = _passed_ids(extra)
    arguments = [
        *([] if selects else [str(SCENARIOS)]),
        "-c",
        str(_INI),
        "--rootdir",
        str(_PACKAGE),
        "--noconftest",
        *_NEEDED_PLUGINS,
        *(["-p", "no:cacheprovider"] if cache is None else ["-o", f"cache_dir={cache}"]),
    ]
    for option in OPTIONS:
        arguments += option.pytest_arguments(suite.get(option.dest))
    return [*arguments, *extra]


_SIGNALS_MODULE = Path(signals.__file__)

_PYTEST_MAIN = (
    "import importlib.util as u, os, sys; sys.path.append(os.getcwd()); "
    "spec = u.spec_from_file_location('skill_conformance.signals', sys.argv[1]); "
    "module = sys.modules[spec.name] = u.module_from_spec(spec); spec.loader.exec_module(module); "
    "del sys.argv[1]; sys.exit(module.run_pytest())"
)
"""``python -m pytest`` with the working directory last on the path instead of first (``-P``),
under the command line's signal discipline (:func:`skill_conformance.signals.run_pytest`, loaded
from the file that follows: importing the package would keep pytest from rewriting it)."""

_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def run_suite(suite: dict[str, object], extra: Sequence[str]) -> int:
    """Become pytest running the bundled suite (where exec exists); else pytest's exit status.

    Ctrl-C and SIGTERM are blocked across the exec (a blocked signal stays pending through it):
    one arriving while the new interpreter starts, before it can handle it, is delivered once its
    handlers are in place, and ends the run on one line rather than killing it outright.
    """
    command = [sys.executable, "-P", "-c", _PYTEST_MAIN, str(_SIGNALS_MODULE)]
    command += pytest_arguments(suite, extra)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        try:
            os.execv(sys.executable, command)
        finally:  # exec failed: the interrupts come as they would have
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)
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
                help=_impl_help() if option is IMPL else option.help,
            )
    for old, new in _FORMER_NAMES.items():  # as earlier versions spelt them
        parser.add_argument(old, dest=new.dest, action=_action(new), help=argparse.SUPPRESS)
    parser.set_defaults(command=_run, pytest_args=[], passes_unknown=True)


def _action(option: SuiteOption) -> str:
    return "store_true" if option.flag else "store"


_FORMER_NAMES = {"--conformance-results": RESULTS, "--scenario-traceback": TRACEBACK}


def _impl_help() -> str:
    """``--impl``'s help, with the names the registry holds.

    Read only here: a host project's pytest run, which loads the plugin's options, reads no
    registry.
    """
    names = ", ".join(sorted(implementations()))
    return f"the implementation under test: a registered name ({names}) or package.module:Attribute"
