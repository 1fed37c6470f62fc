"""Steps that say loading must finish: a loader that blocks fails them; elsewhere a hang errors.

The loaders here block the way the third parties were seen to: awaiting forever (the in-loop
timeout cuts them off) and blocking the event loop's own thread, as a synchronous ``open`` of a
named pipe does (only the caller's wait, past its grace, gives up on them).
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from skill_conformance.port import Ability, AsyncSkillSystem, Setup, SkillListing
from skill_conformance.runtime.blocking import ImplementationCrash, ImplementationHang
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.world import World
from skill_conformance.steps.skill_tools import when_list_skills, when_list_skills_bounded
from skill_conformance.verdicts import Mismatch

TIMEOUT = 0.3


class _Loader:
    """Just enough of an AsyncSkillSystem: ``start`` behaves as ``how`` says."""

    def __init__(self, how: str) -> None:
        self.how = how

    async def start(self) -> None:
        if self.how == "awaits":
            await asyncio.sleep(3600)
        elif self.how == "blocks-the-loop":
            time.sleep(6)  # past the timeout and the caller's grace of 5 s
        elif self.how == "crashes":
            raise RuntimeError("loader broke")
        elif self.how == "works-slowly":  # a quarter of a processor, as on a loaded machine
            await _work(seconds=2 * TIMEOUT, share=0.25)
        elif self.how == "works-for-ever":
            await _work(seconds=60, share=1.0)
        elif self.how.startswith("works-in-a-child"):
            await _child(seconds=2 * TIMEOUT if self.how == "works-in-a-child" else 60)

    async def list_skills(self) -> list[SkillListing]:
        return [SkillListing("healthy", "A healthy skill.", "local")]

    async def close(self) -> None:
        pass


async def _work(seconds: float, share: float) -> None:
    """Keep a processor busy ``share`` of the time for ``seconds``, giving the loop back often."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        busy = time.thread_time() + 0.004
        while time.thread_time() < busy:
            pass
        time.sleep(0.004 * (1 - share) / share)
        await asyncio.sleep(0)


async def _child(seconds: float) -> None:
    """Wait for a process of the implementation's own that keeps a processor busy ``seconds``."""
    busy = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", busy)
    try:
        await child.wait()
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()


class _Implementation:
    name = "loader"
    version = "0"
    unsupported: Mapping[Ability, str] = {}

    def __init__(self, how: str) -> None:
        self.how = how

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return _Loader(self.how)  # type: ignore[return-value]


def _context(tmp_path: Path, how: str) -> ScenarioContext:
    implementation = _Implementation(how)
    return ScenarioContext(implementation, World(tmp_path), timeout=TIMEOUT)  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["awaits", "blocks-the-loop"])
def test_a_loader_that_blocks_fails_a_step_that_must_finish(tmp_path: Path, how: str) -> None:
    context = _context(tmp_path, how)
    try:
        with pytest.raises(Mismatch) as failed:
            when_list_skills_bounded(context)
    finally:
        context.close()
    assert failed.value.expected == f"start() to finish within {TIMEOUT:g} s"
    assert failed.value.observed == f"start() did not finish within {TIMEOUT:g} s"
    assert context.listing is None


def test_a_loader_that_blocks_errors_a_step_that_does_not_say_so(tmp_path: Path) -> None:
    context = _context(tmp_path, "awaits")
    try:
        with pytest.raises(ImplementationHang):
            when_list_skills(context)
    finally:
        context.close()


def test_a_loader_that_finishes_passes_the_step(tmp_path: Path) -> None:
    context = _context(tmp_path, "finishes")
    try:
        when_list_skills_bounded(context)
    finally:
        context.close()
    assert [entry.name for entry in context.listing or []] == ["healthy"]


def test_a_crash_stays_a_crash(tmp_path: Path) -> None:
    context = _context(tmp_path, "crashes")
    try:
        with pytest.raises(ImplementationCrash, match="loader broke"):
            when_list_skills_bounded(context)
    finally:
        context.close()


@pytest.mark.parametrize("how", ["works-slowly", "works-in-a-child"])
def test_a_loader_seen_working_past_the_bound_is_given_the_time_it_needs(
    tmp_path: Path, how: str
) -> None:
    """A loaded machine gives an honest loader a fraction of a processor: it works past 30 s."""
    context = _context(tmp_path, how)
    try:
        when_list_skills_bounded(context)
    finally:
        context.close()
    assert [entry.name for entry in context.listing or []] == ["healthy"]


@pytest.mark.parametrize("how", ["works-for-ever", "works-in-a-child-for-ever"])
def test_a_loader_working_without_end_is_a_hang_all_the_same(tmp_path: Path, how: str) -> None:
    """Its own processor time spent (the bound's worth), or four times the bound gone, it ends.

    Which comes first depends on the machine's load: the rules apart are in test_progress.py.
    """
    context = _context(tmp_path, how)
    began = time.monotonic()
    try:
        with pytest.raises(Mismatch) as failed:
            when_list_skills_bounded(context)
    finally:
        context.close()
    said = r"^start\(\) did not finish within 0\.3 s, still working (after|at) [\d.]+ s"
    assert re.search(said, failed.value.observed or ""), failed.value.observed
    assert time.monotonic() - began < 4 * TIMEOUT + 3.0
