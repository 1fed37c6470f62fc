"""Property tests: rendering round-trips through gherkin-official, parsing never crashes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from gherkin_helpers import gherkin_scenarios, run_cli, snapshot_tree, write_spec
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skill_conformance.gherkin.errors import SpecError
from skill_conformance.gherkin.ids import scenario_id, slugify
from skill_conformance.gherkin.model import (
    Capability,
    DataTable,
    Delta,
    DocString,
    Requirement,
    Scenario,
    Step,
)
from skill_conformance.gherkin.parser import parse_spec
from skill_conformance.gherkin.render import one_line, render_feature

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

chars = st.characters(exclude_categories=("Cs",))
text = st.text(chars, max_size=40)
one_liner = text.map(one_line).filter(bool)
title = one_liner.filter(lambda t: bool(slugify(t)))
tag = st.from_regex(r"@[^\s@#]{1,12}", fullmatch=True)
media = st.from_regex(r"[a-z0-9+./-]{0,8}", fullmatch=True)
doc_string = st.builds(
    DocString, st.lists(text.map(lambda t: one_line(t).rstrip()), max_size=4).map("\n".join), media
)
data_table = st.builds(
    DataTable, st.lists(one_liner.map(lambda c: (c,)), min_size=1, max_size=3).map(tuple)
)


@st.composite
def steps(draw: st.DrawFn) -> tuple[Step, ...]:
    keywords = [draw(st.sampled_from(["Given", "When", "Then"]))]
    keywords += draw(st.lists(st.sampled_from(["Given", "When", "Then", "And", "But"]), max_size=4))
    return tuple(
        Step(
            keyword,
            draw(one_liner),
            index,
            draw(st.none() | doc_string | data_table),
        )
        for index, keyword in enumerate(keywords)
    )


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Scenario, ...]:
    titles = draw(st.lists(title, min_size=0, max_size=3, unique_by=slugify))
    return tuple(
        Scenario(
            title=t,
            slug=slugify(t),
            line=i,
            steps=draw(steps()),
            tags=tuple(draw(st.lists(tag, max_size=2, unique=True))),
            description=tuple(draw(st.lists(text, max_size=3))),
        )
        for i, t in enumerate(titles)
    )


@st.composite
def capabilities(draw: st.DrawFn) -> Capability:
    titles = draw(st.lists(title, min_size=0, max_size=4, unique_by=slugify))
    requirements = tuple(
        Requirement(
            title=t,
            slug=slugify(t),
            line=i,
            delta=draw(st.sampled_from(list(Delta))),
            description=tuple(draw(st.lists(text, max_size=3))),
            tags=tuple(draw(st.lists(tag, max_size=2, unique=True))),
            children=draw(scenarios()),
            renamed_from=draw(st.none() | title),
        )
        for i, t in enumerate(titles)
    )
    return Capability(
        name=draw(title),
        source=draw(one_liner),
        purpose=tuple(draw(st.lists(text, max_size=3))),
        tags=tuple(draw(st.lists(tag, max_size=2, unique=True))),
        requirements=requirements,
    )


def _representable(cap: Capability) -> bool:
    for req in cap.requirements:
        for scenario in req.scenarios:
            for step in scenario.steps:
                if isinstance(step.argument, DocString):
                    content = step.argument.content
                    if ('"""' in content or '\\"\\"\\"' in content) and (
                        "```" in content or "\\`\\`\\`" in content
                    ):
                        return False
    return True


