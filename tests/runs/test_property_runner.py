"""The property runner: edges first, bounded, deterministic by seed, the smallest failure shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

from skill_conformance.port import Unsupported
from skill_conformance.steps.property_runner import (
    SHRINK_BUDGET,
    Examples,
    Property,
    check_property,
)
from skill_conformance.verdicts import Mismatch


def _examples(tmp_path: Path) -> Examples:
    return Examples(implementation=None, root=tmp_path, timeout=1.0, zygote=None, needs=None)  # type: ignore[arg-type]


def _recording(tried: list[int], fails: int | None = None) -> Property[int]:
    def check(_: Examples, value: int) -> None:
        tried.append(value)
        if fails is not None and value >= fails:
            raise Mismatch("too big", expected=f"below {fails}", observed=f"{value}")

    return Property("numbers", st.integers(0, 10_000), edges=(7, 3), check=check, budget=12)


def test_edges_come_first_and_the_budget_bounds_the_run(tmp_path: Path) -> None:
    tried: list[int] = []
    count = check_property(_recording(tried), _examples(tmp_path), 0)
    assert tried[:2] == [7, 3]
    assert count == len(tried) <= 2 + 12


def test_the_same_seed_tries_the_same_examples_and_another_seed_others(tmp_path: Path) -> None:
    runs = []
    for chosen in (0, 0, 1):
        tried: list[int] = []
        check_property(_recording(tried), _examples(tmp_path), chosen)
        runs.append(tried)
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_a_failure_shows_the_smallest_failing_example_within_the_shrink_budget(
    tmp_path: Path,
) -> None:
    tried: list[int] = []
    with pytest.raises(Mismatch) as raised:
        check_property(_recording(tried, fails=500), _examples(tmp_path), 0)
    assert raised.value.observed.endswith("smallest failing example found: 500")
    assert raised.value.what == "too big"
    assert len(tried) <= 2 + 12 + SHRINK_BUDGET
    assert len(tried) == len(set(tried)), "an example is checked once, its outcome remembered"


def test_a_failing_edge_is_shown_as_it_is(tmp_path: Path) -> None:
    with pytest.raises(Mismatch) as raised:
        check_property(_recording([], fails=5), _examples(tmp_path), 0)
    assert raised.value.observed.endswith("smallest failing example found: 7")


def test_an_example_the_implementation_cannot_take_makes_the_property_not_applicable(
    tmp_path: Path,
) -> None:
    def check(_: Examples, value: int) -> None:
        raise Unsupported("no such form")

    prop = Property("numbers", st.integers(), edges=(1,), check=check)
    with pytest.raises(Unsupported, match="no such form"):
        check_property(prop, _examples(tmp_path), 0)
