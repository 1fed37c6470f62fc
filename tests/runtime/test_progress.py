"""The judge of a call past its bound, on a clock and a processor time the test sets."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from skill_conformance.runtime.progress import Activity, Progress, activity

BOUND = 30.0


class _Machine:
    """What the judge is shown: the process's processor time and what it is seen doing."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.seconds = 0.0
        self.runnable = False

    def activity(self) -> Activity:
        return Activity(self.seconds, self.runnable)

    def judge(self, *, patient: bool = True) -> Progress:
        return Progress(BOUND, measure=self.activity, spent=lambda: self.spent, patient=patient)


def _run(
    progress: Progress,
    machine: _Machine,
    *,
    until: float,
    cpu_share: float = 0.0,
    starved: bool = False,
    since: float = 0.0,
) -> tuple[float, str] | None:
    """Look every 0.1 s from ``since`` to ``until``, the call using ``cpu_share`` of a processor."""
    elapsed = since
    while elapsed < until:
        elapsed = round(elapsed + 0.1, 1)
        machine.spent += 0.1 * cpu_share
        machine.seconds += 0.1 * cpu_share
        machine.runnable = starved
        how = progress.overrun(elapsed)
        if how is not None:
            return elapsed, how
    return None


def test_a_call_doing_nothing_is_a_hang_at_its_bound_and_not_before() -> None:
    machine = _Machine()
    assert _run(machine.judge(), machine, until=200) == (BOUND, "")


def test_a_call_working_slowly_goes_on_past_its_bound() -> None:
    """A tenth of a processor for 90 s: 9 s of processor time, as on a machine at load 20."""
    machine = _Machine()
    assert _run(machine.judge(), machine, until=90, cpu_share=0.1) is None


def test_a_call_waiting_for_a_processor_it_does_not_get_goes_on() -> None:
    """Starved: no processor time at all in a window, but a thread waits to run."""
    machine = _Machine()
    assert _run(machine.judge(), machine, until=90, starved=True) is None


def test_a_call_working_without_end_ends_once_it_had_its_bound_in_processor_time() -> None:
    machine = _Machine()
    ended = _run(machine.judge(), machine, until=200, cpu_share=0.5)
    assert ended == (2 * BOUND, "still working after 30 s of processor time")


def test_a_call_working_without_end_ends_at_four_times_its_bound_whatever_it_does() -> None:
    machine = _Machine()
    ended = _run(machine.judge(), machine, until=200, starved=True)
    assert ended == (4 * BOUND, "still working at 120 s, the most a call that works is given")


def test_a_call_that_stops_working_past_its_bound_is_a_hang_a_window_later() -> None:
    machine = _Machine()
    progress = machine.judge()
    assert _run(progress, machine, until=50, cpu_share=0.2) is None
    assert _run(progress, machine, since=50, until=60) == (51, "")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_activity_counts_a_live_childs_processor_time_and_sees_a_busy_thread_runnable() -> None:
    busy = "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end: pass"
    child = subprocess.Popen([sys.executable, "-c", busy])
    try:
        time.sleep(0.3)
        before = activity()
        time.sleep(1.0)  # this process asleep: only the child works
        after = activity()
    finally:
        child.kill()
        child.wait()
    assert after.seconds - before.seconds >= 0.05, (before, after)
    stop = threading.Event()
    spinner = threading.Thread(target=lambda: all(not stop.is_set() for _ in iter(int, 1)))
    spinner.start()
    try:
        seen = []
        for _ in range(100):
            seen.append(activity().runnable)
            time.sleep(0.01)
    finally:
        stop.set()
        spinner.join()
    assert any(seen)


def test_a_call_queued_behind_one_holding_the_loop_is_given_its_bound_alone() -> None:
    """What is seen working is the call given up on: this one has not even begun."""
    machine = _Machine()
    assert _run(machine.judge(patient=False), machine, until=200, cpu_share=1.0) == (BOUND, "")
