"""Every mutant of the reference, run through the conformance suite, must die.

Each must-die mutant gets one ``pytest steps --impl <mutant>`` run in a subprocess (the runs go
in parallel, ``SC_MUTANT_WORKERS`` at a time, default one per CPU). The run must end as a test
failure (exit status 1, not an internal or usage error) and fail or error at least the scenarios
the catalog names for that mutant. The mutants not marked ``extra``, at least one per requirement
and per RFC regression, run the whole suite, which must give every scenario a verdict; an
``extra`` one (a second mutant of a requirement) runs only the scenarios that must catch it,
which must each get one: a whole run would only repeat the first check, at twice the cost.
``SC_ALL_MUTANTS=1`` runs the extra ones too. The runs are ``slow``: ``make ci`` runs them all,
``make test`` none.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path

import pytest

from skill_conformance.runtime.run import ZYGOTE_VARIABLE
from skill_conformance.testing.zygote import Zygote
from tests.mutants.catalog import MUTANTS, REQUIREMENTS, RFC_A, RFC_B, RFC_C, Mutant
from tests.mutants.suite_run import ROOT, SuiteRun, run_suite

FEATURES = ROOT / "features"
MUST_DIE = [mutant for mutant in MUTANTS if not mutant.survives]
RUN = [m for m in MUST_DIE if not m.extra or os.environ.get("SC_ALL_MUTANTS") == "1"]
WORKERS = int(os.environ.get("SC_MUTANT_WORKERS") or os.cpu_count() or 2)


def _feature_tags(prefix: str) -> set[str]:
    pattern = re.compile(rf"@{prefix}:(\S+)")
    return {
        match.group(1)
        for path in sorted(Path(FEATURES).glob("*.feature"))
        for match in pattern.finditer(path.read_text())
    }


SCENARIO_IDS = {
    match.group(1)
    for path in sorted(Path(FEATURES).glob("*.feature"))
    for line in path.read_text().splitlines()
    if "@profile:mcp-server" not in line
    for match in re.finditer(r"@id:(\S+)", line)
}
"""The scenarios a run against a skill system (a mutant of the reference) is given: every one
but the MCP server profile's, which such a run leaves out."""


# -- the catalog itself (cheap) ------------------------------------------------------------


def test_the_catalog_names_the_specs_requirements() -> None:
    """Every requirement a skill system is held to, the host profile's (``@profile:mcp-host``)
    included; the server profile's (``@profile:mcp-server``) have the reference server's mutants,
    in ``tests/servers/``."""
    server = {
        match.group(1).split(".")[0]
        for path in sorted(Path(FEATURES).glob("*.feature"))
        for line in path.read_text().splitlines()
        if "@profile:mcp-server" in line
        for match in re.finditer(r"@id:(\S+)", line)
    }
    assert server  # the profile's feature is there, and left out below
    assert set(REQUIREMENTS) == _feature_tags("requirement") - server
    assert len(REQUIREMENTS) == 38


def test_every_requirement_and_rfc_regression_has_a_mutant_that_must_die() -> None:
    broken = {mutant.breaks for mutant in MUST_DIE if not mutant.extra}
    assert set(REQUIREMENTS) | {RFC_A, RFC_B, RFC_C} <= broken


def test_every_expected_catcher_is_a_real_scenario() -> None:
    for mutant in MUTANTS:
        unknown = set(mutant.must_catch) - SCENARIO_IDS
        assert not unknown, f"{mutant.attribute}: no such scenario: {sorted(unknown)}"
        assert mutant.must_catch or mutant.survives, f"{mutant.attribute} names no catcher"


def test_every_mutant_loads_as_an_implementation() -> None:
    from skill_conformance.runtime.loading import load_implementation

    for mutant in MUTANTS:
        assert load_implementation(mutant.impl).name.startswith("mutant:")


# -- the runs ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mutant_runs(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[SuiteRun]]]:
    """One full suite run per must-die mutant, in parallel; a line as each ends.

    The runs share one zygote, so that their test MCP servers do not import ``mcp`` each.
    """
    zygote = Zygote()
    env = {ZYGOTE_VARIABLE: zygote.address}
    progress = _Progress(request.config, len(RUN))
    with ThreadPoolExecutor(max_workers=WORKERS) as executor:
        futures = {
            mutant.impl: executor.submit(run_suite, mutant.impl, *_selection(mutant), env=env)
            for mutant in RUN
        }
        try:
            for future in as_completed(futures.values()):
                progress.done(future.result())
            yield futures
        finally:
            for future in futures.values():
                future.cancel()
            zygote.stop()


def _scenarios(mutant: Mutant) -> set[str]:
    """The scenarios a run of ``mutant`` is given: all, or for an extra one those to catch it."""
    return set(mutant.must_catch) if mutant.extra else SCENARIO_IDS


def _selection(mutant: Mutant) -> tuple[str, ...]:
    """The option selecting :func:`_scenarios` (none: the whole suite)."""
    chosen = _scenarios(mutant)
    return () if chosen == SCENARIO_IDS else (f"--scenario-ids={','.join(sorted(chosen))}",)


class _Progress:
    """Prints, past pytest's capture, one line per finished run: the check runs for minutes."""

    def __init__(self, config: pytest.Config, total: int) -> None:
        self.capture = config.pluginmanager.getplugin("capturemanager")
        self.reporter = config.pluginmanager.getplugin("terminalreporter")
        self.total, self.count, self.began = total, 0, time.monotonic()

    def done(self, run: SuiteRun) -> None:
        self.count += 1
        if self.reporter is None or self.capture is None:
            return
        with self.capture.global_and_fixture_disabled():
            self.reporter.write_line(
                f"mutant {self.count}/{self.total} ran ({run.impl}, exit {run.returncode}, "
                f"{run.seconds:.0f} s; {time.monotonic() - self.began:.0f} s so far)"
            )


@pytest.mark.slow
@pytest.mark.parametrize("mutant", RUN, ids=lambda m: m.attribute.partition(":")[2])
def test_mutant_dies_on_the_scenarios_that_should_catch_it(
    mutant: Mutant, mutant_runs: dict[str, Future[SuiteRun]]
) -> None:
    run = mutant_runs[mutant.impl].result()
    tail = run.output[-4000:]
    assert not run.internal_errors(), f"the suite itself broke on {mutant.impl}:\n{tail}"
    assert run.returncode == 1, f"exit status {run.returncode}, not 1 (tests failed):\n{tail}"
    assert set(run.verdicts) == _scenarios(mutant), f"verdicts not as run:\n{tail}"
    missed = sorted(set(mutant.must_catch) - run.bad())
    assert not missed, f"{mutant.impl} ({mutant.breaks}) escaped {missed}:\n{tail}"
