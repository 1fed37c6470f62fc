"""The documentation against the code: ``docs/architecture.md`` names every command and package,
and every count a page states of the catalogue (scenarios, clauses, requirements, abilities) is
the catalogue's, computed here, so that a page drifts no more as scenarios are added.

A count in a section (a heading and the text up to the next), or under one, that carries a date
(``2026-12-06``), a commit (```15179ea40```) or an issue (``issue 27``) is a measurement or a
finding with its conditions, what a run found then, not a statement of the catalogue; so is one
on the benchmarks page or in a paragraph about a benchmark (``benchmarks/``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.main import build_parser
from skill_conformance.port import Ability

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "skill_conformance"
PAGES = sorted(
    path
    for path in [
        *ROOT.glob("*.md"),
        *ROOT.glob("docs/*.md"),
        ROOT / "features" / "README.md",
        ROOT / "tests" / "README.md",
    ]
    if path.name != "benchmarks.md"
)
COUNT = re.compile(r"(?<![\d,.])(\d[\d,]*) (scenarios|clauses|requirements|abilities)\b")
MEASURED = re.compile(r"\b20\d\d-\d\d-\d\d\b|`[0-9a-f]{7,40}`|\bissue \d+|benchmarks/")


def catalogue_counts() -> dict[str, int]:
    """How many of each the bundled specs hold."""
    catalogue = load_catalogue(specs_dir())
    return {
        "scenarios": len(catalogue.entries()),
        "clauses": len(catalogue.clauses()),
        "requirements": sum(len(c.requirements) for c in catalogue.capabilities),
        "abilities": len(Ability),
    }


def stated_counts(text: str) -> list[tuple[int, str, str]]:
    """Each count ``text`` states of the catalogue: the number, what of, and its paragraph."""
    found = []
    measured: list[tuple[int, bool]] = []  # the headings above: level, measured
    for section in re.split(r"\n(?=#+ )", text):
        level = len(section) - len(section.lstrip("#")) or 1
        measured = [(lvl, m) for lvl, m in measured if lvl < level]
        measured.append((level, bool(MEASURED.search(section))))
        if any(m for _, m in measured):
            continue
        for match in COUNT.finditer(section):
            paragraph = section[section.rfind("\n\n", 0, match.start()) + 1 :]
            number = int(match.group(1).replace(",", ""))
            found.append((number, match.group(2), " ".join(paragraph.split())[:120]))
    return found


def drifted(text: str, counts: dict[str, int]) -> list[str]:
    """The counts of ``text`` that are not the catalogue's."""
    return [
        f"{number} {what} (the catalogue: {counts[what]}) in: {where}"
        for number, what, where in stated_counts(text)
        if number != counts[what]
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_count_a_page_states_is_the_catalogues(page: Path) -> None:
    assert drifted(page.read_text("utf-8"), catalogue_counts()) == []


def test_a_drifted_count_is_found_and_a_measured_one_is_not() -> None:
    counts = {"scenarios": 7, "clauses": 3, "requirements": 2, "abilities": 1}
    text = (
        "The suite has 7 scenarios.\n\nIt checks 4 clauses.\n\n## Then\n\n"
        "On 2026-12-04: 145 scenarios.\n"
    )
    assert drifted(text, counts) == ["4 clauses (the catalogue: 3) in: It checks 4 clauses."]
    assert catalogue_counts()["scenarios"] > 0


def _commands() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def _packages() -> list[str]:
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def test_the_architecture_names_every_command_and_package() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    assert "run" in _commands()
    assert "reference" in _packages()
    missing = [f"command {c}" for c in _commands() if f"`{c}`" not in text]
    missing += [f"package {p}/" for p in _packages() if f"`{p}/`" not in text]
    assert missing == []
