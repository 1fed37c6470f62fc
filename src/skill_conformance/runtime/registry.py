"""The registry of implementations: the entry-point group ``skill_conformance.implementations``.

Each entry names an adapter (``name = "package.module:Attribute"``); the suite's own adapters
are registered there too, in its ``pyproject.toml``, and a third party registers its own the same
way in its distribution. ``--impl NAME``, its help and its error, and ``make matrix`` read it.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

__all__ = ["GROUP", "implementations"]

GROUP = "skill_conformance.implementations"


@cache
def implementations() -> dict[str, str]:
    """Every registered implementation: its name and the ``module:attribute`` of its adapter."""
    return {entry.name: entry.value for entry in entry_points(group=GROUP)}
