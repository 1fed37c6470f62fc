"""Find the specs of an OpenSpec tree, parse them all and render their features."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.bounded import MAX_SPEC_BYTES, read_regular, walk
from skill_conformance.gherkin.clauses import clause_references
from skill_conformance.gherkin.errors import Diagnostic, SpecError, UsageError, printable
from skill_conformance.gherkin.model import Capability
from skill_conformance.gherkin.parser import parse_spec
from skill_conformance.gherkin.render import render_feature

SPEC_FILE = "spec.md"


@dataclass(frozen=True)
class SpecFile:
    """A ``spec.md`` found under the specs directory.

    Attributes:
        path: Where it is on disk.
        capability: Capability name: folder path below the specs dir, joined by ``-``.
        display: Path shown in messages and in the generated header.

    """

    path: Path
    capability: str
    display: str


@dataclass(frozen=True)
class Generated:
    """The outcome of generating every feature of a tree, before anything is written.

    Attributes:
        features: Feature text keyed by file name (``<capability>.feature``).
        errors: The first error of each spec that failed, in path order.
        warnings: Warnings of lenient mode, in path order.
        scenarios: Number of scenarios rendered.

    """

    features: dict[str, str]
    errors: tuple[Diagnostic, ...]
    warnings: tuple[Diagnostic, ...]
    scenarios: int


def display_path(path: Path, relative_to: Path, fallback_root: Path) -> str:
    """Show ``path`` relative to ``relative_to``, else relative to ``fallback_root``'s parent.

    Args:
        path: The file.
        relative_to: Preferred base (usually the working directory).
        fallback_root: Directory whose name prefixes the path when it is not under
            ``relative_to``.

    Returns:
        A POSIX-style relative path, its characters that are not printable escaped.

    """
    # Resolve the folder only: the file itself may be a broken link or a link loop.
    resolved = path.parent.resolve() / path.name
    try:
        shown = resolved.relative_to(relative_to.resolve())
    except ValueError:
        root = fallback_root.resolve()
        try:
            shown = Path(root.name) / resolved.relative_to(root)
        except ValueError:
            shown = resolved
    return printable(shown.as_posix())


def discover(specs_dir: Path, relative_to: Path) -> list[SpecFile]:
    """Find every ``spec.md`` below ``specs_dir`` (hidden folders skipped, links not followed).

    A spec in ``specs_dir`` itself takes the name of ``specs_dir``; a spec in
    ``specs_dir/a/b/`` is capability ``a-b``.

    Args:
        specs_dir: The directory given as ``--specs``.
        relative_to: Base for the displayed paths.

    Returns:
        The specs, sorted by capability name.

    Raises:
        UsageError: ``specs_dir`` is not a directory or holds no spec.
        SpecError: Two specs map to the same capability name.

    """
    if not specs_dir.is_dir():
        raise UsageError(f"--specs: not a directory: {specs_dir}")
    found: dict[str, SpecFile] = {}
    for root, dirs, files in _folders(specs_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != SPEC_FILE)
        if SPEC_FILE not in files and not (Path(root) / SPEC_FILE).is_dir():
            continue  # a folder named spec.md is found, and refused when it is read
        folder = Path(root)
        parts = folder.relative_to(specs_dir).parts or (specs_dir.resolve().name,)
        spec = SpecFile(
            path=folder / SPEC_FILE,
            capability="-".join(parts),
            display=display_path(folder / SPEC_FILE, relative_to, specs_dir),
        )
        clash = found.get(spec.capability)
        if clash is not None:
            raise SpecError(
                spec.display, 1, f'capability name "{spec.capability}" also used by {clash.display}'
            )
        found[spec.capability] = spec
    if not found:
        raise UsageError(f"--specs: no {SPEC_FILE} found under {specs_dir}")
    return [found[name] for name in sorted(found)]


def _folders(specs_dir: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """The folders of ``specs_dir`` as ``os.walk`` gives them, within :mod:`bounded`'s limits."""
    try:
        for folder, dirs, files in walk(specs_dir):
            yield str(folder), dirs, files
    except OSError as error:
        where = printable(str(error.filename or specs_dir))
        raise UsageError(f"--specs: cannot list {where}: {error.strerror or error}") from None


def read_spec(path: Path) -> bytes:
    """The bytes of the regular file ``path``; refuse anything else without blocking on it.

    Raises:
        OSError: ``path`` is not a regular file of at most :data:`MAX_SPEC_BYTES` bytes.

    """
    return read_regular(path, MAX_SPEC_BYTES)


def generate(specs: list[SpecFile], *, lenient: bool = False) -> Generated:
    """Parse and render every spec, collecting one error per failing spec.

    Args:
        specs: The specs, as :func:`discover` returns them.
        lenient: Passed on to :func:`parse_spec`.

    Returns:
        Features of the specs that parsed, plus errors and warnings.

    """
    features: dict[str, str] = {}
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    parsed: list[Capability] = []
    scenarios = 0
    for spec in specs:
        try:
            source = read_spec(spec.path).decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(Diagnostic(spec.display, 1, f"not valid UTF-8 ({exc.reason})"))
            continue
        except OSError as exc:
            errors.append(Diagnostic(spec.display, 1, f"cannot read: {exc.strerror or exc}"))
            continue
        try:
            result = parse_spec(source, name=spec.capability, path=spec.display, lenient=lenient)
        except SpecError as exc:
            errors.append(exc.diagnostic)
            continue
        warnings.extend(result.warnings)
        scenarios += sum(len(r.scenarios) for r in result.capability.requirements)
        features[f"{spec.capability}.feature"] = render_feature(result.capability)
        parsed.append(result.capability)
    if not errors:  # a spec that did not parse would make its clauses look unknown
        errors.extend(tree_problems(parsed))
    return Generated(features, tuple(errors), tuple(warnings), scenarios)


def tree_problems(capabilities: list[Capability]) -> list[Diagnostic]:
    """What no single spec shows: a clause id marked in two specs, a tag naming no clause."""
    return clause_references(
        ((c.source, clause) for c in capabilities for r in c.requirements for clause in r.clauses),
        (
            (c.source, s.line, s.tags)
            for c in capabilities
            for r in c.requirements
            for s in r.scenarios
        ),
    )
