"""Turn the body lines of a scenario into steps, step arguments and description."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Protocol

from skill_conformance.gherkin._markdown import (
    Kind,
    Line,
    fence_closes,
    fence_opening,
    indent_of,
    is_bullet,
    list_item,
    step_bullet,
)
from skill_conformance.gherkin.errors import SpecError
from skill_conformance.gherkin.model import DataTable, DocString, Step, StepArgument

_MEDIA_TYPE = re.compile(r"[\w.+/-]+")

NESTED = 2
"""Columns past a step bullet's marker from which a line belongs to that step."""


@dataclass
class _OpenStep:
    keyword: str
    line: int
    indent: int
    parts: list[str]
    nested: list[Line] = field(default_factory=list)
    blank_seen: bool = False


@dataclass(frozen=True)
class ScenarioBody:
    """What a scenario body holds.

    Attributes:
        steps: Steps in order.
        description: Free text lines (dedented, no leading/trailing blanks).
        tags: Tags from tags comments.

    """

    steps: tuple[Step, ...]
    description: tuple[str, ...]
    tags: tuple[str, ...]


class Tolerate(Protocol):
    """Report a problem: an error, or (lenient) a warning ending in ``outcome``."""

    def __call__(self, line: int, message: str, outcome: str) -> None:
        """Raise the problem at ``line`` as an error, or warn."""


def parse_scenario_body(lines: list[Line], path: str, tolerate: Tolerate) -> ScenarioBody:
    """Read steps, nested step content, tags and free text from a scenario body.

    A top-level bullet starting with a step keyword starts a step. Lines indented
    at least two columns past that bullet belong to the step: a plain line right
    after the step text continues the text, anything else (nested bullets, fenced
    code, later paragraphs) becomes the step's data table or doc string. Every
    other line is description, except a top-level bullet that is not a step: that is
    reported (so that no step is lost silently) and, when tolerated, kept as description.

    Args:
        lines: The lines after the ``#### Scenario:`` header.
        path: Path shown in error messages.
        tolerate: Where a bullet that is not a step is reported.

    Returns:
        The parsed body.

    Raises:
        SpecError: A step has no text.

    """
    steps: list[Step] = []
    description: list[str] = []
    tags: list[str] = []
    current: _OpenStep | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            steps.append(_finish(current, path))
            current = None

    fence_to_step = False
    previous: Line | None = None
    for line in lines:
        if line.kind is Kind.FENCE:
            if previous is None or previous.kind is not Kind.FENCE:
                fence_to_step = current is not None and line.indent >= current.indent + NESTED
                if not fence_to_step:
                    close()
            if fence_to_step and current is not None:
                current.nested.append(line)
            else:
                description.append(line.text)
            previous = line
            continue
        previous = line
        if line.kind is Kind.TAGS:
            tags.extend(line.tags)
            continue
        if line.kind is Kind.COMMENT:
            continue
        if line.kind is Kind.BLANK:
            if current is not None:
                current.blank_seen = True
                current.nested.append(line)
            else:
                description.append("")
            continue
        if current is not None and line.indent >= current.indent + NESTED:
            if not current.nested and not current.blank_seen and list_item(line.text) is None:
                current.parts.append(line.text.strip())
            else:
                current.nested.append(line)
            continue
        close()
        bullet = step_bullet(line)
        if bullet is None:
            if is_bullet(line.text):
                tolerate(
                    line.no,
                    f"bullet {_quoted(line.text)} is not a step (start it with GIVEN, WHEN, "
                    "THEN, AND or BUT, or indent it under a step)",
                    "kept as description",
                )
            description.append(line.text)
        else:
            current = _OpenStep(bullet.keyword, line.no, bullet.indent, [bullet.text])
    close()
    return ScenarioBody(tuple(steps), tidy_text(description), tuple(tags))


def _quoted(text: str, limit: int = 60) -> str:
    text = text.strip()
    return f'"{text}"' if len(text) <= limit else f'"{text[: limit - 3]}..."'


def _finish(step: _OpenStep, path: str) -> Step:
    text = " ".join(part for part in step.parts if part).strip()
    if not text:
        raise SpecError(path, step.line, f"{step.keyword.upper()} step has no text")
    return Step(step.keyword, text, step.line, step_argument(step.nested))


def step_argument(nested: list[Line]) -> StepArgument | None:
    """Build a step's data table or doc string from the lines nested under it.

    A flat bullet list becomes a one-column data table; a single fenced block a
    doc string with the fence's language as media type; anything else a doc
    string (media type ``markdown``) holding the nested markdown as written.

    Args:
        nested: Lines indented under the step (blank lines included).

    Returns:
        The argument, or None when nothing is nested.

    """
    while nested and nested[-1].kind is Kind.BLANK:
        nested = nested[:-1]
    while nested and nested[0].kind is Kind.BLANK:
        nested = nested[1:]
    if not nested:
        return None
    block = textwrap.dedent("\n".join(line.text.rstrip() for line in nested)).split("\n")
    fenced = _single_fence(block)
    if fenced is not None:
        return fenced
    rows = _flat_list(block)
    if rows is not None:
        return DataTable(tuple((row,) for row in rows))
    return DocString("\n".join(block), "markdown")


def _single_fence(block: list[str]) -> DocString | None:
    marker = fence_opening(block[0])
    if marker is None or len(block) < 2:
        return None
    for index in range(1, len(block)):
        if fence_closes(block[index], marker):
            if index != len(block) - 1:
                return None
            break
    else:
        return None
    info = block[0].strip()[len(marker) :].strip()
    first = info.split()[0] if info else ""
    media = first if _MEDIA_TYPE.fullmatch(first) else ""
    fence_indent = indent_of(block[0])
    content = "\n".join(_remove_indent(inner, fence_indent) for inner in block[1:-1])
    return DocString(content, media)


def _remove_indent(text: str, width: int) -> str:
    removed = 0
    while removed < width and text[:1] in (" ", "\t"):
        removed += 4 if text[0] == "\t" else 1
        text = text[1:]
    return text


def _flat_list(block: list[str]) -> list[str] | None:
    rows: list[list[str]] = []
    for text in block:
        if not text.strip():
            continue
        if indent_of(text) == 0:
            item = list_item(text)
            if item is None:
                return None
            rows.append([item])
        elif rows and list_item(text) is None and fence_opening(text) is None:
            rows[-1].append(text.strip())
        else:
            return None
    return [" ".join(part for part in row if part) for row in rows]


def tidy_text(lines: list[str]) -> tuple[str, ...]:
    """Dedent free text, trim blank lines at both ends and squeeze blank runs."""
    if not lines:
        return ()
    dedented = textwrap.dedent("\n".join(text.rstrip() for text in lines)).split("\n")
    out: list[str] = []
    for text in dedented:
        if not text.strip():
            if out and out[-1] != "":
                out.append("")
            continue
        out.append(text)
    while out and out[-1] == "":
        out.pop()
    return tuple(out)
