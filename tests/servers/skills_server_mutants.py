"""The reference skills server with one defect each, for the server profile to catch.

    python tests/servers/skills_server_mutants.py MUTANT SKILLS_DIR

Each mutant subclasses :class:`SkillsFolder` and overrides the one method carrying its defect.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio

from skill_conformance.testing.skills_server import SkillsFolder, serve


class SizeOffByOne(SkillsFolder):
    """Lists each file one byte longer than it is."""

    def entry(self, uri: str) -> dict[str, Any]:
        entry = super().entry(uri)
        for resource in entry["resources"]:
            resource["size"] += 1
        return entry


class FollowsTraversal(SkillsFolder):
    """Serves any path the URI names below the folder's parent, ``..`` included."""

    def served_path(self, uri: str) -> Path | None:
        from urllib.parse import unquote

        path = Path(os.path.normpath(self.root / unquote(uri[len("skill://") :])))
        return path if path.exists() else None


class FollowsLinks(SkillsFolder):
    """Lists and serves files that are symbolic links, wherever they lead."""

    def _walk(self, folder: Path) -> Any:
        for top, dirs, files in os.walk(folder, followlinks=False):
            yield Path(top), sorted(dirs), sorted(files)


class DropsByteOrderMark(SkillsFolder):
    """Reads text as UTF-8 with the byte order mark taken off."""

    def read(self, uri: str) -> dict[str, Any]:
        result = super().read(uri)
        content = result["contents"][0]
        if "text" in content:
            content["text"] = content["text"].removeprefix("\ufeff")
        return result


class NoNestedEntry(SkillsFolder):
    """Serves no skill inside another skill's folder."""

    def skills(self) -> dict[str, Any]:
        found = super().skills()
        roots = [uri[: -len("SKILL.md")] for uri in found]
        return {
            uri: skill
            for uri, skill in found.items()
            if not any(uri != r + "SKILL.md" and uri.startswith(r) for r in roots)
        }


MUTANTS = {
    "size": SizeOffByOne,
    "traversal": FollowsTraversal,
    "links": FollowsLinks,
    "bom": DropsByteOrderMark,
    "nested": NoNestedEntry,
}

if __name__ == "__main__":
    anyio.run(serve, MUTANTS[sys.argv[1]](Path(sys.argv[2]).resolve()))
