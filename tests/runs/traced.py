"""A pytest plugin that installs a trace function, as coverage and debuggers do."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest


def _trace(frame: FrameType, event: str, arg: Any) -> None:
    """Trace no frame: installed, it is all a tool like coverage shows of itself."""


def pytest_configure(config: pytest.Config) -> None:
    """Install the trace function in pytest's process."""
    sys.settrace(_trace)
