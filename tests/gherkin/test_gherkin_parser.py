from __future__ import annotations

import textwrap

import pytest

from skill_conformance.gherkin.errors import SpecError
from skill_conformance.gherkin.model import (
    Capability,
    DataTable,
    Delta,
    DocString,
    Note,
    Requirement,
    Scenario,
)
from skill_conformance.gherkin.parser import parse_spec


def parse(text: str, *, lenient: bool = False) -> Capability:
    return parse_spec(
        textwrap.dedent(text), name="cap", path="cap/spec.md", lenient=lenient
    ).capability


def only_scenario(cap: Capability) -> Scenario:
    (req,) = cap.requirements
    (scenario,) = req.scenarios
    return scenario


def steps_of(scenario: Scenario) -> list[tuple[str, str]]:
    return [(s.keyword, s.text) for s in scenario.steps]


BASELINE = """\
    # cap Specification

    ## Purpose
    What the capability is for.

    ## Requirements

    ### Requirement: The thing SHALL work
    The thing SHALL work well.

    #### Scenario: It works
    - **GIVEN** a thing
    - **WHEN** it is used
    - **THEN** it works
"""


def test_baseline_spec() -> None:
    cap = parse(BASELINE)
    assert cap.title == "cap Specification"
    assert cap.purpose == ("What the capability is for.",)
    (req,) = cap.requirements
    assert (req.title, req.slug, req.delta, req.line) == (
        "The thing SHALL work",
        "the-thing-shall-work",
        Delta.BASELINE,
        8,
    )
    assert req.description == ("The thing SHALL work well.",)
    scenario = only_scenario(cap)
    assert (scenario.title, scenario.slug, scenario.line) == ("It works", "it-works", 11)
    assert steps_of(scenario) == [
        ("Given", "a thing"),
        ("When", "it is used"),
        ("Then", "it works"),
    ]
    assert [s.line for s in scenario.steps] == [12, 13, 14]


@pytest.mark.parametrize(
    ("bullet", "keyword", "text"),
    [
        ("- **WHEN** x", "When", "x"),
        ("- **WHEN**: x", "When", "x"),
        ("- **WHEN:** x", "When", "x"),
        ("- WHEN x", "When", "x"),
        ("- when x", "When", "x"),
        ("- When: x", "When", "x"),
        ("* **when** x", "When", "x"),
        ("+ GIVEN x", "Given", "x"),
        ('- **Then** `a` is "b"', "Then", '`a` is "b"'),
        ("- **AND**   spaced  out ", "And", "spaced  out"),
        ("- BUT x", "But", "x"),
    ],
)
def test_step_bullet_forms(bullet: str, keyword: str, text: str) -> None:
    steps = ["- GIVEN g", bullet, "- THEN t"]
    cap = parse("## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n" + "\n".join(steps))
    assert (keyword, text) in steps_of(only_scenario(cap))


NON_STEP_BULLETS = ["- Android phones", "- **NOTE**: x", "- **OR** y", "- Whenever", "* x"]


@pytest.mark.parametrize("line", NON_STEP_BULLETS)
def test_a_bullet_that_is_not_a_step_is_an_error_naming_its_line(line: str) -> None:
    source = f"## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n{line}\n- THEN t"
    with pytest.raises(SpecError, match=r"is not a step") as error:
        parse(source)
    assert error.value.diagnostic.line == 4


@pytest.mark.parametrize("line", NON_STEP_BULLETS)
def test_lenient_keeps_a_non_step_bullet_as_description_with_a_warning(line: str) -> None:
    source = f"## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n{line}\n- THEN t"
    result = parse_spec(source, name="cap", path="cap/spec.md", lenient=True)
    scenario = only_scenario(result.capability)
    assert steps_of(scenario) == [("Then", "t")]
    assert scenario.description == (line,)
    assert [w.line for w in result.warnings] == [4]


@pytest.mark.parametrize(
    ("bullet", "keyword"),
    [("- **AND WHEN** x", "When"), ("- **AND THEN**: x", "Then"), ("- **BUT GIVEN** x", "Given")],
)
def test_a_compound_keyword_is_the_step_it_names(bullet: str, keyword: str) -> None:
    cap = parse(
        f"## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- WHEN w\n{bullet}\n- THEN t"
    )
    assert steps_of(only_scenario(cap))[1] == (keyword, "x")


def test_continuation_lines_join_the_step() -> None:
    cap = parse(
        """\
        ## ADDED Requirements
        ### Requirement: R
        #### Scenario: S
        - **WHEN** a long
          step text
            wraps
        - **THEN** done
        """
    )
    assert steps_of(only_scenario(cap))[0] == ("When", "a long step text wraps")


