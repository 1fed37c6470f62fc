from __future__ import annotations

import re
from pathlib import Path

import pytest
from gherkin_helpers import FIXTURES, gherkin_scenarios, parse_gherkin
from pytest_bdd.parser import FeatureParser

from skill_conformance.gherkin.model import (
    Capability,
    DataTable,
    Delta,
    DocString,
    Note,
    Requirement,
    Scenario,
    Step,
)
from skill_conformance.gherkin.parser import parse_spec
from skill_conformance.gherkin.render import HEADER_PREFIX, description_lines, render_feature


def render_fixture(tree: str, capability: str) -> str:
    path = FIXTURES / tree / "specs" / capability / "spec.md"
    source = f"{tree}/specs/{capability}/spec.md"
    result = parse_spec(path.read_text(), name=capability, path=source)
    return render_feature(result.capability)


def tags(node: dict[str, object]) -> list[str]:
    return [t["name"] for t in node["tags"]]


def test_baseline_fixture_parses_with_tags_and_steps() -> None:
    text = render_fixture("baseline", "widget-store")
    feature = parse_gherkin(text)["feature"]
    assert feature["name"] == "widget-store"
    assert tags(feature) == ["@capability:widget-store", "@area:storage"]
    assert "The widget store keeps `widgets` by name." in feature["description"]

    scenarios = gherkin_scenarios(text)
    first = scenarios[0]
    assert tags(first["rule"]) == [
        "@requirement:store-shall-keep-widgets-by-name",
        "@delta:baseline",
        "@upstream:core",
        "@slow",
    ]
    assert first["rule"]["name"] == "Store SHALL keep widgets by name"
    assert tags(first) == ["@id:store-shall-keep-widgets-by-name.put-then-get", "@smoke"]
    assert [(s["keyword"], s["text"]) for s in first["steps"]] == [
        ("Given ", "an empty store"),
        ("When ", 'the widget `gear` is put with the body "teeth: 12"'),
        ("Then ", 'getting `gear` returns "teeth: 12"'),
        ("And ", "the store holds 1 widget"),
    ]
    table = scenarios[1]["steps"][2]["dataTable"]
    assert [[c["value"] for c in row["cells"]] for row in table["rows"]] == [
        ["`a`"],
        ["`b|c`"],
        ["`d \\ e`"],
    ]
    doc = scenarios[2]["steps"][2]["docString"]
    assert (doc["mediaType"], doc["content"]) == ("json", '{"name": "gear", "quote": "\\"\\"\\""}')
    assert scenarios[2]["steps"][0]["text"] == (
        "the widget `gear` is stored with a long continued description"
    )
    described = scenarios[4]
    assert [s["keyword"] for s in described["steps"]] == ["When ", "Then "]
    assert "Given this line is text, not a step" in described["description"]


def test_delta_fixture_tags() -> None:
    rules = [
        c["rule"]
        for c in parse_gherkin(render_fixture("delta", "widget-store"))["feature"]["children"]
    ]
    assert [tags(r)[:3] for r in rules] == [
        ["@requirement:store-shall-expire-widgets", "@delta:added"],
        [
            "@requirement:store-shall-keep-widgets-by-id",
            "@delta:modified",
            "@renamed-from:store-shall-keep-widgets-by-name",
        ],
        ["@requirement:store-shall-render-widgets-as-json", "@delta:removed"],
        ["@requirement:store-shall-compress-widgets", "@delta:removed"],
        [
            "@requirement:store-shall-enumerate-widgets",
            "@delta:renamed",
            "@renamed-from:store-shall-list-widgets",
        ],
    ]
    renamed_scenario = rules[1]["children"][0]["scenario"]
    assert tags(renamed_scenario) == [
        "@id:store-shall-keep-widgets-by-id.put-then-get-by-id",
        "@renamed-from:store-shall-keep-widgets-by-name",
    ]
    assert all(not r["children"] for r in rules[2:])


@pytest.mark.parametrize(
    ("tree", "capability"),
    [
        ("baseline", "widget-store"),
        ("delta", "widget-store"),
        ("plain", "plain-bullets"),
        ("nested", "top"),
        ("nested", "group/sub-cap"),
    ],
)
def test_pytest_bdd_loads_every_scenario(tree: str, capability: str, tmp_path: Path) -> None:
    text = render_fixture(tree, capability)
    (tmp_path / "x.feature").write_text(text)
    feature = FeatureParser(str(tmp_path), "x.feature").parse()
    expected = gherkin_scenarios(text)
    assert len(feature.scenarios) == len(expected)
    for parsed, scenario in zip(feature.scenarios.values(), expected, strict=True):
        assert [s.name for s in parsed.steps] == [s["text"] for s in scenario["steps"]]
        assert any(tag.startswith("id:") for tag in parsed.tags)


