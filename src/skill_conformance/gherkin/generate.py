"""Find the specs of an OpenSpec tree, parse them all and render their features."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.gherkin.errors import Diagnostic, SpecError, UsageError
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
        A POSIX-style relative path.

    """
    resolved = path.resolve()
    try:
        return resolved.relative_to(relative_to.resolve()).as_posix()
    except ValueError:
        root = fallback_root.resolve()
        try:
            return (Path(root.name) / resolved.relative_to(root)).as_posix()
        except ValueError:
            return resolved.as_posix()


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
    for root, dirs, files in os.walk(specs_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if SPEC_FILE not in files:
            continue
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
    scenarios = 0
    for spec in specs:
        try:
            source = spec.path.read_bytes().decode("utf-8")
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
    return Generated(features, tuple(errors), tuple(warnings), scenarios)
