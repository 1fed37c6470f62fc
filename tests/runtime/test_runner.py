"""The blocking runner: one task per system, bounded waits, crashes and hangs told apart."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from typing import Any

import pytest

from skill_conformance.port import ErrorKind, SkillSystemError
from skill_conformance.runtime.blocking import ImplementationCrash, ImplementationHang, blocking


class _System:
    """Just enough of an AsyncSkillSystem for the runner; unused operations are absent."""

    def __init__(self) -> None:
        self.tasks: list[Any] = []

    async def start(self) -> None:
        self.tasks.append(asyncio.current_task())

    async def enter(self) -> None:
        self.tasks.append(asyncio.current_task())

    async def tool_names(self) -> list[str]:
        await asyncio.sleep(3600)
        return []

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        if skill == "interrupting":
            raise KeyboardInterrupt
        if skill == "missing":
            raise SkillSystemError(ErrorKind.NOT_FOUND, "no skill 'missing'")
        raise KeyError(skill)

    async def rebuild(self) -> None:
        time.sleep(2)  # blocks the loop itself

    def problems(self) -> list[str]:
        return ["one"]

    async def close(self) -> None:
        pass


def test_every_call_runs_on_one_task() -> None:
    system = _System()
    runner = blocking(system, timeout=5)  # type: ignore[arg-type]
    runner.start()
    runner.enter()
    runner.close()
    assert len(system.tasks) == 2
    assert system.tasks[0] is system.tasks[1]


def test_port_errors_pass_through_and_others_are_crashes() -> None:
    runner = blocking(_System(), timeout=5)  # type: ignore[arg-type]
    with pytest.raises(SkillSystemError) as not_found:
        runner.load_skill("missing")
    assert not_found.value.kind is ErrorKind.NOT_FOUND
    with pytest.raises(ImplementationCrash, match=r"load_skill\(\) crashed: KeyError"):
        runner.load_skill("other")
    runner.close()


def test_a_hang_is_cut_off_at_the_timeout() -> None:
    runner = blocking(_System(), timeout=0.2)  # type: ignore[arg-type]
    began = time.monotonic()
    with pytest.raises(ImplementationHang, match=r"tool_names\(\) did not finish within 0.2 s"):
        runner.tool_names()
    assert time.monotonic() - began < 3
    runner.close()


def test_problems_are_read_without_the_loop() -> None:
    runner = blocking(_System(), timeout=1)  # type: ignore[arg-type]
    assert runner.problems() == ["one"]
    runner.close()


def test_an_interrupt_raised_by_the_implementation_is_its_crash() -> None:
    runner = blocking(_System(), timeout=5)  # type: ignore[arg-type]
    with pytest.raises(ImplementationCrash, match="KeyboardInterrupt"):
        runner.load_skill("interrupting")
    runner.close()


def test_an_interrupt_of_the_caller_passes_and_cuts_the_call_in_flight_short() -> None:
    runner = blocking(_System(), timeout=30)  # type: ignore[arg-type]
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C
    timer.start()
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        runner.tool_names()  # sleeps for an hour
    assert time.monotonic() - began < 5
    began = time.monotonic()
    runner.close()  # does not queue behind the hour-long call
    assert time.monotonic() - began < 5


class _Entering:
    """An enter that waits to be cancelled, swallows the cancellation, fails, or returns at once."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.waiting = threading.Event()

    async def enter(self) -> None:
        if self.how == "at once":
            return
        self.waiting.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if self.how == "swallows":
                return
            if self.how == "fails":
                raise RuntimeError("a server refused to stop") from None
            raise

    async def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("how", "outcome"),
    [
        ("propagates", "cancelled"),
        ("swallows", "returned"),
        ("fails", "raised RuntimeError: a server refused to stop"),
        ("at once", "finished"),
    ],
)
def test_a_cancelled_enter_is_told_by_how_it_ended(how: str, outcome: str) -> None:
    system = _Entering(how)
    runner = blocking(system, timeout=5)  # type: ignore[arg-type]
    began = time.monotonic()
    assert runner.cancel_enter(system.waiting.is_set) == outcome
    assert time.monotonic() - began < 3
    runner.close()
