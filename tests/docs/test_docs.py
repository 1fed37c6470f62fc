"""The documentation: every relative link resolves, and the README stays one page for users."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skill_conformance.verdicts.results import schema

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    path
    for path in [*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("tests/**/*.md")]
    if "__snapshots__" not in path.parts
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text("utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def _links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text("utf-8")))


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file, or whose anchor in a Markdown file, is missing."""
    broken = []
    for target in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        path_part, _, anchor = target.partition("#")
        path = (page.parent / path_part).resolve() if path_part else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target}: no heading with that anchor")
    return broken


def test_the_pages_are_found() -> None:
    names = {page.relative_to(ROOT).as_posix() for page in PAGES}
    assert {"README.md", "docs/ci-gate.md", "docs/architecture.md", "tests/README.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Title\n\n## Supported versions\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md) [ok](other.md#supported-versions) [ok](#here) [web](https://example.org)\n"
        "# Here\n[gone](missing.md) [gone](other.md#unsupported)\n"
        "```\n[not a link](inside-a-fence.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#unsupported: no heading with that anchor",
    ]


def test_the_readme_is_one_page_without_lab_notes() -> None:
    """A newcomer reads it in two minutes: no dated measurements, no tables of results."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 100
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", text) == []
    assert re.findall(r"\b\d+(?:\.\d+)? ?(?:ms|s|min)\b", text) == []
    for heading in ("## Install", "## Run it", "## Run it against your implementation"):
        assert heading in text


def test_the_published_results_schema_is_the_one_the_package_checks() -> None:
    published = json.loads((ROOT / "docs" / "results.schema.json").read_text("utf-8"))
    assert published == schema()


def test_porting_states_the_problem_line_as_the_port_defines_it() -> None:
    """One definition of a problem line: port.PROBLEM_FORM, word for word in the porting guide."""
    from skill_conformance.port import PROBLEM_FORM

    text = " ".join((ROOT / "docs" / "porting.md").read_text("utf-8").split())
    assert PROBLEM_FORM in text