def test_unindented_line_after_step_is_description_not_continuation() -> None:
    cap = parse(
        "## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n"
        "- **WHEN** w\n- **THEN** t\n**Rationale**: why.\n"
    )
    scenario = only_scenario(cap)
    assert steps_of(scenario)[-1] == ("Then", "t")
    assert scenario.description == ("**Rationale**: why.",)


def test_flat_nested_list_becomes_data_table() -> None:
    cap = parse(
        """\
        ## ADDED Requirements
        ### Requirement: R
        #### Scenario: S
        - **WHEN** listed
        - **THEN** it shows:
          - `a`
          - b with a
            continuation
          1. numbered
        - **AND** more
        """
    )
    step = only_scenario(cap).steps[1]
    assert step.argument == DataTable(rows=(("`a`",), ("b with a continuation",), ("numbered",)))
    assert steps_of(only_scenario(cap))[2] == ("And", "more")


def test_fence_under_step_becomes_doc_string_with_media_type() -> None:
    cap = parse(
        """\
        ## ADDED Requirements
        ### Requirement: R
        #### Scenario: S
        - **WHEN** run
        - **THEN** it prints:
          ```json
          {"a": 1}
            indented
          ```
        """
    )
    assert only_scenario(cap).steps[1].argument == DocString('{"a": 1}\n  indented', "json")


def test_mixed_nested_content_becomes_markdown_doc_string() -> None:
    cap = parse(
        """\
        ## ADDED Requirements
        ### Requirement: R
        #### Scenario: S
        - **WHEN** run
        - **THEN** it shows
          - one
            - nested

          a paragraph
        """
    )
    assert only_scenario(cap).steps[1].argument == DocString(
        "- one\n  - nested\n\na paragraph", "markdown"
    )


def test_headers_inside_fences_are_ignored() -> None:
    cap = parse(
        """\
        ## ADDED Requirements
        ### Requirement: R
        Example:
        ```markdown
        ### Requirement: Not real
        #### Scenario: Not real either
        - **WHEN** nothing
        ```
        #### Scenario: Real
        - **WHEN** w
        - **THEN** t
        """
    )
    (req,) = cap.requirements
    assert [s.title for s in req.scenarios] == ["Real"]
    assert "### Requirement: Not real" in req.description


def test_tags_comments() -> None:
    cap = parse(
        """\
        <!-- tags: @feature-wide -->
        ## ADDED Requirements
        ### Requirement: R
        <!-- tags: @req:one @req-two -->
        Text.
        #### Scenario: S
        <!-- TAGS: @needs:mcp   @slow -->
        - **WHEN** w
        <!-- an ordinary comment -->
        - **THEN** t
        """
    )
    (req,) = cap.requirements
    assert cap.tags == ("@feature-wide",)
    assert req.tags == ("@req:one", "@req-two")
    assert req.description == ("Text.",)
    scenario = only_scenario(cap)
    assert scenario.tags == ("@needs:mcp", "@slow")
    assert scenario.description == ()


def test_multiline_html_comment_is_skipped() -> None:
    cap = parse(
        "## ADDED Requirements\n### Requirement: R\n<!--\n- **WHEN** hidden\n-->\nShown.\n"
        "#### Scenario: S\n- **WHEN** w\n- **THEN** t\n"
    )
    assert cap.requirements[0].description == ("Shown.",)


def test_plain_keyword_bullets_in_requirement_text_are_prose() -> None:
    cap = parse(
        "## ADDED Requirements\n### Requirement: R\n- When idle, it SHALL sleep.\n"
        "#### Scenario: S\n- **WHEN** w\n- **THEN** t\n"
    )
    assert cap.requirements[0].description == ("- When idle, it SHALL sleep.",)


def test_crlf_and_bom() -> None:
    text = (
        "\ufeff## ADDED Requirements\r\n### Requirement: R\r\n"
        "#### Scenario: S\r\n- **WHEN** w\r- **THEN** t\r\n"
    )
    cap = parse_spec(text, name="c", path="p").capability
    assert steps_of(only_scenario(cap)) == [("When", "w"), ("Then", "t")]


def test_atx_closing_hashes_and_case_insensitive_headers() -> None:
    cap = parse(
        "## added requirements ##\n###Requirement: R ###\n"
        "#### scenario: S ####\n- WHEN w\n- THEN t\n"
    )
    (req,) = cap.requirements
    assert (req.title, req.delta, req.scenarios[0].title) == ("R", Delta.ADDED, "S")


DELTA = """\
    ## ADDED Requirements
    ### Requirement: New one
    Added.
    #### Scenario: A
    - **WHEN** w
    - **THEN** t

    ## MODIFIED Requirements
    ### Requirement: Better name
    Modified.
    #### Scenario: B
    - **WHEN** w
    - **THEN** t

    ## REMOVED Requirements
    ### Requirement: Gone
    **Reason**: obsolete.
    #### Scenario: Old scenario
    - **WHEN** w
    - **THEN** t
    - ### Requirement: Also gone
    - `### Requirement: Gone too`

    ## RENAMED Requirements
    - FROM: `### Requirement: Old name`
    - TO: `### Requirement: Better name`
    - FROM: ### Requirement: Listing
    - TO: ### Requirement: Enumeration
"""


