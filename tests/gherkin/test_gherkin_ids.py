from __future__ import annotations

import pytest

from skill_conformance.gherkin.ids import is_valid_tag, scenario_id, slugify


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Load skill by bare name", "load-skill-by-bare-name"),
        (
            "load_skill SHALL resolve `skill://{name}` URIs",
            "load-skill-shall-resolve-skill-name-uris",
        ),
        ("  --leading and trailing--  ", "leading-and-trailing"),
        ("a   b", "a-b"),
        ("Über Größe", "über-größe"),
        (
            "Non-SkillResource capabilities are skipped",
            "non-skillresource-capabilities-are-skipped",
        ),
        ("v2.0 (beta)", "v2-0-beta"),
        ("???", ""),
        ("", ""),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_slug_has_no_whitespace_or_edge_dashes() -> None:
    slug = slugify(" \t Tabs\tand\u00a0nbsp\u3000ideographic ")
    assert slug == "tabs-and-nbsp-ideographic"


def test_scenario_id() -> None:
    assert scenario_id("req", "scen") == "req.scen"


@pytest.mark.parametrize("tag", ["@a", "@needs:mcp", "@x:y.z/w-1", "@日本"])
def test_valid_tags(tag: str) -> None:
    assert is_valid_tag(tag)


@pytest.mark.parametrize("tag", ["a", "@", "@a b", "@a@b", "@a#b", "@@a", ""])
def test_invalid_tags(tag: str) -> None:
    assert not is_valid_tag(tag)
