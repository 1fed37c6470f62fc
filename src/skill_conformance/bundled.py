"""Where the suite's specs and features are, and the digest that names the spec tree.

In a checkout they are ``openspec/`` and ``features/`` at the repository root; in an installed
wheel they are bundled as ``skill_conformance/_bundled/`` (see pyproject's ``force-include``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["bundled_or_checkout", "features_dir", "spec_digest", "specs_dir"]

_PACKAGE = Path(__file__).resolve().parent


def bundled_or_checkout(name: str) -> Path:
    """The directory ``name`` (``openspec`` or ``features``): bundled copy first, else checkout."""
    bundled = _PACKAGE / "_bundled" / name
    return bundled if bundled.is_dir() else _PACKAGE.parents[1] / name


def specs_dir() -> Path:
    """The suite's ``openspec/specs`` directory."""
    return bundled_or_checkout("openspec") / "specs"


def features_dir() -> Path:
    """The suite's generated ``features`` directory."""
    return bundled_or_checkout("features")


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
