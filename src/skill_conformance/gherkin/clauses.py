"""Normative clauses: the ``[id]`` markers in a requirement's text and the sentences they open.

A requirement's text is split into sentences (a ``.``, ``!`` or ``?`` followed by white space or
the end, outside code spans and parentheses; a blank line also ends one). A marker such as
``[loading.name.chars]`` opens a clause, which runs to the next marker or the end of its sentence.
Every sentence holding ``SHALL`` or ``MUST`` must have its normative part inside a clause: the
text of a sentence before its first marker must not hold either word. A clause may continue the
SHALL of an earlier clause of its sentence (``[a.b] it SHALL offer x, [a.c] y and [a.d] z.``).
The id is written in the spec, not derived from a title, so it survives any rewording around it;
scenarios name the clauses they check with ``@clause:<id>`` tags.

A clause no scenario can check says why on a comment line of its requirement's text:
``<!-- untestable: <id>: <reason> -->``.

A clause that speaks of a domain (a name of 1 to 64 characters, every form of a field) says so on a
comment line of its requirement:
``<!-- domain: <id>[, <id>...] by <property> [@needs:x ...]: <domain> -->``,
where ``<domain>`` says what the clause ranges over and its edges, and ``<property>`` names the
property (in ``skill_conformance.steps.properties``) that checks it over generated inputs; the
generator adds a property scenario for it. A domain given without ``by <property>`` is checked at
points only, and says why: ``<!-- points-only: <id>: <reason> -->``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skill_conformance.gherkin.errors import Diagnostic

__all__ = [
    "CLAUSE_TAG",
    "PROPERTY_TAG",
    "Clause",
    "ClauseReading",
    "Domain",
    "clause_references",
    "domain_comment",
    "is_normative",
    "points_only_comment",
    "read_clauses",
    "untestable_comment",
]

CLAUSE_TAG = "@clause:"
"""The prefix of a scenario tag naming a clause the scenario checks."""

_ID = r"[a-z][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+"
_MARKER = re.compile(rf"\[(?P<id>{_ID})\]")
_CLAUSE_ID = re.compile(_ID)
_NORMATIVE = re.compile(r"\b(?:SHALL|MUST)\b")
_UNTESTABLE = re.compile(
    r"^\s*<!--\s*untestable\s*:\s*(?P<id>[^\s:]+)\s*:\s*(?P<reason>.*?)\s*-->\s*$", re.IGNORECASE
)
_DOMAIN = re.compile(
    r"^\s*<!--\s*domain\s*:\s*(?P<ids>[^\s:,]+(?:\s*,\s*[^\s:,]+)*)(?:\s+by\s+(?P<property>[a-z][a-z0-9-]*))?"
    r"(?P<tags>(?:\s+@[^\s:@#]+:[^\s@#]+)*)\s*:\s*(?P<text>.*?)\s*-->\s*$",
    re.IGNORECASE,
)
_POINTS_ONLY = re.compile(
    r"^\s*<!--\s*points-only\s*:\s*(?P<id>[^\s:]+)\s*:\s*(?P<reason>.*?)\s*-->\s*$",
    re.IGNORECASE,
)
_ENDS = ".!?"

PROPERTY_TAG = "@property:"
"""The prefix of the tag of a property scenario, naming the property it runs."""


@dataclass(frozen=True)
class Domain:
    """What a clause ranges over, as its requirement's ``<!-- domain: ... -->`` line says.

    Attributes:
        text: What the clause ranges over, and its edges, in words.
        property: The property that checks it over generated inputs; empty when none does.
        tags: Further tags of the property scenario (``@needs:<ability>``).
        line: The line of the comment in the spec.

    """

    text: str
    property: str = ""
    tags: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class Clause:
    """One normative clause of a requirement.

    Attributes:
        id: The id written in its marker (``loading.name.chars``).
        text: The clause's text, its marker left out, on one line.
        line: The line of its marker in the spec.
        untestable: Why no scenario can check it; empty when one must.
        domain: What it ranges over, when its spec says so.
        points_only: Why its domain is checked at points only (no property); empty otherwise.

    """

    id: str
    text: str
    line: int
    untestable: str = ""
    domain: Domain | None = None
    points_only: str = ""


@dataclass(frozen=True)
class ClauseReading:
    """What :func:`read_clauses` found in a requirement's text.

    Attributes:
        clauses: The clauses, in order.
        unmarked: ``(line, sentence)`` of each normative sentence part that opens no clause.
        problems: ``(line, message)`` of each malformed marker use.

    """

    clauses: tuple[Clause, ...]
    unmarked: tuple[tuple[int, str], ...]
    problems: tuple[tuple[int, str], ...]


def is_normative(text: str) -> bool:
    """Whether ``text`` holds ``SHALL`` or ``MUST`` as a word, as ``openspec validate`` reads it."""
    return _NORMATIVE.search(text) is not None


def untestable_comment(text: str) -> tuple[str, str] | None:
    """``(id, reason)`` if ``text`` is an ``<!-- untestable: id: reason -->`` line."""
    match = _UNTESTABLE.match(text)
    return None if match is None else (match.group("id"), match.group("reason"))


def domain_comment(text: str, line: int) -> tuple[tuple[str, ...], Domain] | None:
    """``(ids, domain)`` if ``text`` is a domain line.

    ``<!-- domain: id[, id...] [by property] [tags]: text -->``: one domain, and one property, may
    serve several clauses of a requirement.
    """
    match = _DOMAIN.match(text)
    if match is None:
        return None
    ids = tuple(part.strip() for part in match.group("ids").split(","))
    return ids, Domain(
        text=match.group("text"),
        property=(match.group("property") or "").lower(),
        tags=tuple(match.group("tags").split()),
        line=line,
    )


def points_only_comment(text: str) -> tuple[str, str] | None:
    """``(id, reason)`` if ``text`` is a ``<!-- points-only: id: reason -->`` line."""
    match = _POINTS_ONLY.match(text)
    return None if match is None else (match.group("id"), match.group("reason"))


@dataclass
class _Segment:
    line: int
    clause: str | None
    parts: list[str]

    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def read_clauses(lines: Sequence[tuple[int, str] | None]) -> ClauseReading:
    """Read the clauses of a requirement's text.

    Args:
        lines: ``(line number, text)`` of each line of prose, in order; ``None`` for a paragraph
            break (a blank line, a code block).

    Returns:
        The clauses, the normative parts no marker opens, and misused markers.

    """
    reader = _Reader()
    for entry in lines:
        if entry is None:
            reader.end_sentence()
        else:
            reader.feed(*entry)
    reader.end_sentence()
    return ClauseReading(tuple(reader.clauses), tuple(reader.unmarked), tuple(reader.problems))


class _Reader:
    """Scans prose character by character, code spans and parentheses kept whole."""

    def __init__(self) -> None:
        self.clauses: list[Clause] = []
        self.unmarked: list[tuple[int, str]] = []
        self.problems: list[tuple[int, str]] = []
        self.sentence: list[_Segment] = []
        self.in_code = False
        self.depth = 0

    def feed(self, number: int, text: str) -> None:
        if self.sentence:
            self.sentence[-1].parts.append(" ")
        index = 0
        while index < len(text):
            char = text[index]
            marker = None if self.in_code else _MARKER.match(text, index)
            if marker is not None:
                self.sentence.append(_Segment(number, marker.group("id"), []))
                index = marker.end()
                continue
            if not self.sentence:
                self.sentence.append(_Segment(number, None, []))
            self.sentence[-1].parts.append(char)
            index += 1
            if char == "`":
                self.in_code = not self.in_code
            elif self.in_code:
                continue
            elif char == "(":
                self.depth += 1
            elif char == ")":
                self.depth = max(0, self.depth - 1)
            elif (
                char in _ENDS and self.depth == 0 and (index == len(text) or text[index].isspace())
            ):
                self.end_sentence()

    def end_sentence(self) -> None:
        """Close the sentence: a clause in it may continue a SHALL or MUST written before it."""
        segments, self.sentence = self.sentence, []
        self.in_code = False
        self.depth = 0
        normative = any(is_normative(segment.text()) for segment in segments)
        for segment in segments:
            text = segment.text()
            if segment.clause is None:
                if is_normative(text):
                    self.unmarked.append((segment.line, text))
                continue
            if not normative:
                self.problems.append(
                    (segment.line, f"clause [{segment.clause}] holds no SHALL or MUST: {text!r}")
                )
            self.clauses.append(Clause(segment.clause, text, segment.line))


def clause_references(
    clauses: Iterable[tuple[str, Clause]], scenarios: Iterable[tuple[str, int, Sequence[str]]]
) -> list[Diagnostic]:
    """Problems of a whole tree's clause ids: one defined twice, a tag naming none.

    Args:
        clauses: ``(spec path, clause)`` of every clause of the tree.
        scenarios: ``(spec path, line, tags)`` of every scenario of the tree.

    Returns:
        One diagnostic per problem, in the order met.

    """
    defined: dict[str, tuple[str, int]] = {}
    problems: list[Diagnostic] = []
    for path, clause in clauses:
        first = defined.get(clause.id)
        if first is not None:
            where = f"{first[0]}:{first[1]}"
            problems.append(
                Diagnostic(path, clause.line, f"clause [{clause.id}] is also at {where}")
            )
            continue
        defined[clause.id] = (path, clause.line)
    for path, line, tags in scenarios:
        for tag in tags:
            if not tag.startswith(CLAUSE_TAG):
                continue
            name = tag[len(CLAUSE_TAG) :]
            if _CLAUSE_ID.fullmatch(name) is None:
                problems.append(Diagnostic(path, line, f"{tag} is not a clause id (want a.b[.c])"))
            elif name not in defined:
                problems.append(Diagnostic(path, line, f"{tag} names no clause of these specs"))
    return problems
