"""Steps that say loading must finish: a loader that blocks fails them; elsewhere a hang errors.

The loaders here block the way the third parties were seen to: awaiting forever (the in-loop
timeout cuts them off) and blocking the event loop's own thread, as a synchronous ``open`` of a
named pipe does (only the caller's wait, past its grace, gives up on them).
"""

from __future__ import annotations

import asyncio
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
SLOWED_TIMEOUT = 1.0
SLOWED_FOR = 2.5
"""A slowed loader's wall time: past its timeout, short of the CPU time it is allowed."""


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
        elif self.how == "slowed":  # works a third of the time, as on a machine shared by three
            until = time.monotonic() + SLOWED_FOR
            while time.monotonic() < until:
                busy = time.process_time() + 0.05
                while time.process_time() < busy:
                    pass
                await asyncio.sleep(0.1)

    async def list_skills(self) -> list[SkillListing]:
        return [SkillListing("healthy", "A healthy skill.", "local")]

    async def close(self) -> None:
        pass


class _Implementation:
    name = "loader"
    version = "0"
    unsupported: Mapping[Ability, str] = {}

    def __init__(self, how: str) -> None:
        self.how = how

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return _Loader(self.how)  # type: ignore[return-value]


def _context(tmp_path: Path, how: str, timeout: float = TIMEOUT) -> ScenarioContext:
    implementation = _Implementation(how)
    return ScenarioContext(implementation, World(tmp_path), timeout=timeout)  # type: ignore[arg-type]


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


def test_a_loader_still_making_progress_past_the_timeout_passes(tmp_path: Path) -> None:
    """The bound judges progress: a loader slowed by a loaded machine is not a hang."""
    context = _context(tmp_path, "slowed", SLOWED_TIMEOUT)
    try:
        when_list_skills_bounded(context)
    finally:
        context.close()
    assert [entry.name for entry in context.listing or []] == ["healthy"]
