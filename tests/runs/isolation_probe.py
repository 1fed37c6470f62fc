"""A pytest plugin the isolation test loads into its conformance runs (``-p isolation_probe``).

After each scenario's teardown it writes one JSON line to ``$SC_ISOLATION_LOG``: the scenario's
node id, the modules in ``sys.modules`` that were loaded from under the run's ``--basetemp`` (the
scenarios' own directories), and the ``sys.path`` entries under it. A scenario that shares no
state leaves both empty. Each verdict the suite attaches to a report (its ``verdict`` and
``scenario_id`` user properties) is written as a line too, once, by the controlling process.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

from skill_conformance.verdicts.reporting import result_of


def _under(path: str | None, root: Path) -> bool:
    if not path:
        return False
    try:
        return Path(path).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False


_CONFIG: list[pytest.Config] = []


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG.append(config)


def _write(record: dict[str, object]) -> None:
    with open(os.environ["SC_ISOLATION_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _CONFIG and hasattr(_CONFIG[0], "workerinput"):
        return  # the controller gets (and writes) this report too
    result = result_of(report)
    if result is not None:
        _write({"nodeid": report.nodeid, "scenario_id": result.id, "verdict": result.verdict.value})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    try:
        yield
    finally:
        _record(item)


def _record(item: pytest.Item) -> None:
    root = Path(str(item.config.getoption("basetemp"))).resolve()
    modules = sorted(
        name
        for name, module in list(sys.modules.items())
        if _under(getattr(module, "__file__", None), root)
    )
    paths = sorted(entry for entry in sys.path if _under(entry, root))
    _write({"nodeid": item.nodeid, "modules": modules, "paths": paths})
