"""The scenarios of an OpenSpec tree, read with the generator's parser, for report and trace.

Each :class:`Entry` carries what the generated feature shows for one scenario (its ``@id``, its
unique name, its steps) and the requirement it belongs to, so a results file can be matched to
the text of the specs by ``{capability}/{id}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skill_conformance.gherkin import SpecError, discover, parse_spec
from skill_conformance.gherkin.clauses import Clause
from skill_conformance.gherkin.errors import Diagnostic
from skill_conformance.gherkin.generate import read_spec, tree_problems
from skill_conformance.gherkin.ids import scenario_id
from skill_conformance.gherkin.model import Capability, Delta, Requirement, Scenario
from skill_conformance.gherkin.render import unique_names

__all__ = ["Catalogue", "ClauseEntry", "Entry", "load_catalogue", "specs_of"]


@dataclass(frozen=True)
class Entry:
    """One scenario of the specs, as the generated feature names it."""

    capability: str
    requirement: Requirement
    scenario: Scenario
    id: str
    name: str

    @property
    def key(self) -> str:
        """``{capability}/{id}``: the key results and expectations files use."""
        return f"{self.capability}/{self.id}"


@dataclass(frozen=True)
class ClauseEntry:
    """One normative clause of the specs and the scenarios that check it."""

    capability: str
    requirement: Requirement
    clause: Clause
    checked_by: tuple[Entry, ...]

    @property
    def checked(self) -> bool:
        """Whether a scenario checks it."""
        return bool(self.checked_by)


@dataclass(frozen=True)
class Catalogue:
    """Every capability of a spec tree, and the specs that could not be read."""

    capabilities: tuple[Capability, ...]
    problems: tuple[Diagnostic, ...] = ()
    unreadable: tuple[Diagnostic, ...] = ()
    """The problems of specs left out because they could not be read or parsed."""

    def entries(self) -> list[Entry]:
        """Every executable scenario (removed requirements have none), in spec order."""
        found = []
        for capability in self.capabilities:
            names = unique_names(capability)
            for requirement in capability.requirements:
                if requirement.delta is Delta.REMOVED:
                    continue
                for scenario in requirement.scenarios:
                    found.append(
                        Entry(
                            capability=capability.name,
                            requirement=requirement,
                            scenario=scenario,
                            id=scenario_id(requirement.slug, scenario.slug),
                            name=names[(requirement.slug, scenario.slug)],
                        )
                    )
        return found

    def clauses(self) -> list[ClauseEntry]:
        """Every clause of a requirement not removed, in spec order, with its checking scenarios."""
        checking: dict[str, list[Entry]] = {}
        for entry in self.entries():
            for clause in entry.scenario.clauses:
                checking.setdefault(clause, []).append(entry)
        return [
            ClauseEntry(capability.name, requirement, clause, tuple(checking.get(clause.id, ())))
            for capability in self.capabilities
            for requirement in capability.requirements
            if requirement.delta is not Delta.REMOVED
            for clause in requirement.clauses
        ]


def specs_of(tree: Path) -> Path:
    """The specs directory of ``tree``: ``tree/specs`` when there is one, else ``tree`` itself."""
    return tree / "specs" if (tree / "specs").is_dir() else tree


def load_catalogue(specs: Path, *, lenient: bool = False) -> Catalogue:
    """Parse every ``spec.md`` under ``specs``; a spec that fails to parse is a problem, not fatal.

    Raises:
        skill_conformance.gherkin.UsageError: ``specs`` is not a directory or holds no spec.

    """
    capabilities = []
    problems = []
    for spec in discover(specs, specs):
        try:
            source = read_spec(spec.path).decode("utf-8")
            parsed = parse_spec(source, name=spec.capability, path=spec.display, lenient=lenient)
        except SpecError as error:
            problems.append(error.diagnostic)
            continue
        except (OSError, UnicodeDecodeError) as error:
            reason = error.reason if isinstance(error, UnicodeDecodeError) else error.strerror
            problems.append(Diagnostic(spec.display, 1, f"cannot read: {reason or error}"))
            continue
        capabilities.append(parsed.capability)
    unreadable = tuple(problems)
    if not problems:  # a spec that did not parse would make its clauses look unknown
        problems.extend(tree_problems(capabilities))
    return Catalogue(tuple(capabilities), tuple(problems), unreadable)
