"""Whether a call past its bound is still working: judged by processor time, not wall time alone.

A call that overran the scenario's bound (30 s) used to be a hang whatever it was doing: on a
loaded machine an honest loader parsing a 10 MB frontmatter (8 s of processor time when idle) was
cut off at 30 s, having had a fraction of a processor. Past its bound a call is now judged by the
work it is seen doing over each window (a second at the usual bound):

- a call whose processor time grows (this process's threads and the processes below it), or one of
  whose threads waits for a processor, is working and goes on;
- a call seen doing nothing (awaiting forever, asleep on a pipe) is a hang, at its bound as before;
- a call working without end (YAML aliases expanding) is a hang once this process has had as much
  processor time since the call began as the bound, which an idle machine gives it in the bound;
- and any call is a hang at :data:`CEILING` times its bound, whatever it does.

Where ``/proc`` cannot tell (another system), the processor time of this process alone counts.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from skill_conformance.runtime.tripwire import processes

__all__ = ["CEILING", "Activity", "Progress", "activity"]

CEILING = 4.0
"""A call that works is cut off at this many times its bound all the same."""

_WINDOW = 1.0
"""Seconds over which a call past its bound must be seen working (a third of a short bound)."""

_SHARE = 0.05
"""The least share of a processor a call must get over a window to count as working."""

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Activity(NamedTuple):
    """What the implementation is seen doing at one moment."""

    seconds: float
    """Processor time so far of this process and of the processes below it."""
    runnable: bool
    """Whether any of their threads (but the one looking) is running or waiting to run."""


def _stat(path: str) -> list[str]:
    """The fields of a ``/proc`` stat file after the command name (the third field first)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return []
    return text[text.rfind(")") + 2 :].split()


def activity() -> Activity:
    """What this process and its descendants do, as ``/proc`` shows it (elsewhere: this process)."""
    if not sys.platform.startswith("linux"):
        return Activity(time.process_time(), runnable=False)
    looking = str(threading.get_native_id())
    seconds, runnable, root = 0.0, False, os.getpid()
    for pid in processes(root):
        fields = _stat(f"/proc/{pid}/stat")
        if len(fields) > 12:  # utime and stime, fields 14 and 15
            seconds += (int(fields[11]) + int(fields[12])) / _TICK
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        runnable = runnable or any(
            (_stat(f"/proc/{pid}/task/{task}/stat") or ["S"])[0] == "R"
            for task in tasks
            if not (pid == root and task == looking)
        )
    return Activity(seconds, runnable)


class Progress:
    """The judge of one call: whether it may go on, past its bound, and if not, why."""

    def __init__(
        self,
        bound: float,
        measure: Callable[[], Activity] = activity,
        spent: Callable[[], float] = time.process_time,
        *,
        patient: bool = True,
    ) -> None:
        """Judge a call beginning now; ``spent`` tells this process's processor time so far.

        Not ``patient``: the call is given its bound alone, whatever is seen working.
        """
        self._bound = bound
        self._patient = patient
        self._window = min(_WINDOW, bound / 3)
        self._measure = measure
        self._spent = spent
        self._began = spent()
        self._since: tuple[float, Activity] | None = None

    def overrun(self, elapsed: float) -> str | None:
        """``None`` while the call, ``elapsed`` s in, may go on; else how it overran.

        The empty string for a call seen doing nothing at its bound; else what it was doing.
        """
        if elapsed < self._bound - self._window:
            return None
        if not self._patient:
            return "" if elapsed >= self._bound else None
        if elapsed >= self._bound * CEILING:
            return f"still working at {elapsed:.3g} s, the most a call that works is given"
        spent = self._spent() - self._began
        if elapsed >= self._bound and spent >= self._bound:
            return f"still working after {spent:.3g} s of processor time"
        if self._since is None:
            self._since = (elapsed, self._measure())
            return None
        began, before = self._since
        if elapsed - began < self._window:
            return None
        now = self._measure()
        working = (
            now.seconds - before.seconds >= _SHARE * (elapsed - began)
            or now.runnable
            or before.runnable
        )
        if elapsed >= self._bound and not working:
            return ""
        self._since = (elapsed, now)
        return None
