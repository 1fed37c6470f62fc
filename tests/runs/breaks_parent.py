"""A pytest plugin: pytest's own process breaks at its first report while its workers are busy.

In a worker (a process forked from pytest's), every scenario but the first sleeps for a minute in
its call; in pytest's own process the report hook raises at the first scenario's set-up.
"""

from __future__ import annotations

import os
import time

import pytest

_PARENT = os.getpid()


def pytest_runtest_call(item: pytest.Item) -> None:
    """In a worker, keep every scenario but the first busy for a minute."""
    if os.getpid() != _PARENT and item.session.items.index(item) > 0:
        time.sleep(60)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """In pytest's own process, break while replaying the first scenario's reports."""
    if os.getpid() == _PARENT and report.when == "setup":
        raise RuntimeError("the parent's report hook broke")
