"""The property scenarios catch what the point scenarios miss: the evidence for each property.

Each mutant of ``property_mutants`` is run on every scenario that checks the clauses its property
scenario checks: the property scenario must fail, and every point scenario of those clauses pass.
A point scenario catching it too would make the mutant no evidence for the property (it belongs in
another module); the property missing it would mean the property is too weak.
"""

from __future__ import annotations

import re

import pytest

from tests.mutants.catalog import MUTANTS, Mutant
from tests.mutants.suite_run import ROOT, run_suite

PROPERTY_MUTANTS = [m for m in MUTANTS if m.attribute.startswith("property_mutants:")]
_SCENARIO = re.compile(r"^\s*@id:(?P<id>\S+)(?P<tags>.*)$", re.MULTILINE)


def _clauses_by_scenario() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "features").glob("*.feature")):
        for match in _SCENARIO.finditer(path.read_text()):
            found[match["id"]] = set(re.findall(r"@clause:(\S+)", match["tags"]))
    return found


def _neighbours(scenario: str) -> set[str]:
    """Every scenario checking a clause that ``scenario`` checks, ``scenario`` included."""
    clauses = _clauses_by_scenario()
    return {other for other, tags in clauses.items() if tags & clauses[scenario]}


def test_each_property_mutant_names_one_property_scenario() -> None:
    assert len(PROPERTY_MUTANTS) >= 4
    for mutant in PROPERTY_MUTANTS:
        assert len(mutant.must_catch) == 1
        assert "holds-over-its-domain" in mutant.must_catch[0]
        assert len(_neighbours(mutant.must_catch[0])) > 1, "no point scenario to compare with"


@pytest.mark.slow
@pytest.mark.parametrize("mutant", PROPERTY_MUTANTS, ids=lambda m: m.attribute.partition(":")[2])
def test_the_property_catches_what_the_points_miss(mutant: Mutant) -> None:
    (caught,) = mutant.must_catch
    scenarios = _neighbours(caught)
    run = run_suite(mutant.impl, f"--scenario-ids={','.join(sorted(scenarios))}")
    assert not run.internal_errors(), run.output[-3000:]
    assert set(run.verdicts) == scenarios, run.output[-3000:]
    assert run.bad() == {caught}, run.output[-3000:]
