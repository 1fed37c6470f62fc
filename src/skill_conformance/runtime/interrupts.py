"""Interrupts: SIGTERM stops a run as Ctrl-C does, and more of them while it stops stay quiet.

The first interrupt stops the run: pytest catches it, writes the results and closes what the run
opened (the call in flight is cut short; the rest takes a few seconds, bounded by the suite's
timeouts). An interrupt raised anywhere during that closing (a user pressing Ctrl-C twice or three
times, say) would leave what the run started behind, skip the results file, or escape as a long
traceback; so once the first is caught, Ctrl-C only says, on one line, that the run is stopping,
until the last plugin's ``pytest_unconfigure`` (the zygote and its servers stopped). One that
still escapes pytest ends the run as interrupted (exit 2) on one line, never as a traceback.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

import pytest

from skill_conformance.signals import (
    Terminated,
    ignore,
    raise_on_sigint,
    raise_on_sigterm,
    settled,
)

__all__ = ["Terminated", "interrupted_again", "pytest_configure", "raise_on_sigterm"]

_QUIETED = pytest.StashKey[object]()
"""The SIGINT handler Ctrl-C had before the run quieted it, given back at its end."""
_STOPPING = b"skill-conformance: the run is already stopping (closing what it started)\n"


def _say_stopping(signum: int, frame: FrameType | None) -> None:
    """A SIGINT handler while the run stops: say so, once, raise nothing."""
    signal.signal(signal.SIGINT, ignore)
    os.write(2, _STOPPING)  # not sys.stderr: the handler may run inside one of its writes


def pytest_configure(config: pytest.Config) -> None:
    """Watch for the run's first interrupt."""
    config.pluginmanager.register(_Stopping(config), "skill-conformance-stopping")


class _Stopping:
    """Quiets Ctrl-C from the first interrupt pytest catches to the end of the run."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """The run is stopping: from now on Ctrl-C may no longer raise."""
        if isinstance(excinfo.value, KeyboardInterrupt):  # pytest.exit comes here too
            _quiet(self.config)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Let Ctrl-C interrupt again once every plugin has stopped what it started."""
        before = config.stash.get(_QUIETED, None)
        if before is not None and not settled():  # else the process is ending
            signal.signal(signal.SIGINT, before)  # type: ignore[arg-type]


def interrupted_again(config: pytest.Config) -> pytest.ExitCode:
    """End a run interrupted again before Ctrl-C was quieted: one line, exit 2.

    What :mod:`.options` does, around pytest's whole session, with an interrupt that escaped it.
    """
    _quiet(config)
    sys.stderr.write(
        "skill-conformance: interrupted again while the run was stopping: its report may be "
        "cut short\n"
    )
    return pytest.ExitCode.INTERRUPTED


def _quiet(config: pytest.Config) -> None:
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT)
    if main and before in (signal.default_int_handler, raise_on_sigint):
        signal.signal(signal.SIGINT, _say_stopping)
        config.stash[_QUIETED] = before
    if main and signal.getsignal(signal.SIGTERM) is raise_on_sigterm:  # one interrupt, either
        signal.signal(signal.SIGTERM, ignore)
