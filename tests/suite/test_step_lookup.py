"""The remembered step lookup: pytest-bdd's answer once per step text, kind and place, then kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from skill_conformance.runtime import step_lookup
from skill_conformance.runtime.step_lookup import bdd_scenario, remembering


@dataclass(frozen=True)
class _Step:
    type: str
    name: str


@dataclass
class _Node:
    nodeid: str
    parent: _Node | None = None


class _Manager:
    """Stands for a fixture manager: only its identity matters (answers are kept per manager)."""


def test_each_answer_is_pytest_bdds_own_asked_once_per_text_kind_and_parent() -> None:
    asked: list[tuple[str, str, str]] = []

    def lookup(*, step: _Step, fixturemanager: object, node: _Node) -> list[str]:
        asked.append((step.type, step.name, node.nodeid))
        return [f"{step.type}:{step.name}@{node.nodeid}"]

    find = remembering(lookup)
    manager, other_manager = _Manager(), _Manager()
    module, other_module = _Node("steps/a.py"), _Node("steps/b.py")
    first, second = _Node("steps/a.py::one", module), _Node("steps/a.py::two", module)
    elsewhere = _Node("steps/b.py::three", other_module)

    def found(step: _Step, manager: object, node: _Node) -> list[Any]:
        return list(find(step=step, fixturemanager=manager, node=node))

    given = _Step("given", "a skill `x`")
    assert found(given, manager, first) == ["given:a skill `x`@steps/a.py::one"]
    assert found(given, manager, second) == ["given:a skill `x`@steps/a.py::one"]
    assert found(given, manager, second) == found(given, manager, first)
    assert len(asked) == 1
    found(_Step("then", "a skill `x`"), manager, second)
    found(_Step("given", "a skill `y`"), manager, second)
    found(given, manager, elsewhere)
    found(given, other_manager, first)
    assert asked == [
        ("given", "a skill `x`", "steps/a.py::one"),
        ("then", "a skill `x`", "steps/a.py::two"),
        ("given", "a skill `y`", "steps/a.py::two"),
        ("given", "a skill `x`", "steps/b.py::three"),
        ("given", "a skill `x`", "steps/a.py::one"),
    ]


@dataclass
class _Config:
    stash: pytest.Stash


def test_the_plugin_puts_its_lookup_in_place_for_the_run_and_gives_it_back() -> None:
    before = bdd_scenario.find_fixturedefs_for_step
    config = _Config(pytest.Stash())
    step_lookup.pytest_configure(config)  # type: ignore[arg-type]
    try:
        assert bdd_scenario.find_fixturedefs_for_step is not before
        assert bdd_scenario.find_fixturedefs_for_step.__qualname__ == "remembering.<locals>.find"
    finally:
        step_lookup.pytest_unconfigure(config)  # type: ignore[arg-type]
    assert bdd_scenario.find_fixturedefs_for_step is before
