"""The import path of one scenario, for adapters that import its tool modules in this process.

:attr:`~skill_conformance.port.Setup.python_path` names the directories of a scenario's tool
modules. An in-process adapter puts them on ``sys.path`` while its system is open and takes them
off at close, with every module imported from them, so no scenario sees another's modules.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ImportPath"]


class ImportPath:
    """Directories on ``sys.path`` from :meth:`add` until :meth:`remove`."""

    def __init__(self, directories: Sequence[Path]) -> None:
        self._entries = [str(directory) for directory in directories]
        self._added: list[str] = []
        self._known: set[str] = set()

    def add(self) -> None:
        """Put the directories first on ``sys.path`` (those not there already)."""
        new = [entry for entry in self._entries if entry not in sys.path]
        if not self._added:
            self._known = set(sys.modules)
        sys.path[:0] = new
        self._added += new
        importlib.invalidate_caches()

    def remove(self) -> None:
        """Take the added directories off ``sys.path`` and forget the modules imported from them."""
        added, self._added = self._added, []
        for entry in added:
            if entry in sys.path:
                sys.path.remove(entry)
        roots = [Path(entry).resolve() for entry in added]
        # Only modules imported since `add` can come from these directories, and resolving the
        # path of every module in the process would cost each scenario far more than its own.
        for name in set(sys.modules) - self._known:
            origin = getattr(sys.modules.get(name), "__file__", None)
            if origin and any(Path(origin).resolve().is_relative_to(root) for root in roots):
                del sys.modules[name]
