"""Where the suite's own data is (features, specs, expectations), and the digest of its specs.

The data lives in ``skill_conformance/_bundled/`` in the installed wheel; in a checkout that
folder holds links to the repository's top-level ``features/``, ``openspec/`` and
``expectations/``. One lookup serves both, so an installed suite and a checkout read the same
files the same way. (The reference and the step definitions are linked the same way, as the
packages ``skill_conformance.reference`` and ``skill_conformance.steps``.)
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["bundled", "expectations_dir", "features_dir", "spec_digest", "specs_dir"]

_BUNDLED = Path(__file__).resolve().parent / "_bundled"


def bundled(name: str) -> Path:
    """The bundled directory ``name``, links resolved (in a checkout: the repository's own)."""
    return (_BUNDLED / name).resolve()


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

    Line endings are normalised, so a checkout with CRLF files gives the same digest.
    """
    root = specs_dir() if specs is None else specs
    digest = hashlib.sha256()
    for path in sorted(root.rglob("spec.md"), key=lambda p: p.relative_to(root).as_posix()):
        content = path.read_bytes().replace(b"\r\n", b"\n")
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(content + b"\0")
    return f"sha256:{digest.hexdigest()}"
