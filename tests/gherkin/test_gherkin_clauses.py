"""Clause markers: ``[id]`` in a requirement's text, ``@clause:<id>`` on the scenarios checking."""

from __future__ import annotations

import pytest

from skill_conformance.gherkin import SpecError, parse_spec
from skill_conformance.gherkin.clauses import Clause, Domain, read_clauses
from skill_conformance.gherkin.generate import tree_problems


def _read(*lines: str | None) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    numbered = [None if text is None else (no, text) for no, text in enumerate(lines, start=1)]
    reading = read_clauses(numbered)
    return (
        [(clause.id, clause.text) for clause in reading.clauses],
        [text for _, text in reading.unmarked],
        [message for _, message in reading.problems],
    )


def test_a_clause_runs_to_the_end_of_its_sentence() -> None:
    clauses, unmarked, problems = _read(
        "Some context. [a.one] The loader SHALL read it (all of it. really)",
        "whole. A rationale follows. [a.two] `x. y` SHALL stay.",
    )
    assert clauses == [
        ("a.one", "The loader SHALL read it (all of it. really) whole."),
        ("a.two", "`x. y` SHALL stay."),
    ]
    assert unmarked == problems == []


def test_clauses_inside_one_sentence_continue_its_shall() -> None:
    clauses, unmarked, problems = _read("[a.b] It SHALL offer x, [a.c] y, and [a.d] z.")
    assert clauses == [("a.b", "It SHALL offer x,"), ("a.c", "y, and"), ("a.d", "z.")]
    assert unmarked == problems == []


def test_a_shall_outside_any_clause_is_unmarked() -> None:
    clauses, unmarked, _ = _read(
        "It SHALL greet. So MUST you, [a.b] and it SHALL wave.", None, "Then it SHALL go"
    )
    assert clauses == [("a.b", "and it SHALL wave.")]
    assert unmarked == ["It SHALL greet.", "So MUST you,", "Then it SHALL go"]


def test_a_blank_line_ends_a_sentence_and_lowercase_words_are_not_normative() -> None:
    clauses, unmarked, problems = _read("[a.b] It SHALL read", None, "what it must read")
    assert clauses == [("a.b", "It SHALL read")]
    assert unmarked == problems == []


def test_a_marker_on_text_without_shall_or_must_is_a_problem() -> None:
    _, _, problems = _read("[a.b] It may greet.")
    assert problems == ["clause [a.b] holds no SHALL or MUST: 'It may greet.'"]


def test_a_marker_in_code_is_text_and_an_id_needs_a_dot() -> None:
    clauses, unmarked, _ = _read("`[a.b]` SHALL stay, [ab] too.")
    assert clauses == []
    assert unmarked == ["`[a.b]` SHALL stay, [ab] too."]


SPEC = """## Requirements
### Requirement: R
[r.one] It SHALL greet. [r.two] It SHALL wave.
<!-- untestable: r.two: nobody can see it -->

#### Scenario: S
<!-- tags: @clause:r.one -->
- WHEN a
- THEN b
"""


def test_the_parser_gives_each_requirement_its_clauses_and_each_scenario_its_tags() -> None:
    requirement = parse_spec(SPEC, name="c", path="c.md").capability.requirements[0]
    assert requirement.clauses == (
        Clause("r.one", "It SHALL greet.", 3),
        Clause("r.two", "It SHALL wave.", 3, "nobody can see it"),
    )
    assert requirement.scenarios[0].clauses == ("r.one",)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (SPEC.replace("[r.two]", "[r.one]"), 3, "clause [r.one] is marked twice (also line 3)"),
        (SPEC.replace("r.two: nobody", "r.three: nobody"), 4, "[r.three] is no clause"),
        (SPEC.replace(": nobody can see it", ": "), 4, "untestable clause [r.two] gives no reason"),
        (SPEC.replace("It SHALL wave", "It waves"), 3, "clause [r.two] holds no SHALL or MUST"),
    ],
    ids=["twice", "unknown untestable", "no reason", "not normative"],
)
def test_a_misused_marker_is_a_spec_error_at_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_spec(text, name="c", path="c.md")
    assert raised.value.diagnostic.line == line
    assert message in raised.value.diagnostic.message


def test_a_tree_may_not_mark_a_clause_twice_nor_tag_one_it_lacks() -> None:
    one = parse_spec(SPEC, name="one", path="one.md").capability
    two = parse_spec(
        SPEC.replace("r.one", "r.three").replace("@clause:r.three", "@clause:r.none"),
        name="two",
        path="two.md",
    ).capability
    assert [str(problem) for problem in tree_problems([one, two])] == [
        "two.md:3: clause [r.two] is also at one.md:3",
        "two.md:6: @clause:r.none names no clause of these specs",
    ]


DOMAIN_SPEC = SPEC.replace(
    "<!-- untestable: r.two: nobody can see it -->",
    "<!-- domain: r.one, r.two by greetings @needs:x @needs:y: every word; edges: none -->",
)


def test_a_domain_line_gives_its_clauses_one_property_scenario_after_the_written_ones() -> None:
    requirement = parse_spec(DOMAIN_SPEC, name="c", path="c.md").capability.requirements[0]
    domain = Domain("every word; edges: none", "greetings", ("@needs:x", "@needs:y"), 4)
    assert [clause.domain for clause in requirement.clauses] == [domain, domain]
    written, generated = requirement.scenarios
    assert written.title == "S"
    assert generated.title == "[r.one] holds over its domain"
    assert generated.slug == "r-one-holds-over-its-domain"
    assert generated.tags == (
        "@clause:r.one",
        "@clause:r.two",
        "@property:greetings",
        "@needs:x",
        "@needs:y",
    )
    assert generated.description == ("Domain: every word; edges: none",)
    assert [(step.keyword, step.text) for step in generated.steps] == [
        ("Given", "the domain of `r.one`"),
        ("When", "the property `greetings` is checked over generated examples"),
        ("Then", "it holds for every example"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (DOMAIN_SPEC.replace("r.one, r.two by", "r.nine by"), "domain: [r.nine] is no clause"),
        (
            DOMAIN_SPEC.replace("<!-- domain", "<!-- points-only: r.one: few -->\n<!-- domain"),
            "points-only: [r.one] has no domain without a property",
        ),
        (
            DOMAIN_SPEC.replace("<!-- domain", "<!-- points-only: r.one: -->\n<!-- domain"),
            "points-only clause [r.one] gives no reason",
        ),
        (
            DOMAIN_SPEC.replace("- WHEN a", "<!-- domain: r.one: all -->\n- WHEN a"),
            "domain line inside a scenario",
        ),
    ],
    ids=[
        "unknown clause",
        "points-only beside a property",
        "points-only without a reason",
        "inside a scenario",
    ],
)
def test_a_misused_domain_line_is_a_spec_error(text: str, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_spec(text, name="c", path="c.md")
    assert message in raised.value.diagnostic.message
