"""Why an import failed: a module of the working directory hid an installed one."""

from __future__ import annotations

import sys
import traceback
from importlib.machinery import PathFinder
from pathlib import Path

__all__ = ["shadowing"]


def shadowing(error: BaseException) -> str:
    """Why an import failed when a module of the working directory hid an installed one.

    ``python -m pytest`` puts the working directory first on the path: a ``yaml.py`` or an
    ``mcp/`` there is imported in place of the library, whose own message then misleads ("please
    install ..."). The failed import's traceback shows it: a frame in such a file.
    """
    here = Path.cwd().resolve()
    elsewhere = [entry for entry in sys.path if entry and Path(entry).resolve() != here]
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for frame, _ in traceback.walk_tb(current.__traceback__):
            file = Path(frame.f_code.co_filename)
            if not file.is_absolute() or not file.is_relative_to(here):
                continue
            top = file.relative_to(here).parts[0]
            installed = PathFinder.find_spec(top.removesuffix(".py"), elsewhere)
            if installed is None:
                continue
            shown = f"{top}/" if (here / top).is_dir() else top
            where = installed.origin or next(iter(installed.submodule_search_locations or []), "")
            return (
                f" (the working directory {here} holds {shown}, imported in place of {where}:"
                " run from another directory)"
            )
        current = current.__cause__ or current.__context__
    return ""
