"""A pytest plugin for the porting tests: write each scenario's verdict to $VERDICT_DUMP as JSON.

Loaded with ``-p tests.porting.verdict_dump``; it reads the verdict the suite's reports carry,
keeping the most severe phase's, as the summary does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skill_conformance.verdicts import Verdict
from skill_conformance.verdicts.reporting import result_of

_FOUND: dict[str, list[str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    result = result_of(report)
    if result is not None:
        _FOUND.setdefault(report.nodeid.rpartition("::")[2], []).append(result.verdict.value)


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("VERDICT_DUMP")
    if target:
        worst = {
            name: max(found, key=lambda verdict: Verdict(verdict).severity)
            for name, found in _FOUND.items()
        }
        Path(target).write_text(json.dumps(worst, indent=1, sort_keys=True))
