"""A plugin that interrupts a run twice: in its first scenario, then inside pytest's handling.

The second stands for a Ctrl-C pressed again while pytest is still reporting the first, before
it has set the run's exit status.
"""

from __future__ import annotations

import pytest


def pytest_runtest_call(item: pytest.Item) -> None:
    raise KeyboardInterrupt


@pytest.hookimpl(trylast=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    raise KeyboardInterrupt
