"""What ``skill-conformance history`` must know of a codebase to run the suite at its commits.

An adapter that knows its codebase says so with a class attribute ``codebase``; ``history``
reads it through the registry (``--impl NAME``) without instantiating the adapter, and its
options (``--path``, ``--group``) say the same for any other repository.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Codebase"]


@dataclass(frozen=True)
class Codebase:
    """Where a codebase's skill system lives, and how a commit's environment is built."""

    paths: tuple[str, ...]
    """Git pathspecs of the skill system: ``history`` runs the suite at each commit touching one."""
    groups: tuple[str, ...] = ()
    """The dependency groups of the commit's ``uv.lock`` its environment holds, beside the main
    dependencies (all of the lock's defaults when empty, or when the lock lacks them)."""