@SETTINGS
@given(capabilities())
def test_rendered_models_round_trip_through_gherkin(cap: Capability) -> None:
    assume(_representable(cap))
    parsed = gherkin_scenarios(render_feature(cap))
    by_id: dict[str, list[dict[str, object]]] = {}
    for scenario in parsed:
        ids = [t["name"] for t in scenario["tags"] if t["name"].startswith("@id:")]
        assert len(ids) == 1
        by_id.setdefault(ids[0], []).append(scenario)
    expected = [(r, s) for r in cap.requirements for s in r.scenarios]
    assert len(parsed) == len(expected)
    names = [s["name"] for s in parsed]
    assert len(set(names)) == len(names)
    for req, scenario in expected:
        (found,) = by_id[f"@id:{scenario_id(req.slug, scenario.slug)}"]
        assert found["rule"]["name"] == one_line(req.title)
        got = found["steps"]
        assert [(s["keyword"].strip(), s["text"]) for s in got] == [
            (s.keyword, one_line(s.text)) for s in scenario.steps
        ]
        for step, raw in zip(scenario.steps, got, strict=True):
            if isinstance(step.argument, DocString):
                assert raw["docString"]["content"] == step.argument.content
                assert raw["docString"].get("mediaType") == (step.argument.media_type or None)
            elif isinstance(step.argument, DataTable):
                cells = [[c["value"] for c in row["cells"]] for row in raw["dataTable"]["rows"]]
                assert cells == [[one_line(c) for c in row] for row in step.argument.rows]
            else:
                assert "docString" not in raw
                assert "dataTable" not in raw


LINE_TEMPLATES = [
    "# {t}",
    "## Purpose",
    "## Requirements",
    "## ADDED Requirements",
    "## MODIFIED Requirements",
    "## REMOVED Requirements",
    "## RENAMED Requirements",
    "## {t} Requirements",
    "## {t}",
    "### Requirement: {t}",
    "### {t}",
    "#### Scenario: {t}",
    "#### {t}",
    "##### {t}",
    "- **GIVEN** {t}",
    "- **WHEN** {t}",
    "- **THEN** {t}",
    "- **AND** {t}",
    "- BUT {t}",
    "- then: {t}",
    "- {t}",
    "  - {t}",
    "    {t}",
    "  {t}",
    "  ```{t}",
    "```",
    "~~~",
    "<!-- tags: {t} -->",
    "<!-- tags: @a @b:c -->",
    "<!--",
    "-->",
    "- FROM: `### Requirement: {t}`",
    "- TO: `### Requirement: {t}`",
    "- ### Requirement: {t}",
    '  """',
    "| {t} |",
    "@{t}",
    "",
    "{t}",
]

markdown_line = st.builds(lambda tpl, t: tpl.format(t=t), st.sampled_from(LINE_TEMPLATES), text)
word = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=15)
step_line = st.builds(
    "{}{} {}".format,
    st.sampled_from(["- ", "* ", "  - ", "- **", "    "]),
    st.sampled_from(["GIVEN", "WHEN", "THEN", "AND", "BUT", "then:", "When**", "WHEN**:"]),
    word,
)
body_line = st.one_of(step_line, step_line, step_line, markdown_line, word)
heading = st.builds("{}{}".format, st.sampled_from("abcXYZ09é"), word)


@st.composite
def structured(draw: st.DrawFn) -> str:
    """Spec-shaped markdown: sections, requirements and scenarios with noisy bodies."""
    lines = draw(st.lists(markdown_line, max_size=3))
    for _ in range(draw(st.integers(1, 3))):
        lines.append(draw(st.sampled_from(LINE_TEMPLATES[2:6])))
        for _ in range(draw(st.integers(0, 3))):
            lines.append(f"### Requirement: {draw(heading)}")
            lines += draw(st.lists(st.one_of(word, markdown_line), max_size=2))
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"#### Scenario: {draw(heading)}")
                lines.append(f"- **{draw(st.sampled_from(['GIVEN', 'WHEN']))}** {draw(word)}")
                lines += draw(st.lists(body_line, max_size=6))
                lines.append(f"- **THEN** {draw(word)}")
    return "\n".join(lines)


markdown = st.one_of(
    text,
    st.lists(markdown_line, max_size=40).map("\n".join),
    st.lists(st.one_of(markdown_line, text), max_size=40).map("\r\n".join),
    structured(),
    structured(),
    structured(),
)


