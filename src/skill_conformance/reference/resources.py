"""The skill resource protocol: what a capability offering skills answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from skill_conformance.reference.skill import Skill

__all__ = ["LOCAL_SOURCE", "SkillEntry", "SkillResource"]

LOCAL_SOURCE = "local"
"""The source of a skill read from the pool's own skills directory."""


@dataclass(frozen=True)
class SkillEntry:
    """One listed skill.

    Attributes:
        name: The skill's name.
        description: What the skill is for.
        source: ``"local"``, or the label of the remote provider offering it.
        uri: The flat ``skill://{name}`` URI of a local skill; ``None`` for a remote one.

    """

    name: str
    description: str
    source: str
    uri: str | None = None


@runtime_checkable
class SkillResource(Protocol):
    """A capability that lists and reads skills (the skill manager, a remote provider)."""

    async def list_skills(self) -> list[SkillEntry]:
        """The skills this resource offers."""
        ...

    async def read_skill(self, name: str) -> Skill:
        """The skill ``name``; raises ``SkillNotFoundError`` if it is not offered."""
        ...