def test_delta_with_all_four_kinds() -> None:
    cap = parse(DELTA)
    by_title = {r.title: r for r in cap.requirements}
    assert [r.title for r in cap.requirements] == [
        "New one",
        "Better name",
        "Gone",
        "Also gone",
        "Gone too",
        "Enumeration",
    ]
    assert by_title["New one"].delta is Delta.ADDED
    modified = by_title["Better name"]
    assert (modified.delta, modified.renamed_from) == (Delta.MODIFIED, "Old name")
    gone = by_title["Gone"]
    assert gone.delta is Delta.REMOVED
    assert gone.description == ("**Reason**: obsolete.",)
    assert gone.scenarios == ()
    assert gone.children == (Note("Removed scenario: Old scenario", 18),)
    assert by_title["Also gone"].delta is Delta.REMOVED
    renamed = by_title["Enumeration"]
    assert renamed == Requirement(
        title="Enumeration",
        slug="enumeration",
        line=28,
        delta=Delta.RENAMED,
        description=('Renamed from "Listing".',),
        renamed_from="Listing",
    )


@pytest.mark.parametrize(
    ("from_line", "to_line"),
    [
        ("- FROM: `### Requirement: A`", "- TO: `### Requirement: B`"),
        ("- FROM: ### Requirement: A", "- TO: ### Requirement: B"),
        ("FROM: ### Requirement: A", "TO: ### Requirement: B"),
        ("- **FROM**: `### Requirement: A`", "- **TO**: `### Requirement: B`"),
        ("- FROM: A", "- TO: B"),
    ],
)
def test_renamed_entry_forms(from_line: str, to_line: str) -> None:
    cap = parse(f"## RENAMED Requirements\n{from_line}\n{to_line}\n")
    (req,) = cap.requirements
    assert (req.title, req.renamed_from, req.delta) == ("B", "A", Delta.RENAMED)


def test_non_scenario_level4_header_is_a_note() -> None:
    cap = parse(
        "## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- **WHEN** w\n- **THEN** t\n"
        "#### Rationale\nBecause.\n"
    )
    (req,) = cap.requirements
    assert req.children[1] == Note("Not a scenario: Rationale", 6)


def test_other_sections_and_loose_headers_are_ignored() -> None:
    cap = parse(
        "## Why\nBecause.\n## Requirements\n### Notes\nProse - **not** steps.\n"
        "### Requirement: R\n#### Scenario: S\n- **WHEN** w\n- **THEN** t\n"
    )
    assert [r.title for r in cap.requirements] == ["R"]


LENIENT_CASES = [
    (
        "## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- WHEN a\n- THEN b\n"
        "#### Scenario: S\n- WHEN c\n- THEN d\n",
        6,
        "duplicate scenario",
    ),
    ("## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- WHEN a\n", 3, "no THEN"),
    ("## ADDED Requirements\n### Requirement: R\n#### Scenario: S\nText.\n", 3, "no steps"),
    ("### Requirement: R\n#### Scenario: S\n- WHEN a\n- THEN b\n", 1, "outside a Requirements"),
    ("## Requirements\n### REQ-1: R\n#### Scenario: S\n- WHEN a\n- THEN b\n", 2, "is not"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), LENIENT_CASES)
def test_lenient_turns_validate_accepted_problems_into_warnings(
    text: str, line: int, fragment: str
) -> None:
    with pytest.raises(SpecError):
        parse_spec(text, name="c", path="c/spec.md")
    result = parse_spec(text, name="c", path="c/spec.md", lenient=True)
    first = result.warnings[0]
    assert (first.path, first.line) == ("c/spec.md", line)
    assert first.message.startswith("warning: ")
    assert fragment in first.message
    scenarios = [s for r in result.capability.requirements for s in r.scenarios]
    assert scenarios, "lenient mode keeps the scenarios"
    assert len({s.slug for s in scenarios}) == len(scenarios)


def test_lenient_duplicate_scenario_gets_numbered_title_and_id() -> None:
    text = LENIENT_CASES[0][0]
    cap = parse_spec(text, name="c", path="p", lenient=True).capability
    assert [(s.title, s.slug) for s in cap.requirements[0].scenarios] == [
        ("S", "s"),
        ("S (2)", "s-2"),
    ]


def test_ids_ignore_step_text() -> None:
    one = parse("## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- WHEN a\n- THEN b\n")
    two = parse(
        "## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- GIVEN x\n- THEN y\n"
    )
    assert only_scenario(one).slug == only_scenario(two).slug
