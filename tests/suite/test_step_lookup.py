"""The step lookup that gathers the step definitions once finds what pytest-bdd's own finds."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pytest_bdd import parsers
from pytest_bdd.feature import get_features

from skill_conformance.bundled import features_dir
from skill_conformance.runtime import step_lookup
from skill_conformance.runtime.step_lookup import (
    _ORIGINAL,
    _beginning,
    _cannot_match,
    bdd_scenario,
    gathering_once,
)


def test_every_step_of_the_features_finds_the_definitions_pytest_bdd_finds(
    request: pytest.FixtureRequest,
) -> None:
    """This session has the suite's step definitions: each step is looked up both ways."""
    own = request.config.stash[_ORIGINAL]
    gathering = gathering_once()
    manager, node = request._fixturemanager, request.node
    steps = {
        (step.type, step.name): step
        for feature in get_features([str(features_dir())])
        for template in feature.scenarios.values()
        for step in template.render({}).steps
    }
    assert len(steps) > 300
    found = 0
    for step in steps.values():
        expected = list(own(step=step, fixturemanager=manager, node=node))
        assert list(gathering(step=step, fixturemanager=manager, node=node)) == expected, step
        found += bool(expected)
    assert found == len(steps), "a step of the features has no definition"


def test_a_step_looked_up_again_is_not_parsed_again(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step's text repeats across scenarios: its definitions are found by parsing it once."""
    gathering = gathering_once()
    manager, node = request._fixturemanager, request.node
    steps = [
        step
        for feature in get_features([str(features_dir())])
        for template in feature.scenarios.values()
        for step in template.render({}).steps
    ]
    first = [list(gathering(step=step, fixturemanager=manager, node=node)) for step in steps]

    def parsed_again(self: object, text: str) -> bool:
        raise AssertionError(f"{text!r} parsed again")

    for parser in (parsers.parse, parsers.cfparse, parsers.re, parsers.string):
        monkeypatch.setattr(parser, "is_matching", parsed_again)
    again = [list(gathering(step=step, fixturemanager=manager, node=node)) for step in steps]
    assert again == first


@dataclass
class _Config:
    stash: pytest.Stash


def test_the_plugin_puts_its_lookup_in_place_for_the_run_and_gives_it_back() -> None:
    before = bdd_scenario.find_fixturedefs_for_step
    config = _Config(pytest.Stash())
    step_lookup.pytest_configure(config)  # type: ignore[arg-type]
    try:
        assert bdd_scenario.find_fixturedefs_for_step is not before
        assert bdd_scenario.find_fixturedefs_for_step.__qualname__ == "gathering_once.<locals>.find"
    finally:
        step_lookup.pytest_unconfigure(config)  # type: ignore[arg-type]
    assert bdd_scenario.find_fixturedefs_for_step is before


@pytest.mark.parametrize(
    "text",
    [
        "a skill `x` declaring the tool `t`",
        "A SKILL `x` declaring the tool `t`",  # parse matches in any case
        "a skill `x` declaring",
        "the skill `x`",
        "a skil",
        "\u017fkill `x`",
        "",
    ],
)
def test_a_step_skipped_for_its_beginning_is_one_its_parser_would_not_match(text: str) -> None:
    parser = parsers.parse("a skill `{name}` declaring the tool `{tool}`")
    assert _beginning(parser) == "a skill `"
    if _cannot_match(_beginning(parser), text):
        assert not parser.is_matching(text)
    assert _beginning(parsers.re(r"a skill `(?P<name>.*)`")) == ""
