"""The ``gherkin`` command: generate, or check, the feature files of an OpenSpec tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from skill_conformance.gherkin._writer import apply, plan
from skill_conformance.gherkin.errors import GeneratorError, SpecError, UsageError, printable
from skill_conformance.gherkin.generate import discover, display_path, generate

OK = 0
"""Exit status: features written, or (with ``check``) already up to date."""
OUT_OF_DATE = 1
"""Exit status of ``check`` when a file would change, is missing or is stale."""
FAILED = 2
"""Exit status for a malformed spec, a refused write or a usage error."""


@dataclass(frozen=True)
class Options:
    """Inputs of the ``gherkin`` command.

    Attributes:
        specs: Directory searched for ``spec.md`` files.
        out: Directory of the generated ``.feature`` files.
        check: Compare only; write nothing.
        lenient: Downgrade the rules ``openspec validate`` does not enforce to warnings.
        relative_to: Base of the paths shown in headers and messages.

    """

    specs: Path
    out: Path
    check: bool = False
    lenient: bool = False
    relative_to: Path = Path()


def run(options: Options, stdout: TextIO, stderr: TextIO) -> int:
    """Run the command; report on ``stdout``/``stderr`` and return the exit status.

    Args:
        options: What to do.
        stdout: Receives diffs (``check``) and the summary line.
        stderr: Receives errors and warnings, one line each.

    Returns:
        :data:`OK`, :data:`OUT_OF_DATE` or :data:`FAILED`.

    """
    try:
        return _run(options, stdout, stderr)
    except UsageError as exc:
        print(printable(f"skill-conformance gherkin: error: {exc}"), file=stderr)
        return FAILED
    except GeneratorError as exc:
        print(printable(str(exc)), file=stderr)
        return FAILED
    except BrokenPipeError:  # the reader of the diff stopped early: the command line ends quietly
        raise
    except OSError as exc:  # a file-system oddity met outside the specs' own reading
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"skill-conformance gherkin: error: {where}{exc.strerror or exc}"
        print(printable(message), file=stderr)
        return FAILED


def _run(options: Options, stdout: TextIO, stderr: TextIO) -> int:
    if options.out.exists() and not options.out.is_dir():
        raise UsageError(f"--out: not a directory: {options.out}")
    specs = discover(options.specs, options.relative_to)
    result = generate(specs, lenient=options.lenient)
    for warning in result.warnings:
        print(warning, file=stderr)
    if result.errors:
        for error in result.errors:
            print(error, file=stderr)
        return FAILED
    out_display = display_path(options.out, options.relative_to, options.out)
    try:
        changes = plan(options.out, result.features, out_display)
    except SpecError as exc:
        print(exc, file=stderr)
        return FAILED
    summary = (
        f"{len(result.features)} feature files, {result.scenarios} scenarios "
        f"from {len(specs)} specs"
    )
    if options.check:
        for change in changes:
            stdout.write(change.diff())
        stdout.flush()  # the diff before the line that sums it up, and a closed reader seen now
        if changes:
            print(
                f"{out_display}: {len(changes)} feature files out of date; "
                "run skill-conformance gherkin without --check",
                file=stderr,
            )
            return OUT_OF_DATE
        print(f"{out_display}: up to date ({summary})", file=stdout)
        return OK
    apply(options.out, changes)
    print(f"{out_display}: {len(changes)} files changed ({summary})", file=stdout)
    return OK