@settings(max_examples=400, deadline=None)
@given(markdown, st.booleans())
def test_parser_raises_only_spec_errors_and_output_always_parses(
    source: str, lenient: bool
) -> None:
    try:
        result = parse_spec(source, name="cap", path="cap/spec.md", lenient=lenient)
    except SpecError as exc:
        message = str(exc)
    else:
        message = ""
    if message:
        assert message.startswith("cap/spec.md:")
        assert "\n" not in message
        return
    cap = result.capability
    parsed = gherkin_scenarios(render_feature(cap))
    assert len(parsed) == sum(len(r.scenarios) for r in cap.requirements)
    names = [s["name"] for s in parsed]
    assert len(set(names)) == len(names)
    for scenario, model in zip(
        parsed, [s for r in cap.requirements for s in r.scenarios], strict=True
    ):
        assert [s["text"] for s in scenario["steps"]] == [one_line(s.text) for s in model.steps]


@SETTINGS
@given(markdown)
def test_rendering_is_deterministic(source: str) -> None:
    try:
        first = render_feature(parse_spec(source, name="c", path="p", lenient=True).capability)
    except SpecError:
        return
    second = render_feature(parse_spec(source, name="c", path="p", lenient=True).capability)
    assert first == second


def _spec(structure: list[tuple[str, list[tuple[str, list[str]]]]]) -> str:
    lines = ["## ADDED Requirements"]
    for req_title, scenario_list in structure:
        lines += ["", f"### Requirement: {req_title}", "Text."]
        for scenario_title, step_texts in scenario_list:
            lines += ["", f"#### Scenario: {scenario_title}"]
            lines += [f"- **WHEN** {step_texts[0]}", f"- **THEN** {step_texts[1]}"]
    return "\n".join(lines) + "\n"


header_title = st.text(
    st.characters(exclude_categories=("Cs", "Zl", "Zp", "Cc")), min_size=1, max_size=20
).filter(lambda t: bool(slugify(t)) and "#" not in t)
step_text = st.text(st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=20).map(
    lambda t: "x" + t.strip()
)


@st.composite
def structures(draw: st.DrawFn) -> list[tuple[str, list[tuple[str, int]]]]:
    reqs = draw(st.lists(header_title, min_size=1, max_size=3, unique_by=slugify))
    return [
        (
            r,
            [
                (s, 2)
                for s in draw(st.lists(header_title, min_size=1, max_size=3, unique_by=slugify))
            ],
        )
        for r in reqs
    ]


@SETTINGS
@given(structures(), st.data())
def test_ids_are_stable_when_steps_are_reworded(
    structure: list[tuple[str, list[tuple[str, int]]]], data: st.DataObject
) -> None:
    def worded() -> list[tuple[str, list[tuple[str, list[str]]]]]:
        return [
            (r, [(s, [data.draw(step_text), data.draw(step_text)]) for s, _ in scenario_list])
            for r, scenario_list in structure
        ]

    def ids(source: str) -> list[str]:
        cap = parse_spec(source, name="c", path="p").capability
        return [scenario_id(r.slug, s.slug) for r in cap.requirements for s in r.scenarios]

    one, two = _spec(worded()), _spec(worded())
    assert ids(one) == ids(two)
    assert ids(one) == [
        scenario_id(slugify(r), slugify(s))
        for r, scenario_list in structure
        for s, _ in scenario_list
    ]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(header_title, markdown), min_size=1, max_size=3, unique_by=lambda x: slugify(x[0])
    )
)
def test_generating_twice_is_byte_identical(specs: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as raw:
        root = Path(raw)
        for name, source in specs:
            write_spec(root / "specs", slugify(name), source)
        outs = []
        for run in ("one", "two"):
            code = run_cli(
                "gherkin",
                "--specs",
                root / "specs",
                "--out",
                root / run,
                "--lenient",
                "--relative-to",
                root,
            ).code
            outs.append((code, snapshot_tree(root / run) if (root / run).exists() else {}))
        assert outs[0] == outs[1]
