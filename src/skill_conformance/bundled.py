"""Where the suite's own data is (features, specs, expectations), and the digest of its specs.

The data is kept at the repository's top level (``features/``, ``openspec/``, ``expectations/``),
where spec reviewers and the OpenSpec CLI find it. The build copies it into the wheel as
``skill_conformance/_bundled/`` (``pyproject.toml``, ``force-include``), from a checkout and from
the sdist alike. :func:`bundled` is the one lookup: the wheel's copy where there is one, else
the checkout the package is imported from (an editable install).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from skill_conformance.bounded import MAX_SPEC_BYTES, read_regular, walk
from skill_conformance.errors import InputError
from skill_conformance.escape.terminal import printable

__all__ = ["bundled", "expectations_dir", "features_dir", "spec_digest", "specs_dir"]

_PACKAGE = Path(__file__).resolve().parent
SPEC = "spec.md"


def bundled(name: str) -> Path:
    """The data directory ``name``: the wheel's copy, else the checkout's own."""
    packaged = _PACKAGE / "_bundled"
    return (packaged if packaged.is_dir() else _PACKAGE.parents[1]) / name


def specs_dir() -> Path:
    """The suite's ``openspec/specs`` directory."""
    return bundled("openspec") / "specs"


def features_dir() -> Path:
    """The suite's generated ``features`` directory."""
    return bundled("features")


def expectations_dir() -> Path:
    """The suite's ``expectations`` directory: known failures per implementation and version."""
    return bundled("expectations")


def spec_digest(specs: Path | None = None) -> str:
    """``sha256:<hex>`` over every ``**/spec.md`` under ``specs``: relative path and content.

    Line endings are normalised, so a checkout with CRLF files gives the same digest. The tree is
    read within :mod:`skill_conformance.bounded`'s limits.

    Raises:
        InputError: The tree or one of its ``spec.md`` files cannot be read within them.

    """
    root = specs_dir() if specs is None else specs
    digest = hashlib.sha256()
    try:
        found = [folder / SPEC for folder, _, files in walk(root) if SPEC in files]
        for path in sorted(found, key=lambda p: p.relative_to(root).as_posix()):
            content = read_regular(path, MAX_SPEC_BYTES).replace(b"\r\n", b"\n")
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(content + b"\0")
    except OSError as error:
        where = printable(str(error.filename or root))
        raise InputError(f"{where}: cannot read: {error.strerror or error}") from None
    return f"sha256:{digest.hexdigest()}"
