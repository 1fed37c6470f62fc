"""``skill://`` URIs: ``skill://{name}`` and ``skill://{name}/{reference/path}``.

URIs are flat: the part after ``skill://`` is the skill's name, never a provider. A reference path
is percent-decoded once to find the file. Every decoding of it (once, twice, until it no longer
changes) is checked, so ``..`` stays refused however many times it was encoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

from skill_conformance.reference.errors import SecurityError, SkillNotFoundError

__all__ = [
    "SCHEME",
    "SkillURI",
    "check_reference_path",
    "check_skill_name",
    "format_skill_uri",
    "is_skill_uri",
    "parse_skill_uri",
]

SCHEME = "skill://"
_MAX_DECODINGS = 8


@dataclass(frozen=True)
class SkillURI:
    """A parsed ``skill://`` URI."""

    name: str
    reference: str | None = None

    def __str__(self) -> str:
        return format_skill_uri(self.name, self.reference)


def is_skill_uri(text: str) -> bool:
    """Whether ``text`` is written as a ``skill://`` URI."""
    return text.startswith(SCHEME)


def format_skill_uri(name: str, reference: str | None = None) -> str:
    """The flat URI of skill ``name``, or of one of its reference files."""
    # Skill names never hold "/" and "X" is never quoted, so each mutant of `safe` is equivalent.
    if reference is None:
        return f"{SCHEME}{quote(name, safe='')}"  # pragma: no mutate
    return f"{SCHEME}{quote(name, safe='')}/{quote(reference, safe='/')}"  # pragma: no mutate


def parse_skill_uri(uri: str) -> SkillURI:
    """Parse a flat ``skill://`` URI.

    Raises:
        SecurityError: The name or the reference path could lead outside a skill directory.
        SkillNotFoundError: The URI names no skill (``skill://`` alone).

    """
    if not is_skill_uri(uri):
        raise SkillNotFoundError(uri)
    encoded_name, slash, encoded_reference = uri[len(SCHEME) :].partition("/")
    name = check_skill_name(unquote(encoded_name))
    if not slash or not encoded_reference:
        return SkillURI(name)
    check_reference_path(encoded_reference)
    return SkillURI(name, unquote(encoded_reference))


def check_skill_name(name: str) -> str:
    """Return ``name`` if it can name a skill directory and nothing else.

    Raises:
        SecurityError: The name contains a path separator or is a dot-only segment.
        SkillNotFoundError: The name is empty.

    """
    if not name:
        raise SkillNotFoundError(name)
    if "/" in name or "\\" in name or "\x00" in name or name.strip(".") == "":
        raise SecurityError(f"skill name {name!r} is not a plain name")
    return name


def check_reference_path(path: str) -> None:
    """Refuse a reference path that, in any of its percent-decodings, could leave its directory.

    Raises:
        SecurityError: Some decoding is absolute, has a backslash or NUL, or a ``..`` segment.

    """
    current = path
    for _ in range(_MAX_DECODINGS):
        if current.startswith("/") or "\\" in current or "\x00" in current:
            raise SecurityError(f"reference path {path!r} is not a relative path")
        if ".." in current.split("/"):
            raise SecurityError(f"reference path {path!r} leads outside the skill directory")
        decoded = unquote(current)
        if decoded == current:
            return
        current = decoded
    raise SecurityError(f"reference path {path!r} is encoded too many times")
