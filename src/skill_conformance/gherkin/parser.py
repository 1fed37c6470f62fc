"""Parse one OpenSpec ``spec.md`` (baseline or change delta) into a :class:`Capability`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum

from skill_conformance.gherkin._body import parse_scenario_body, tidy_text
from skill_conformance.gherkin._markdown import (
    Kind,
    Line,
    classify,
    header,
    requirement_title,
    scenario_title,
    step_bullet,
)
from skill_conformance.gherkin.clauses import (
    CLAUSE_TAG,
    PROPERTY_TAG,
    Clause,
    Domain,
    domain_comment,
    points_only_comment,
    read_clauses,
    untestable_comment,
)
from skill_conformance.gherkin.errors import Diagnostic, SpecError
from skill_conformance.gherkin.ids import slugify
from skill_conformance.gherkin.model import Capability, Delta, Note, Requirement, Scenario, Step

_DELTA_HEADER = re.compile(r"^(?P<op>\w+)\s+Requirements$", re.IGNORECASE)
_UNKNOWN_DELTA = re.compile(r"^[A-Z]+\s+Requirements$")
_DELTAS = {
    "added": Delta.ADDED,
    "modified": Delta.MODIFIED,
    "removed": Delta.REMOVED,
    "renamed": Delta.RENAMED,
}
_RENAME = re.compile(
    r"^\s*(?:[-*+]\s*)?\**\s*(?P<which>FROM|TO)\s*(?::\s*\**|\**\s*:)\s*"
    r"`?\s*(?:###\s*Requirement:)?\s*(?P<name>.*?)\s*`?\s*$",
    re.IGNORECASE,
)
_REMOVED_BULLET = re.compile(r"^\s*[-*+]\s*`?\s*###\s*Requirement:\s*(?P<name>.*?)`?\s*$", re.I)


class _Section(Enum):
    NONE = "none"
    PURPOSE = "purpose"
    REQUIREMENTS = "requirements"
    REMOVED = "removed"
    RENAMED = "renamed"
    OTHER = "other"


_NOT_REQUIREMENTS = (_Section.NONE, _Section.PURPOSE, _Section.OTHER)


@dataclass
class _ScenarioBlock:
    title: str
    line: int
    body: list[Line] = field(default_factory=list)


@dataclass
class _NoteBlock:
    title: str
    line: int
    body: list[Line] = field(default_factory=list)


@dataclass
class _RequirementBlock:
    title: str
    line: int
    delta: Delta
    slug: str
    body: list[Line] = field(default_factory=list)
    children: list[Scenario | Note] = field(default_factory=list)
    renamed_from: str | None = None
    scenario_lines: dict[str, int] = field(default_factory=dict)
    """The line of each scenario slug taken in this requirement (kept as scenarios are added)."""
    sealed: bool = False
    description: tuple[str, ...] = ()
    tags: list[str] = field(default_factory=list)
    clauses: tuple[Clause, ...] = ()
    unmarked: tuple[tuple[int, str], ...] = ()
    domain_scenarios: list[Scenario] = field(default_factory=list)
    """The property scenarios of the clauses that state a domain, put after the written ones."""


@dataclass
class _Rename:
    old: str
    new: str
    line: int


@dataclass(frozen=True)
class ParseResult:
    """A parsed spec and the warnings met on the way.

    Attributes:
        capability: The parsed spec.
        warnings: Problems tolerated because of ``lenient`` (empty otherwise).

    """

    capability: Capability
    warnings: tuple[Diagnostic, ...] = ()


def parse_spec(source: str, *, name: str, path: str, lenient: bool = False) -> ParseResult:
    """Parse the text of a ``spec.md``.

    Args:
        source: The markdown text.
        name: Capability name.
        path: Path shown in messages and in the generated header.
        lenient: Turn the problems ``openspec validate`` lets through into
            warnings instead of errors (see docs/generator.md).

    Returns:
        The capability and any warnings.

    Raises:
        SpecError: The first problem found in the file.

    """
    return _Parser(name, path, lenient).parse(source)


class _Parser:
    """One-shot state machine over the classified lines of a spec."""

    def __init__(self, name: str, path: str, lenient: bool) -> None:
        self.name = name
        self.path = path
        self.lenient = lenient
        self.warnings: list[Diagnostic] = []
        self.title = ""
        self.purpose: list[str] = []
        self.feature_tags: list[str] = []
        self.entries: list[_RequirementBlock | _Rename] = []
        self.requirement_lines: dict[str, int] = {}
        """The line of each requirement slug taken (kept as requirements are added)."""
        self.clause_lines: dict[str, int] = {}
        """The line of each clause id marked so far."""
        self.section = _Section.NONE
        self.delta = Delta.BASELINE
        self.requirement: _RequirementBlock | None = None
        self.scenario: _ScenarioBlock | None = None
        self.note: _NoteBlock | None = None
        self.ignoring = False
        self.loose_header: tuple[int, str] | None = None
        self.pending_from: tuple[str, int] | None = None

    # -- reporting ---------------------------------------------------------

    def fail(self, line: int, message: str) -> SpecError:
        return SpecError(self.path, line, message)

    def tolerate(self, line: int, message: str, outcome: str) -> None:
        """Raise ``message`` as an error, or, when lenient, warn and say ``outcome``."""
        if not self.lenient:
            raise self.fail(line, message)
        self.warnings.append(Diagnostic(self.path, line, f"warning: {message}; {outcome}"))

    # -- driver ------------------------------------------------------------

    def parse(self, source: str) -> ParseResult:
        for line in classify(source, self.path):
            self.feed(line)
        self.close_requirement()
        self.close_section()
        requirements = self.resolve()
        self.check_not_empty(requirements)
        capability = Capability(
            name=self.name,
            source=self.path,
            title=self.title,
            purpose=tidy_text(self.purpose),
            tags=tuple(dict.fromkeys(self.feature_tags)),
            requirements=requirements,
        )
        return ParseResult(capability, tuple(self.warnings))

    def feed(self, line: Line) -> None:
        req_title = requirement_title(line)
        if req_title is not None and self.lenient and self.section in _NOT_REQUIREMENTS:
            self.tolerate(line.no, "requirement outside a Requirements section", "read as baseline")
            self.section, self.delta = _Section.REQUIREMENTS, Delta.BASELINE
        if req_title is not None and self.section in (_Section.REQUIREMENTS, _Section.REMOVED):
            self.start_requirement(req_title, line.no)
            return
        scen_title = scenario_title(line)
        if scen_title is not None:
            self.start_scenario(scen_title, line)
            return
        head = header(line) if req_title is None else None
        if head is not None and self.on_header(head[0], head[1], line):
            return
        self.on_line(line)

    def check_not_empty(self, requirements: tuple[Requirement, ...]) -> None:
        """A spec must hold a requirement, and each requirement kept a scenario."""
        if not requirements:
            self.tolerate(1, "spec has no requirements", "an empty feature is written")
        for requirement in requirements:
            if requirement.delta in (Delta.REMOVED, Delta.RENAMED):
                continue  # kept for traceability, never executable
            if not any(isinstance(child, Scenario) for child in requirement.children):
                self.tolerate(
                    requirement.line,
                    f'requirement "{requirement.title}" has no scenarios',
                    "kept without scenarios",
                )

    # -- headers -----------------------------------------------------------

    def on_header(self, level: int, text: str, line: Line) -> bool:
        """Handle a structural header; return False when it is just text."""
        if level == 1:
            self.close_requirement()
            self.close_section()
            self.title = self.title or text
            self.section = _Section.OTHER
            return True
        if level == 2:
            self.close_requirement()
            self.close_section()
            self.open_section(text, line.no)
            return True
        if level == 3 and self.section is _Section.REQUIREMENTS:
            self.close_requirement()
            if self.lenient and text:
                self.tolerate(
                    line.no, f'"### {text}" is not "### Requirement: <title>"', "read as one"
                )
                self.start_requirement(text, line.no)
            else:
                self.ignoring = True
                self.loose_header = (line.no, text)
            return True
        if level == 3 and self.section is _Section.REMOVED:
            self.close_requirement()
            self.ignoring = True
            return True
        if level == 4 and self.requirement is not None and not self.ignoring:
            self.close_child()
            if self.section is _Section.REMOVED:
                self.ignoring = True
            else:
                self.note = _NoteBlock(text, line.no)
            return True
        return False

    def open_section(self, text: str, no: int) -> None:
        lowered = text.lower()
        self.delta = Delta.BASELINE
        if lowered == "purpose":
            self.section = _Section.PURPOSE
        elif lowered == "requirements":
            self.section = _Section.REQUIREMENTS
        elif (match := _DELTA_HEADER.match(text)) and match.group("op").lower() in _DELTAS:
            self.delta = _DELTAS[match.group("op").lower()]
            self.section = {
                Delta.REMOVED: _Section.REMOVED,
                Delta.RENAMED: _Section.RENAMED,
            }.get(self.delta, _Section.REQUIREMENTS)
        else:
            self.section = _Section.OTHER
            if _UNKNOWN_DELTA.match(text):
                self.tolerate(
                    no,
                    f'unknown delta header "## {text}" '
                    "(expected ADDED, MODIFIED, REMOVED or RENAMED Requirements)",
                    "section read as text",
                )

    def close_section(self) -> None:
        if self.pending_from is not None:
            old, no = self.pending_from
            self.pending_from = None
            raise self.fail(no, f'RENAMED entry "FROM: {old}" has no TO')

    # -- requirements and scenarios ---------------------------------------

    def start_requirement(self, title: str, no: int) -> None:
        self.close_requirement()
        if not title:
            raise self.fail(no, "requirement has no title")
        slug = slugify(title)
        if not slug:
            raise self.fail(no, f'requirement title "{title}" has no letters or digits')
        taken = self.requirement_lines
        if slug in taken:
            self.tolerate(
                no,
                f'duplicate requirement "{title}" (same id as line {taken[slug]})',
                "given a numbered id",
            )
            slug = _next_free(slug, taken)
        taken[slug] = no
        self.requirement = _RequirementBlock(title, no, self.delta, slug)
        self.entries.append(self.requirement)

    def start_scenario(self, title: str, line: Line) -> None:
        if self.section is _Section.REMOVED and self.requirement is not None:
            self.close_child()
            self.requirement.children.append(Note(f"Removed scenario: {title}", line.no))
            self.ignoring = True
            return
        if self.section is not _Section.REQUIREMENTS:
            self.close_child()
            self.tolerate(line.no, "scenario outside a Requirements section", "skipped")
            self.ignoring = True
            return
        if self.requirement is None or self.ignoring:
            where = f' (under "### {self.loose_header[1]}")' if self.loose_header else ""
            self.tolerate(line.no, f"scenario outside a requirement{where}", "skipped")
            self.close_child()
            self.ignoring = True
            return
        self.close_child()
        if not title:
            raise self.fail(line.no, "scenario has no title")
        self.scenario = _ScenarioBlock(title, line.no)

    def on_line(self, line: Line) -> None:
        if self.section is _Section.REMOVED and line.kind is Kind.TEXT:
            bullet = _REMOVED_BULLET.match(line.text)
            if bullet is not None:
                self.start_requirement(bullet.group("name").strip(), line.no)
                self.close_requirement()
                return
        if self.ignoring:
            return
        if self.section is _Section.RENAMED:
            self.on_renamed_line(line)
            return
        if self.section in (_Section.NONE, _Section.PURPOSE) and line.kind is Kind.TAGS:
            self.feature_tags.extend(line.tags)
            return
        if self.section is _Section.PURPOSE:
            if line.kind is not Kind.COMMENT:
                self.purpose.append(line.text)
            return
        if self.scenario is not None:
            self.scenario.body.append(line)
        elif self.note is not None:
            self.note.body.append(line)
        elif self.requirement is not None:
            self.requirement.body.append(line)

    def on_renamed_line(self, line: Line) -> None:
        match = _RENAME.match(line.text) if line.kind is Kind.TEXT else None
        if match is None:
            return
        name = match.group("name").strip()
        if not name:
            raise self.fail(line.no, f"RENAMED {match.group('which').upper()} names no requirement")
        if match.group("which").upper() == "FROM":
            if self.pending_from is not None:
                old, no = self.pending_from
                raise self.fail(no, f'RENAMED entry "FROM: {old}" has no TO')
            self.pending_from = (name, line.no)
            return
        if self.pending_from is None:
            raise self.fail(line.no, f'RENAMED entry "TO: {name}" has no FROM')
        old, _ = self.pending_from
        self.pending_from = None
        self.entries.append(_Rename(old, name, line.no))

    def close_child(self) -> None:
        self.ignoring = False
        if self.requirement is not None:
            self.seal_body(self.requirement)
        if self.scenario is not None and self.requirement is not None:
            self.requirement.children.append(self.finish_scenario(self.scenario, self.requirement))
        if self.note is not None and self.requirement is not None:
            self.requirement.children.append(self.finish_note(self.note))
        self.scenario = None
        self.note = None

    def close_requirement(self) -> None:
        self.close_child()
        self.ignoring = False
        self.loose_header = None
        self.requirement = None

    def finish_scenario(self, block: _ScenarioBlock, req: _RequirementBlock) -> Scenario:
        for line in block.body:
            if line.kind is Kind.COMMENT and domain_comment(line.text, line.no) is not None:
                raise self.fail(
                    line.no, "domain line inside a scenario; put it in its requirement's text"
                )
        body = parse_scenario_body(block.body, self.path, self.tolerate)
        slug = slugify(block.title)
        if not slug:
            raise self.fail(block.line, f'scenario title "{block.title}" has no letters or digits')
        title = block.title
        taken = req.scenario_lines
        if slug in taken:
            self.tolerate(
                block.line,
                f'duplicate scenario "{block.title}" in requirement "{req.title}" '
                f"(same id as line {taken[slug]})",
                "given a numbered title and id",
            )
            slug = _next_free(slug, taken)
            title = f"{title} ({slug.rsplit('-', 1)[1]})"
        taken[slug] = block.line
        if not body.steps:
            self.tolerate(block.line, f'scenario "{block.title}" has no steps', "kept")
        elif not any(step.keyword == "Then" for step in body.steps):
            self.tolerate(block.line, f'scenario "{block.title}" has no THEN step', "kept")
        if body.steps and body.steps[0].keyword in ("And", "But"):
            first = body.steps[0]
            raise self.fail(
                first.line, f"first step is {first.keyword.upper()}; use GIVEN, WHEN or THEN"
            )
        return Scenario(
            title=title,
            slug=slug,
            line=block.line,
            steps=body.steps,
            tags=tuple(dict.fromkeys(body.tags)),
            description=body.description,
        )

    def finish_note(self, block: _NoteBlock) -> Note:
        steps = [line for line in block.body if (s := step_bullet(line)) and s.bold]
        if steps:
            self.tolerate(
                block.line,
                f'"#### {block.title}" has steps but is not "#### Scenario: <title>"',
                "kept as a comment, steps skipped",
            )
        return Note(f"Not a scenario: {block.title}", block.line)

    # -- assembly ----------------------------------------------------------

    def seal_body(self, block: _RequirementBlock) -> None:
        """Read the normative text and tags of a requirement, once."""
        if block.sealed:
            return
        block.sealed = True
        text: list[str] = []
        prose: list[tuple[int, str] | None] = []
        untestable: dict[str, tuple[int, str]] = {}
        domains: dict[str, Domain] = {}
        points_only: dict[str, tuple[int, str]] = {}
        for line in block.body:
            if line.kind is Kind.TAGS:
                block.tags.extend(line.tags)
            elif line.kind is Kind.COMMENT:
                if (found := untestable_comment(line.text)) is not None:
                    untestable[found[0]] = (line.no, found[1])
                elif (domain := domain_comment(line.text, line.no)) is not None:
                    domains.update(dict.fromkeys(domain[0], domain[1]))
                elif (points := points_only_comment(line.text)) is not None:
                    points_only[points[0]] = (line.no, points[1])
            else:
                if block.delta is not Delta.REMOVED and (s := step_bullet(line)) and s.bold:
                    self.tolerate(line.no, "step bullet outside a scenario", "kept as text")
                text.append(line.text)
                prose.append((line.no, line.text) if line.kind is Kind.TEXT else None)
        block.description = tidy_text(text)
        self.read_clauses(block, prose, untestable)
        self.attach_domains(block, domains, points_only)

    def attach_domains(
        self,
        block: _RequirementBlock,
        domains: dict[str, Domain],
        points_only: dict[str, tuple[int, str]],
    ) -> None:
        """Give each clause the domain its requirement states, and its property scenario."""
        clauses = []
        served: dict[int, list[str]] = {}
        for clause in block.clauses:
            domain = domains.pop(clause.id, None)
            no, reason = points_only.pop(clause.id, (0, ""))
            if no and not reason:
                raise self.fail(no, f"points-only clause [{clause.id}] gives no reason")
            if no and (domain is None or domain.property):
                raise self.fail(no, f"points-only: [{clause.id}] has no domain without a property")
            clauses.append(replace(clause, domain=domain, points_only=reason))
            if domain is not None and domain.property:
                served.setdefault(domain.line, []).append(clause.id)
        for ids in served.values():
            domain = next(c.domain for c in clauses if c.id == ids[0])
            assert domain is not None
            self.add_property_scenario(block, ids, domain)
        for name, domain in domains.items():
            raise self.fail(domain.line, f"domain: [{name}] is no clause of this requirement")
        for name, (no, _) in points_only.items():
            raise self.fail(no, f"points-only: [{name}] is no clause of this requirement")
        block.clauses = tuple(clauses)

    def add_property_scenario(
        self, block: _RequirementBlock, ids: list[str], domain: Domain
    ) -> None:
        """The scenario checking the clauses ``ids`` over ``domain`` by its property."""
        title = f"[{ids[0]}] holds over its domain"
        slug = slugify(title)
        if slug in block.scenario_lines:
            raise self.fail(
                domain.line,
                f'property scenario "{title}" has the id of line {block.scenario_lines[slug]}',
            )
        block.scenario_lines[slug] = domain.line
        block.domain_scenarios.append(
            Scenario(
                title=title,
                slug=slug,
                line=domain.line,
                steps=(
                    Step("Given", f"the domain of `{ids[0]}`", domain.line),
                    Step(
                        "When",
                        f"the property `{domain.property}` is checked over generated examples",
                        domain.line,
                    ),
                    Step("Then", "it holds for every example", domain.line),
                ),
                tags=tuple(
                    dict.fromkeys(
                        (
                            *(f"{CLAUSE_TAG}{name}" for name in ids),
                            f"{PROPERTY_TAG}{domain.property}",
                            *domain.tags,
                        )
                    )
                ),
                description=(f"Domain: {domain.text}",),
            )
        )

    def read_clauses(
        self,
        block: _RequirementBlock,
        prose: list[tuple[int, str] | None],
        untestable: dict[str, tuple[int, str]],
    ) -> None:
        """Take the clauses a requirement's text marks, with the reasons some are untestable."""
        reading = read_clauses(prose)
        for no, message in reading.problems:
            raise self.fail(no, message)
        clauses = []
        for clause in reading.clauses:
            first = self.clause_lines.get(clause.id)
            if first is not None:
                raise self.fail(
                    clause.line, f"clause [{clause.id}] is marked twice (also line {first})"
                )
            self.clause_lines[clause.id] = clause.line
            no, reason = untestable.pop(clause.id, (0, ""))
            if no and not reason:
                raise self.fail(no, f"untestable clause [{clause.id}] gives no reason")
            clauses.append(Clause(clause.id, clause.text, clause.line, reason))
        for name, (no, _) in untestable.items():
            raise self.fail(no, f"untestable: [{name}] is no clause of this requirement")
        block.clauses = tuple(clauses)
        block.unmarked = reading.unmarked

    def resolve(self) -> tuple[Requirement, ...]:
        """Attach each rename to the requirement it names, or keep it as its own entry."""
        blocks = {
            e.slug: e
            for e in self.entries
            if isinstance(e, _RequirementBlock) and e.delta is not Delta.REMOVED
        }
        taken = {e.slug: e.line for e in self.entries if isinstance(e, _RequirementBlock)}
        standalone: set[int] = set()
        for rename in (e for e in self.entries if isinstance(e, _Rename)):
            new_slug = slugify(rename.new)
            if not new_slug or not slugify(rename.old):
                raise self.fail(rename.line, "RENAMED title has no letters or digits")
            target = blocks.get(new_slug)
            if target is None:
                if new_slug in taken:
                    raise self.fail(
                        rename.line,
                        f'duplicate requirement "{rename.new}" (same id as line {taken[new_slug]})',
                    )
                taken[new_slug] = rename.line
                standalone.add(id(rename))
            elif target.renamed_from is None:
                target.renamed_from = rename.old
            else:
                raise self.fail(
                    rename.line, f'requirement "{rename.new}" is the target of two renames'
                )
        return tuple(
            _requirement(e) if isinstance(e, _RequirementBlock) else _renamed_only(e)
            for e in self.entries
            if isinstance(e, _RequirementBlock) or id(e) in standalone
        )


def _requirement(block: _RequirementBlock) -> Requirement:
    return Requirement(
        title=block.title,
        slug=block.slug,
        line=block.line,
        delta=block.delta,
        description=block.description,
        tags=tuple(dict.fromkeys(block.tags)),
        children=(*block.children, *block.domain_scenarios),
        renamed_from=block.renamed_from,
        clauses=block.clauses,
        unmarked=block.unmarked,
    )


def _renamed_only(rename: _Rename) -> Requirement:
    return Requirement(
        title=rename.new,
        slug=slugify(rename.new),
        line=rename.line,
        delta=Delta.RENAMED,
        description=(f'Renamed from "{rename.old}".',),
        renamed_from=rename.old,
    )


def _next_free(slug: str, taken: dict[str, int]) -> str:
    number = 2
    while f"{slug}-{number}" in taken:
        number += 1
    return f"{slug}-{number}"
