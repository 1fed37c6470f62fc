"""Read a skill's reference files without ever leaving its directory."""

from __future__ import annotations

import os
from pathlib import Path

from skill_conformance.reference.errors import ReferenceNotFoundError, SecurityError
from skill_conformance.reference.uri import check_reference_path

__all__ = ["REFERENCES_DIR", "list_references", "read_reference"]

REFERENCES_DIR = "references"


def read_reference(skill: str, directory: Path, path: str) -> str:
    """The text of the file at ``path`` inside ``directory``, the directory of skill ``skill``.

    The path is checked as written, then resolved with every symbolic link followed; the result
    must still lie inside the resolved skill directory (a path comparison, so a sibling directory
    whose name merely starts with the skill's name is outside).

    Raises:
        SecurityError: The path leads outside the skill directory; nothing was read.
        ReferenceNotFoundError: No file is there.

    """
    check_reference_path(path)
    root = directory.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise SecurityError(f"reference {path!r} of skill {skill!r} leads outside its directory")
    if not target.is_file():
        raise ReferenceNotFoundError(skill, path)
    return target.read_text(encoding="utf-8", errors="replace")


def list_references(directory: Path) -> list[str]:
    """Paths (relative to ``directory``, ``/``-separated, sorted) of files under ``references/``."""
    base = directory / REFERENCES_DIR
    found = []
    for folder, _, files in os.walk(base, followlinks=False):
        for name in files:
            found.append((Path(folder) / name).relative_to(directory).as_posix())
    return sorted(found)