def test_format_is_stable_text() -> None:
    text = render_fixture("baseline", "widget-store")
    assert text.startswith(HEADER_PREFIX + "baseline/specs/widget-store/spec.md\n")
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
    assert "\r" not in text
    assert "\t" not in text
    for line in text.split("\n"):
        assert line == line.rstrip()
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0, line


def _capability(*requirements: Requirement) -> Capability:
    return Capability(name="cap", source="cap/spec.md", requirements=requirements)


def _one(steps: tuple[Step, ...], **kwargs: object) -> Capability:
    scenario = Scenario(title="S", slug="s", line=2, steps=steps)
    return _capability(
        Requirement(title="R", slug="r", line=1, delta=Delta.ADDED, children=(scenario,), **kwargs)
    )


@pytest.mark.parametrize(
    ("content", "delimiter"),
    [
        ("plain", '"""'),
        ('has """ quotes', "```"),
        ('has \\"\\"\\" escaped quotes', "```"),
        ('both """ and ```', '"""'),
    ],
)
def test_doc_string_delimiter(content: str, delimiter: str) -> None:
    step = Step("Then", "t", 3, DocString(content + "\n  second line", "text"))
    text = render_feature(_one((step,)))
    assert f"\n        {delimiter}text\n" in text
    (scenario,) = gherkin_scenarios(text)
    assert scenario["steps"][0]["docString"]["content"] == content + "\n  second line"


def test_data_table_cells_are_escaped() -> None:
    cells = ("a|b", "back\\slash", "new\nline", "  padded  ", "")
    step = Step("Then", "t", 3, DataTable(tuple((c,) for c in cells)))
    (scenario,) = gherkin_scenarios(render_feature(_one((step,))))
    rows = scenario["steps"][0]["dataTable"]["rows"]
    assert [r["cells"][0]["value"] for r in rows] == [
        "a|b",
        "back\\slash",
        "new line",
        "padded",
        "",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "# comment",
        "@tag",
        "Given x",
        "When x",
        "Then x",
        "And x",
        "But x",
        "* x",
        "Scenario: x",
        "Scenario Outline: x",
        "Example: x",
        "Examples: x",
        "Rule: x",
        "Background: x",
        "Feature: x",
        "   # indented comment",
    ],
)
def test_description_lines_are_escaped(line: str) -> None:
    (escaped,) = description_lines((line,), 3)
    assert escaped.lstrip().startswith("\\")
    scenario = Scenario(
        title="S", slug="s", line=2, steps=(Step("Then", "t", 3),), description=(line,)
    )
    req = Requirement(
        title="R", slug="r", line=1, delta=Delta.ADDED, description=(line,), children=(scenario,)
    )
    text = render_feature(Capability(name="c", source="s", purpose=(line,), requirements=(req,)))
    (parsed,) = gherkin_scenarios(text)
    assert [s["text"] for s in parsed["steps"]] == ["t"]
    assert parsed["description"].strip() == "\\" + line.strip()
    assert parsed["rule"]["description"].strip() == "\\" + line.strip()


@pytest.mark.parametrize("line", ["| a | b |", '"""', "```", "plain text", "-- dashes"])
def test_harmless_description_lines_are_kept(line: str) -> None:
    assert description_lines((line,), 1) == [f"  {line}"]


def test_scenario_names_are_unique_in_a_feature() -> None:
    def req(title: str, *scenarios: str) -> Requirement:
        children = tuple(
            Scenario(title=t, slug=f"s{i}", line=i, steps=(Step("Then", "t", 1),))
            for i, t in enumerate(scenarios)
        )
        return Requirement(
            title=title, slug=title.lower(), line=1, delta=Delta.ADDED, children=children
        )

    cap = _capability(req("A", "Happy", "Sad"), req("B", "Happy"), req("C", "Happy (B)"))
    names = [s["name"] for s in gherkin_scenarios(render_feature(cap))]
    assert names == ["Happy (A)", "Sad", "Happy (B)", "Happy (B) (2)"]
    assert len(set(names)) == len(names)


def test_notes_and_removed_rules_are_comments() -> None:
    removed = Requirement(
        title="Gone",
        slug="gone",
        line=1,
        delta=Delta.REMOVED,
        children=(Note("Removed scenario: X", 2),),
    )
    text = render_feature(_capability(removed))
    assert "    # Removed scenario: X\n" in text
    assert re.search(r"^    # Removed requirement: ", text, re.M)
    (rule,) = [c["rule"] for c in parse_gherkin(text)["feature"]["children"]]
    assert rule["children"] == []


def test_capability_tag_has_no_whitespace() -> None:
    text = render_feature(Capability(name="my cap @x#y", source="s"))
    assert "\n@capability:my-cap-x-y\nFeature: my cap @x#y\n" in text
