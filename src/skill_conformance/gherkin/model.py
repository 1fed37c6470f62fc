"""The parsed form of an OpenSpec capability spec, as the renderer needs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from skill_conformance.gherkin.clauses import CLAUSE_TAG, Clause


class Delta(StrEnum):
    """Which section a requirement came from; rendered as ``@delta:<value>``."""

    BASELINE = "baseline"
    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"
    RENAMED = "renamed"


@dataclass(frozen=True)
class DocString:
    """A Gherkin doc string attached to a step.

    Attributes:
        content: The text, lines joined with newlines.
        media_type: Media type after the opening delimiter (may be empty).

    """

    content: str
    media_type: str = ""


@dataclass(frozen=True)
class DataTable:
    """A Gherkin data table attached to a step.

    Attributes:
        rows: Cell values, row by row; every row has the same number of cells.

    """

    rows: tuple[tuple[str, ...], ...]


StepArgument = DocString | DataTable


@dataclass(frozen=True)
class Step:
    """One step of a scenario.

    Attributes:
        keyword: ``Given``, ``When``, ``Then``, ``And`` or ``But``.
        text: The step text, on one line.
        line: Line of the step bullet in the spec.
        argument: Doc string or data table built from nested content, if any.

    """

    keyword: str
    text: str
    line: int
    argument: StepArgument | None = None


@dataclass(frozen=True)
class Scenario:
    """A ``#### Scenario:`` block.

    Attributes:
        title: The scenario title.
        slug: The slug used in the scenario's id.
        line: Line of the scenario header.
        steps: Steps in order.
        tags: Extra tags from a ``<!-- tags: ... -->`` comment.
        description: Free text lines of the body that are not steps.

    """

    title: str
    slug: str
    line: int
    steps: tuple[Step, ...] = ()
    tags: tuple[str, ...] = ()
    description: tuple[str, ...] = ()

    @property
    def clauses(self) -> tuple[str, ...]:
        """The ids of the clauses this scenario checks (its ``@clause:`` tags)."""
        return tuple(tag[len(CLAUSE_TAG) :] for tag in self.tags if tag.startswith(CLAUSE_TAG))


@dataclass(frozen=True)
class Note:
    """A non-executable entry kept in the output as a comment.

    Attributes:
        text: The comment text, on one line.
        line: Line in the spec it comes from.

    """

    text: str
    line: int


@dataclass(frozen=True)
class Requirement:
    """A ``### Requirement:`` block, or an entry of a REMOVED/RENAMED section.

    Attributes:
        title: The requirement title (the new title for a rename).
        slug: The slug used in ``@requirement:`` and scenario ids.
        line: Line of the header or entry.
        delta: Section the requirement came from.
        description: Normative text lines.
        tags: Extra tags from a ``<!-- tags: ... -->`` comment.
        children: Scenarios and notes, in spec order.
        renamed_from: Old title when the requirement was renamed, else None.
        clauses: The normative clauses its text marks (``[id]``), in order.
        unmarked: ``(line, text)`` of each normative sentence part no marker opens.

    """

    title: str
    slug: str
    line: int
    delta: Delta
    description: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    children: tuple[Scenario | Note, ...] = ()
    renamed_from: str | None = None
    clauses: tuple[Clause, ...] = ()
    unmarked: tuple[tuple[int, str], ...] = ()

    @property
    def scenarios(self) -> tuple[Scenario, ...]:
        """The scenarios among the children."""
        return tuple(c for c in self.children if isinstance(c, Scenario))


@dataclass(frozen=True)
class Capability:
    """One ``spec.md``: one generated feature file.

    Attributes:
        name: Capability name (``Feature:`` title and file stem).
        source: Path of the spec as written into the header comment.
        title: The ``# Title`` of the spec, if any.
        purpose: Lines of the ``## Purpose`` section.
        tags: Extra feature tags from a tags comment before the first requirement.
        requirements: Requirements in spec order.

    """

    name: str
    source: str
    title: str = ""
    purpose: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    requirements: tuple[Requirement, ...] = field(default=())
