"""A pytest plugin for the benchmark: the run without the frozen heap (``-p benchmarks.thaw``)."""

from __future__ import annotations

import gc

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Give what collection built back to the garbage collector before the first scenario."""
    del session
    gc.unfreeze()
