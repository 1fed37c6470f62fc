"""A pytest plugin that writes each scenario's verdict to a JSON file: ``--verdicts-json=FILE``.

The suite's own plugin attaches the verdict to every report (``verdict`` and ``scenario_id`` user
properties); this one keeps the most severe verdict per scenario id, so that a test running the
suite in a subprocess can assert on verdicts without parsing terminal output. With
``--scenario-ids=ID,ID`` only the scenarios of those ids run (the others are deselected).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_conformance.runtime.run import spec_tags
from skill_conformance.verdicts import Verdict
from skill_conformance.verdicts.reporting import result_of

_KEY = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--verdicts-json", default=None, help="write scenario verdicts to FILE")
    parser.addoption("--scenario-ids", default=None, help="run only the scenarios of these ids")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect, before any other plugin sees them, the scenarios ``--scenario-ids`` leaves out."""
    wanted = config.getoption("--scenario-ids")
    if wanted is None:
        return
    ids = set(wanted.split(","))
    kept, dropped = [], []
    for item in items:
        (kept if ids.intersection(spec_tags(item).get("id", ())) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = {}


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    result = result_of(report)
    if result is None:
        return
    verdicts = _CONFIG[0].stash[_KEY]
    scenario, verdict = result.id, result.verdict.value
    previous = verdicts.get(scenario)
    if previous is None or Verdict(verdict).severity > Verdict(previous).severity:
        verdicts[scenario] = verdict


_CONFIG: list[pytest.Config] = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG[:] = [session.config]


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = session.config.getoption("--verdicts-json")
    if target:
        Path(target).write_text(json.dumps(session.config.stash[_KEY], indent=1, sort_keys=True))
