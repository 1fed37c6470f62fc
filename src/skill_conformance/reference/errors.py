"""The errors of the skill system."""

from __future__ import annotations

__all__ = [
    "ReferenceNotFoundError",
    "ReferenceTooLargeError",
    "SecurityError",
    "SkillError",
    "SkillNotFoundError",
    "ToolImportError",
]


class SkillError(Exception):
    """Base class of every error the skill system raises on purpose."""


class SkillNotFoundError(SkillError):
    """No visible skill source has a skill of this name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"skill {name!r} not found")
        self.name = name


class ReferenceNotFoundError(SkillError):
    """A skill has no reference file at this path."""

    def __init__(self, skill: str, path: str, reason: str = "") -> None:
        detail = f" ({reason})" if reason else ""
        super().__init__(f"skill {skill!r} has no reference {path!r}{detail}")
        self.skill = skill
        self.path = path


class ReferenceTooLargeError(SkillError):
    """A reference file is larger than the skill system reads; nothing was read."""

    def __init__(self, skill: str, path: str, limit: int) -> None:
        super().__init__(f"reference {path!r} of skill {skill!r} is larger than {limit} bytes")
        self.skill = skill
        self.path = path


class SecurityError(SkillError):
    """A name or path would lead outside a skill's directory; nothing was read."""


class ToolImportError(SkillError):
    """A ``module:function`` import path could not be imported."""
