"""Every malformed-spec case: one ``path:line: message`` line, exit 2, nothing written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gherkin_helpers import run_cli, snapshot_tree, write_spec

GOOD = "## ADDED Requirements\n### Requirement: Good\n#### Scenario: Fine\n- WHEN a\n- THEN b\n"

REQ = "## ADDED Requirements\n### Requirement: R\n"

CASES = {
    "step outside scenario": (REQ + "Text.\n- **WHEN** w\n", 4, "step bullet outside a scenario"),
    "no THEN": (REQ + "#### Scenario: S\n- **WHEN** w\n- **AND** x\n", 3, "has no THEN step"),
    "no steps": (REQ + "#### Scenario: S\nJust prose.\n", 3, "has no steps"),
    "duplicate requirement": (
        REQ + "## MODIFIED Requirements\n### Requirement: r\n",
        4,
        'duplicate requirement "r" (same id as line 2)',
    ),
    "duplicate scenario": (
        REQ + "#### Scenario: S\n- WHEN a\n- THEN b\n#### Scenario: S!\n- WHEN a\n- THEN b\n",
        6,
        'duplicate scenario "S!" in requirement "R" (same id as line 3)',
    ),
    "unknown delta header": (
        "## CHANGED Requirements\n### Requirement: R\n",
        1,
        'unknown delta header "## CHANGED Requirements"',
    ),
    "renamed without TO": (
        "## RENAMED Requirements\n- FROM: `### Requirement: A`\n\n## ADDED Requirements\n",
        2,
        'RENAMED entry "FROM: A" has no TO',
    ),
    "renamed FROM twice": (
        "## RENAMED Requirements\n- FROM: `### Requirement: A`\n- FROM: `### Requirement: B`\n",
        2,
        'RENAMED entry "FROM: A" has no TO',
    ),
    "renamed without FROM": (
        "## RENAMED Requirements\n- TO: `### Requirement: B`\n",
        2,
        'RENAMED entry "TO: B" has no FROM',
    ),
    "renamed at end of file": (
        "## RENAMED Requirements\n- FROM: `### Requirement: A`",
        2,
        "has no TO",
    ),
    "first step AND": (REQ + "#### Scenario: S\n- AND a\n- THEN b\n", 4, "first step is AND"),
    "scenario without title": (REQ + "#### Scenario:\n- WHEN a\n- THEN b\n", 3, "no title"),
    "requirement without title": ("## ADDED Requirements\n### Requirement:   \n", 2, "no title"),
    "title without letters": (
        "## ADDED Requirements\n### Requirement: ???\n",
        2,
        "has no letters or digits",
    ),
    "step without text": (REQ + "#### Scenario: S\n- WHEN\n- THEN b\n", 4, "WHEN step has no text"),
    "invalid tag": (REQ + "<!-- tags: @ok bad -->\n", 3, "invalid tag 'bad'"),
    "scenario outside requirement": (
        "## Requirements\n### Notes\n#### Scenario: S\n- WHEN a\n- THEN b\n",
        3,
        'scenario outside a requirement (under "### Notes")',
    ),
    "scenario outside requirements section": (
        "## Why\n#### Scenario: S\n- WHEN a\n- THEN b\n",
        2,
        "scenario outside a Requirements section",
    ),
    "steps under a non-scenario header": (
        REQ + "#### Phase 2 Scenario: S\n- **WHEN** a\n- **THEN** b\n",
        3,
        'has steps but is not "#### Scenario: <title>"',
    ),
    "not utf-8": (b"## ADDED Requirements\n\xff\n", 1, "not valid UTF-8"),
}


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    specs, out = tmp_path / "specs", tmp_path / "features"
    write_spec(specs, "good", GOOD)
    assert run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path).code == 0
    (out / "good.feature").write_text((out / "good.feature").read_text() + "# edited\n")
    return specs, out


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("check", [False, True], ids=["write", "check"])
def test_error_case(case: str, check: bool, tree: tuple[Path, Path]) -> None:
    specs, out = tree
    text, line, fragment = CASES[case]
    bad = specs / "bad" / "spec.md"
    bad.parent.mkdir()
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    before = snapshot_tree(out)

    result = run_cli(
        "gherkin",
        "--specs",
        specs,
        "--out",
        out,
        "--relative-to",
        specs.parent,
        *(["--check"] if check else []),
    )

    assert result.code == 2
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert re.fullmatch(rf"specs/bad/spec\.md:{line}: .+", lines[0]), lines[0]
    assert fragment in lines[0]
    assert "Traceback" not in result.err
    assert snapshot_tree(out) == before


def test_errors_are_collected_across_files_one_line_each(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    write_spec(specs, "b-bad", REQ + "#### Scenario: S\n- WHEN a\n")
    write_spec(specs, "a-bad", "## CHANGED Requirements\n")
    write_spec(specs, "c-good", GOOD)
    write_spec(specs, "d-bad", REQ + "#### Scenario: S\n- WHEN a\n- WHEN b\n- WHEN c\n")

    result = run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path)

    assert result.code == 2
    assert result.err.splitlines() == [
        'specs/a-bad/spec.md:1: unknown delta header "## CHANGED Requirements" '
        "(expected ADDED, MODIFIED, REMOVED or RENAMED Requirements)",
        'specs/b-bad/spec.md:3: scenario "S" has no THEN step',
        'specs/d-bad/spec.md:3: scenario "S" has no THEN step',
    ]
    assert not out.exists()


def test_only_the_first_error_of_a_file_is_reported(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write_spec(specs, "bad", REQ + "#### Scenario: S\n- WHEN a\n#### Scenario: T\nprose\n")
    result = run_cli(
        "gherkin", "--specs", specs, "--out", tmp_path / "o", "--relative-to", tmp_path
    )
    assert result.err == 'specs/bad/spec.md:3: scenario "S" has no THEN step\n'


def test_hand_written_feature_is_not_replaced(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    write_spec(specs, "cap", GOOD)
    out.mkdir()
    (out / "cap.feature").write_text("Feature: mine\n")
    result = run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path)
    assert result.code == 2
    assert result.err == (
        "out/cap.feature:1: exists but was not generated by skill-conformance; "
        "refusing to replace\n"
    )
    assert (out / "cap.feature").read_text() == "Feature: mine\n"


def test_capability_name_clash(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write_spec(specs, "a-b", GOOD)
    write_spec(specs, "a/b", GOOD)
    result = run_cli(
        "gherkin", "--specs", specs, "--out", tmp_path / "o", "--relative-to", tmp_path
    )
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert 'capability name "a-b" also used by' in result.err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["gherkin", "--specs", "{tmp}/missing", "--out", "{tmp}/o"], "--specs: not a directory"),
        (["gherkin", "--specs", "{tmp}/empty", "--out", "{tmp}/o"], "no spec.md found"),
        (["gherkin", "--specs", "{tmp}/specs", "--out", "{tmp}/file"], "--out: not a directory"),
        (["gherkin", "--specs", "{tmp}/specs"], "the following arguments are required: --out"),
        (["gherkin", "--bogus"], "error:"),
        (["nope"], "invalid choice"),
        ([], "a command is required"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], fragment: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    write_spec(tmp_path / "specs", "cap", GOOD)
    result = run_cli(*(a.format(tmp=tmp_path) for a in args))
    assert result.code == 2
    assert len(result.err.splitlines()) == 1, result.err
    assert fragment in result.err
    assert not (tmp_path / "o").exists()
