"""Read the skill catalogue a framework shows its model, as the model would read it.

None of the three third-party implementations has a ``list_skills`` tool: each lists the
skills (name and description) in the instructions of every model request, in a format of its
own. These parsers turn that text into :class:`~skill_conformance.port.SkillListing` entries,
which is what ``list_skills`` is for, read from what the model really receives.
"""

from __future__ import annotations

import json
import re
from html import unescape

from skill_conformance.port import SkillListing

__all__ = [
    "deferred_capabilities",
    "markdown_skill_list",
    "markdown_skill_paths",
    "skill_load_warnings",
    "xml_skill_list",
]

_LOCAL = "local"
_DEFERRED_BLOCK = re.compile(
    r'<context id="capability:deferred_capabilities">\n(?P<body>.*?)\n</context>', re.DOTALL
)


def deferred_capabilities(instructions: str | None) -> list[SkillListing]:
    """The entries of pydantic-ai's deferred-capabilities block (``- id: description``).

    The block's first line is its own explanation; a description's continuation lines are
    indented by two spaces.
    """
    match = _DEFERRED_BLOCK.search(instructions or "")
    if match is None:
        return []
    entries: list[list[str]] = []
    for line in match["body"].splitlines()[1:]:
        if line.startswith("- ") and ": " in line:
            name, _, description = line[2:].partition(": ")
            entries.append([name, description])
        elif line.startswith("  ") and entries:
            entries[-1][1] += "\n" + line[2:]
    return [SkillListing(name=n, description=d, source=_LOCAL) for n, d in entries]


_MARKDOWN_ENTRY = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: (?P<description>.*)$", re.MULTILINE)


def markdown_skill_list(prompt: str | None) -> list[SkillListing]:
    """The entries of a Markdown skill list (``- **name**: description``), in order."""
    return [
        SkillListing(name=m["name"], description=m["description"], source=_LOCAL)
        for m in _MARKDOWN_ENTRY.finditer(prompt or "")
    ]


_MARKDOWN_PATH = re.compile(
    r"^- \*\*(?P<name>[^*]+)\*\*: .*?$(?:\n  -> .*$)*?\n  -> Read `(?P<path>[^`]+)`", re.MULTILINE
)


def markdown_skill_paths(prompt: str | None) -> dict[str, str]:
    """The path each entry of a Markdown skill list says to read (``-> Read `path```)."""
    return {m["name"]: m["path"] for m in _MARKDOWN_PATH.finditer(prompt or "")}


_XML_SKILL = re.compile(
    r"<skill>\s*<name>(?P<name>.*?)</name>\s*<description>(?P<description>.*?)</description>",
    re.DOTALL,
)


def xml_skill_list(prompt: str | None) -> list[SkillListing]:
    """The entries of an XML skill list (``<skill><name>..</name><description>..``), in order."""
    return [
        SkillListing(name=m["name"], description=m["description"], source=_LOCAL)
        for m in _XML_SKILL.finditer(prompt or "")
    ]


_WARNINGS_BLOCK = re.compile(
    r"<skill_load_warnings>\n(?P<body>.*?)\n</skill_load_warnings>", re.DOTALL
)


def skill_load_warnings(prompt: str | None) -> list[str]:
    """The entries of a ``<skill_load_warnings>`` block (``- "json text"`` lines), decoded."""
    match = _WARNINGS_BLOCK.search(prompt or "")
    if match is None:
        return []
    lines = []
    for line in match["body"].splitlines():
        if line.startswith("- "):
            try:
                lines.append(str(json.loads(unescape(line[2:]))))
            except json.JSONDecodeError:
                lines.append(line[2:])
    return lines
