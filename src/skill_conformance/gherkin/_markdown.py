"""Line-level reading of OpenSpec markdown: fences, comments, headers, bullets."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from skill_conformance.gherkin.errors import SpecError
from skill_conformance.gherkin.ids import is_valid_tag


class Kind(Enum):
    """What a line is, before any section logic."""

    TEXT = "text"
    BLANK = "blank"
    COMMENT = "comment"
    TAGS = "tags"
    FENCE = "fence"


@dataclass(frozen=True)
class Line:
    """One physical line of a spec.

    Attributes:
        no: 1-based line number.
        text: The line without its line ending.
        kind: Classification of the line.
        tags: Tags of a ``<!-- tags: ... -->`` line (empty otherwise).

    """

    no: int
    text: str
    kind: Kind
    tags: tuple[str, ...] = ()

    @property
    def indent(self) -> int:
        """Width of the leading whitespace, tabs counting as 4 columns."""
        return indent_of(self.text)


_SPLIT = re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")
_TAGS = re.compile(r"^\s*<!--\s*tags\s*:(?P<tags>.*?)-->\s*$", re.IGNORECASE)
_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$")
# A heading may be indented by up to three spaces (CommonMark); four make it code or step text.
_HEADER = re.compile(r"^ {0,3}(?P<hashes>#{1,6})(?:[ \t]+(?P<text>.*?))?[ \t]*$")
_REQUIREMENT = re.compile(r"^ {0,3}###[ \t]*Requirement:(?P<title>.*)$", re.IGNORECASE)
_SCENARIO = re.compile(r"^ {0,3}####[ \t]+Scenario:(?P<title>.*)$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*[-*+](?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<rest>.*))?$")
_KEYWORDS = "given|when|then|and|but"
_STEP = re.compile(
    r"^(?P<indent>\s*)[-*+][ \t]+"
    r"(?:\*\*[ \t]*(?:(?:and|but)[ \t]+(?P<compound>given|when|then)"
    rf"|(?P<bold>{_KEYWORDS}))[ \t]*:?[ \t]*\*\*[ \t]*:?"
    rf"|(?P<plain>{_KEYWORDS})(?=[\s:]|$):?)"
    r"(?P<text>.*)$",
    re.IGNORECASE,
)


def indent_of(text: str) -> int:
    """Return the width of the leading whitespace of ``text`` (tabs = 4 columns)."""
    stripped = text.lstrip(" \t")
    return len(text[: len(text) - len(stripped)].expandtabs(4))


def split_lines(source: str) -> list[str]:
    """Split a spec into lines, dropping a BOM and accepting any line ending."""
    if source.startswith("\ufeff"):
        source = source[1:]
    lines = _SPLIT.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def fence_opening(text: str) -> str | None:
    """Return the fence marker (e.g. three backticks) if ``text`` opens a fence."""
    match = _FENCE_OPEN.match(text)
    return None if match is None else match.group(1)


def fence_closes(text: str, marker: str) -> bool:
    """Tell whether ``text`` closes a fence opened with ``marker``."""
    match = _FENCE_CLOSE.match(text)
    return bool(match and match.group(1)[0] == marker[0] and len(match.group(1)) >= len(marker))


def classify(source: str, path: str) -> list[Line]:
    """Classify every line of ``source``.

    Fenced code lines (delimiters included) are ``FENCE``; HTML comments that
    fill whole lines are ``COMMENT``, except one-line tags comments (``TAGS``).

    Args:
        source: The spec text.
        path: Path shown in error messages.

    Returns:
        The classified lines.

    Raises:
        SpecError: A tags comment holds something that is not a tag, or a code fence or an
            HTML comment is never closed (it would swallow the rest of the spec).

    """
    out: list[Line] = []
    fence: str | None = None
    fence_line = comment_line = 0
    in_comment = False
    for no, text in enumerate(split_lines(source), start=1):
        if fence is not None:
            out.append(Line(no, text, Kind.FENCE))
            if fence_closes(text, fence):
                fence = None
            continue
        if in_comment:
            out.append(Line(no, text, Kind.COMMENT))
            in_comment = "-->" not in text
            continue
        opened = fence_opening(text)
        stripped = text.strip()
        if opened:
            fence, fence_line = opened, no
            out.append(Line(no, text, Kind.FENCE))
        elif not stripped:
            out.append(Line(no, text, Kind.BLANK))
        elif tags := _TAGS.match(text):
            out.append(Line(no, text, Kind.TAGS, _parse_tags(tags.group("tags"), path, no)))
        elif stripped.startswith("<!--"):
            out.append(Line(no, text, Kind.COMMENT))
            in_comment, comment_line = "-->" not in stripped[4:], no
        else:
            out.append(Line(no, text, Kind.TEXT))
    if fence is not None:
        raise SpecError(path, fence_line, f"code fence {fence} is never closed")
    if in_comment:
        raise SpecError(path, comment_line, "HTML comment <!-- is never closed with -->")
    return out


def _parse_tags(raw: str, path: str, no: int) -> tuple[str, ...]:
    tags = tuple(raw.split())
    for tag in tags:
        if not is_valid_tag(tag):
            raise SpecError(
                path, no, f"invalid tag {tag!r} in tags comment (want @name, no spaces, @ or #)"
            )
    return tags


def header(line: Line) -> tuple[int, str] | None:
    """Return ``(level, text)`` if ``line`` is an ATX header outside any fence."""
    if line.kind is not Kind.TEXT:
        return None
    match = _HEADER.match(line.text)
    if match is None:
        return None
    return len(match.group("hashes")), clean_title(match.group("text") or "")


def clean_title(text: str) -> str:
    """Strip surrounding whitespace and an optional ATX closing ``#`` run."""
    return _ATX_CLOSE.sub("", " " + text).strip()


def requirement_title(line: Line) -> str | None:
    """Return the title of a ``### Requirement:`` header, or None."""
    if line.kind is not Kind.TEXT:
        return None
    match = _REQUIREMENT.match(line.text)
    return None if match is None else clean_title(match.group("title"))


def scenario_title(line: Line) -> str | None:
    """Return the title of a ``#### Scenario:`` header, or None."""
    if line.kind is not Kind.TEXT:
        return None
    match = _SCENARIO.match(line.text)
    return None if match is None else clean_title(match.group("title"))


@dataclass(frozen=True)
class StepBullet:
    """A list item that starts with a step keyword.

    Attributes:
        keyword: Canonical keyword (``Given`` ... ``But``).
        text: Text after the keyword, stripped.
        indent: Indentation of the bullet marker.
        bold: Whether the keyword was written in bold.

    """

    keyword: str
    text: str
    indent: int
    bold: bool


def step_bullet(line: Line) -> StepBullet | None:
    """Return the step a bullet line starts, or None when it is no step bullet."""
    if line.kind is not Kind.TEXT:
        return None
    match = _STEP.match(line.text)
    if match is None:
        return None
    word = match.group("compound") or match.group("bold") or match.group("plain")
    return StepBullet(
        keyword=word.capitalize(),
        text=match.group("text").strip(),
        indent=indent_of(line.text),
        bold=match.group("plain") is None,
    )


def is_bullet(text: str) -> bool:
    """Tell whether ``text`` is a bullet list item (``-``, ``*`` or ``+``)."""
    return _BULLET.match(text) is not None


def list_item(text: str) -> str | None:
    """Return the content of a list item line (marker removed), or None."""
    match = _LIST_ITEM.match(text)
    if match is None:
        return None
    return (match.group("rest") or "").strip()
