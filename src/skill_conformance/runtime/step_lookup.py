"""pytest-bdd's step lookup, remembered: a step text resolves once per run, not once per step.

To find the definition of a step, pytest-bdd asks pytest for every fixture visible to the item
(about 180 in a conformance run) and tries the parser of each step definition on the step's text,
for every step of every scenario: measured, a fifth of what a conformance run does between its
collection and its end. What it finds depends only on the step's kind and text and on where the
item sits, and no step definition appears once the features are collected: this plugin keeps the
answer for each (kind, text, the item's parent), per fixture manager, for as long as pytest
runs. Each lookup is still pytest-bdd's own, made the first time; with a pytest-bdd that has no
such function the plugin does nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias
from weakref import WeakKeyDictionary

import pytest

__all__ = ["remembering"]

Lookup: TypeAlias = Callable[..., Iterable[Any]]
"""``find_fixturedefs_for_step(step=, fixturemanager=, node=)``: the definitions of a step."""

_ORIGINAL = pytest.StashKey[Lookup]()

_NAME = "find_fixturedefs_for_step"
bdd_scenario = importlib.import_module("pytest_bdd.scenario")
"""pytest-bdd's module (``pytest_bdd.scenario`` as an attribute is its function ``scenario``)."""


def remembering(lookup: Lookup) -> Lookup:
    """``lookup``, each answer kept per fixture manager and (step kind, step text, item parent)."""
    answers: WeakKeyDictionary[object, dict[tuple[object, str, str], tuple[Any, ...]]]
    answers = WeakKeyDictionary()

    def find(*, step: Any, fixturemanager: Any, node: pytest.Item) -> Iterator[Any]:
        known = answers.setdefault(fixturemanager, {})
        key = (step.type, step.name, "" if node.parent is None else node.parent.nodeid)
        if key not in known:
            known[key] = tuple(lookup(step=step, fixturemanager=fixturemanager, node=node))
        return iter(known[key])

    return find


def pytest_configure(config: pytest.Config) -> None:
    """Put the remembering lookup in pytest-bdd's place for this run."""
    original = getattr(bdd_scenario, _NAME, None)
    if original is None:
        return
    config.stash[_ORIGINAL] = original
    setattr(bdd_scenario, _NAME, remembering(original))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give pytest-bdd its own lookup back (an in-process pytest run may follow)."""
    original = config.stash.get(_ORIGINAL, None)
    if original is not None:
        setattr(bdd_scenario, _NAME, original)
