"""pytest-bdd's step lookup with the step definitions an item sees gathered once, not per step.

To find the definitions of a step, pytest-bdd asks pytest for every fixture visible to the item
(about 180 in a conformance run), keeps those that are step definitions, and tries the parser of
each on the step's text, for every step of every scenario: measured, a fifth of what a conformance
run does between its collection and its end. Which step definitions an item sees depends only on
where it sits, and none appears once the features are collected, so this plugin gathers them once
per fixture manager and item parent, with pytest-bdd's own helpers, and then does per step what
pytest-bdd does: the same kind, a parser that matches, in the same order (a ``parse`` parser is
not tried on a step that does not begin as its text does). What a step's text matched is kept:
pytest-bdd looks each step up twice, and the same texts recur from scenario to scenario (816
steps of 406 texts in the features). A pytest-bdd without these helpers
(8.1 keeps a step's context on its function, not in a registry) keeps its own lookup.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias
from weakref import WeakKeyDictionary

import pytest
from pytest_bdd import parsers
from pytest_bdd.compat import getfixturedefs
from pytest_bdd.steps import StepFunctionContext

try:
    from pytest_bdd.compat import get_fixture_names
    from pytest_bdd.steps import step_function_context_registry
except ImportError:  # pytest-bdd < 9: its own lookup stays
    HELPERS = False
else:
    HELPERS = True

__all__ = ["gathering_once"]

Lookup: TypeAlias = Callable[..., Iterable[Any]]
"""``find_fixturedefs_for_step(step=, fixturemanager=, node=)``: the definitions of a step."""

_NAME = "find_fixturedefs_for_step"
bdd_scenario = importlib.import_module("pytest_bdd.scenario")
"""pytest-bdd's module (``pytest_bdd.scenario`` as an attribute is its function ``scenario``)."""

_ORIGINAL = pytest.StashKey[Lookup]()


Definition: TypeAlias = tuple[Any, StepFunctionContext, str]
"""A step definition's fixture, its context, and how every step it matches begins (or ``""``)."""


def _beginning(parser: object) -> str:
    """The ASCII text, lowercased, that every step ``parser`` matches begins with; else ``""``.

    A ``parse`` parser matches a whole step, from its first character, its text before the first
    field as written (in any case, unless told otherwise): a step that does not begin so cannot
    match, and needs no parsing.
    """
    if type(parser) is not parsers.parse:
        return ""
    beginning = str(parser.name).split("{", 1)[0]
    return beginning.lower() if beginning.isascii() else ""


def _cannot_match(beginning: str, text: str) -> bool:
    start = text[: len(beginning)]
    return bool(beginning) and start.isascii() and start.lower() != beginning


def gathering_once() -> Lookup:
    """pytest-bdd's lookup, the step definitions each item parent sees gathered on first use."""
    seen: WeakKeyDictionary[Any, dict[str, list[Definition]]] = WeakKeyDictionary()

    def visible(fixturemanager: Any, node: pytest.Item) -> list[Definition]:
        by_parent = seen.setdefault(fixturemanager, {})
        parent = "" if node.parent is None else node.parent.nodeid
        if parent not in by_parent:
            by_parent[parent] = [
                (fixturedef, context, _beginning(context.parser))
                for name in get_fixture_names(fixturemanager)
                for fixturedef in getfixturedefs(fixturemanager, name, node) or []
                if (context := step_function_context_registry.get(fixturedef.func)) is not None
            ]
        return by_parent[parent]

    found: WeakKeyDictionary[Any, dict[tuple[str, object, str], list[Any]]] = WeakKeyDictionary()

    def matching(fixturemanager: Any, node: pytest.Item, kind: object, text: str) -> list[Any]:
        return [
            fixturedef
            for fixturedef, context, beginning in visible(fixturemanager, node)
            if (context.type is None or context.type == kind)
            and not _cannot_match(beginning, text)
            and context.parser.is_matching(text)
        ]

    def find(*, step: Any, fixturemanager: Any, node: pytest.Item) -> Iterator[Any]:
        parent = "" if node.parent is None else node.parent.nodeid
        key = (parent, step.type, step.name)
        by_step = found.setdefault(fixturemanager, {})
        if key not in by_step:
            by_step[key] = matching(fixturemanager, node, step.type, step.name)
        return iter(by_step[key])

    return find


def pytest_configure(config: pytest.Config) -> None:
    """Put the gathering lookup in pytest-bdd's place for this run."""
    original = getattr(bdd_scenario, _NAME, None)
    if original is None or not HELPERS:
        return
    config.stash[_ORIGINAL] = original
    setattr(bdd_scenario, _NAME, gathering_once())


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give pytest-bdd its own lookup back (an in-process pytest run may follow)."""
    original = config.stash.get(_ORIGINAL, None)
    if original is not None:
        setattr(bdd_scenario, _NAME, original)
