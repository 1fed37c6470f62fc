"""The real codebase as ``history`` knows it: where its skill system lives, how it is built."""

from __future__ import annotations

from skill_conformance.adapters.codebase import Codebase

__all__ = ["AGENTPOOL"]

AGENTPOOL = Codebase(
    paths=(
        ":(glob)src/*/skills/**",
        ":(glob)src/*/capabilities/skill_manager_cap.py",
        ":(glob)src/*_toolsets/builtin/skills.py",
        ":(glob)src/*_config/skills.py",
    ),
    groups=("dev",),
)
"""Its skill system under either package name (``agentpool``, ``wolfharness``): the skills
package, the skill manager, the builtin skills toolset and the skills configuration; a commit's
environment holds the ``dev`` group of its lock (the tests' dependencies) beside the main ones."""
