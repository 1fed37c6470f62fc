"""Command line of skill-conformance: ``skill-conformance <command> ...``."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from skill_conformance import __version__
from skill_conformance.commands.compare import add_compare
from skill_conformance.commands.expectations import add_expectations
from skill_conformance.commands.history import add_history
from skill_conformance.commands.report import add_report
from skill_conformance.commands.run import add_run
from skill_conformance.commands.smoke import add_smoke
from skill_conformance.commands.trace import add_trace
from skill_conformance.errors import InputError
from skill_conformance.escape.terminal import printable
from skill_conformance.gherkin import FAILED, Options, run
from skill_conformance.runtime.interrupts import raise_on_sigterm

Command = Callable[[argparse.Namespace], int]


class _UsageError(Exception):
    """Raised instead of argparse's exit so :func:`main` returns a status."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message}")


def _gherkin(args: argparse.Namespace) -> int:
    """Run ``skill-conformance gherkin``."""
    options = Options(
        specs=Path(args.specs),
        out=Path(args.out),
        check=bool(args.check),
        lenient=bool(args.lenient),
        relative_to=Path(args.relative_to),
    )
    return run(options, sys.stdout, sys.stderr)


def _add_gherkin(commands: argparse._SubParsersAction[_Parser]) -> None:
    parser = commands.add_parser(
        "gherkin",
        help="generate .feature files from OpenSpec specs",
        description=(
            "Turn every <capability>/spec.md under --specs into <capability>.feature in --out. "
            "Exit 0 on success, 1 when --check finds a difference, 2 on errors."
        ),
    )
    parser.add_argument("--specs", required=True, metavar="DIR", help="OpenSpec specs directory")
    parser.add_argument("--out", required=True, metavar="DIR", help="feature output directory")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff and exit 1 when --out is not up to date",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="warn instead of failing on problems that `openspec validate` accepts",
    )
    parser.add_argument(
        "--relative-to",
        default=".",
        metavar="DIR",
        help="base of the spec paths written into headers and messages (default: .)",
    )
    parser.set_defaults(command=_gherkin)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with one subparser per command."""
    parser = _Parser(
        prog="skill-conformance",
        description="The conformance suite of the Agent Skills system: run it, read its reports.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    _add_gherkin(commands)
    add_report(commands)
    add_trace(commands)
    add_expectations(commands)
    add_compare(commands)
    add_history(commands)
    add_smoke(commands)
    add_run(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status.

    Args:
        argv: Arguments without the program name; ``sys.argv[1:]`` when None.

    Returns:
        The exit status (0 success, 1 check found differences, 2 errors).

    """
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown and not getattr(args, "passes_unknown", False):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        if unknown:
            args.pytest_args = unknown
    except _UsageError as exc:
        print(printable(str(exc)), file=sys.stderr)
        return FAILED
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    command: Command | None = getattr(args, "command", None)
    if command is None:
        print(f"{parser.prog}: error: a command is required (try --help)", file=sys.stderr)
        return FAILED
    return _interruptible(command, args)


INTERRUPTED = 2
"""The exit status of a command stopped by Ctrl-C or SIGTERM, as pytest's for a run."""

BROKEN_PIPE = 128 + signal.SIGPIPE
"""The exit status of a command whose output's reader went away, as a shell shows one it kills."""


def _interruptible(command: Command, args: argparse.Namespace) -> int:
    """Run ``command`` so that SIGTERM stops it as Ctrl-C does: files it was writing removed."""
    handled = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    )
    if handled:
        signal.signal(signal.SIGTERM, raise_on_sigterm)
    try:
        return command(args)
    except InputError as error:  # what the user gave cannot be used: one line, never a traceback
        print(f"skill-conformance: error: {printable(str(error))}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        print("skill-conformance: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader stopped early (`| head`): end quietly, as tools there do
        # The flush at exit would fail again on the closed pipe (the signal module's SIGPIPE note).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    finally:
        if handled:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main())
