"""A call seen waiting on a hostile fixture of the world ends at once, not at the scenario's bound.

The loaders here wait as the real codebase was seen to: opening a ``SKILL.md`` that is a named pipe
in the event loop's own thread (or in a child process), importing a tool module that never finishes
importing. With a bound of 30 s, each step ends a little after :data:`STUCK_AFTER`, saying what
the call is stuck on (at the bound it would say it did not finish within 30 s).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from skill_conformance.port import Ability, AsyncSkillSystem, Setup, SkillListing
from skill_conformance.runtime.blocking import ImplementationStuck
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.world import World
from skill_conformance.steps.skill_tools import when_list_skills, when_list_skills_bounded
from skill_conformance.verdicts import Mismatch

BOUND = 30.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


class _Loader:
    """Loads the world's skills as ``how`` says, then lists ``healthy``."""

    def __init__(self, how: str, setup: Setup) -> None:
        self.how, self.setup = how, setup

    async def start(self) -> None:
        pipe = self.setup.skills_dir / "piped" / "SKILL.md"
        if self.how == "opens-the-pipe":
            pipe.read_text()  # in the loop's own thread: it waits for a writer
        elif self.how == "child-opens-the-pipe":
            code = f"open({str(pipe)!r}).read()"
            subprocess.run([sys.executable, "-c", code], check=False, timeout=60)
        elif self.how == "abandons-the-pipe":  # a thread of its own, given up after 0.1 s
            reader = threading.Thread(target=pipe.read_text, daemon=True)
            reader.start()
            reader.join(0.1)
        elif self.how == "imports":
            sys.path.insert(0, str(self.setup.python_path[0]))
            try:
                for module in self.setup.python_path[0].glob("sc_broken_*.py"):
                    importlib.import_module(module.stem)
            except ImportError:
                pass
            finally:
                sys.path.remove(str(self.setup.python_path[0]))

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
        return _Loader(self.how, setup)  # type: ignore[return-value]


def _context(tmp_path: Path, how: str) -> ScenarioContext:
    world = World(tmp_path)
    world.skill("healthy")
    if how == "imports":
        world.add_failing_python_tool("sleeper", "probe", "hang")
    else:
        world.skill_file_pipe("piped")
    return ScenarioContext(_Implementation(how), world, timeout=BOUND)  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["opens-the-pipe", "child-opens-the-pipe"])
def test_waiting_on_a_named_pipe_fails_a_step_that_must_finish_at_once(
    tmp_path: Path, how: str
) -> None:
    context = _context(tmp_path, how)
    try:
        with pytest.raises(Mismatch) as failed:
            when_list_skills_bounded(context)
    finally:
        context.close()  # lets go of the reader: the loop finishes the call, then closes
    assert failed.value.observed == (
        "start() is stuck: it waits to read the named pipe `piped/SKILL.md`, which nothing "
        "writes to"
    )


def test_a_wait_abandoned_to_a_thread_of_its_own_is_no_hang(tmp_path: Path) -> None:
    context = _context(tmp_path, "abandons-the-pipe")
    try:
        when_list_skills_bounded(context)
    finally:
        context.close()
    assert [entry.name for entry in context.listing or []] == ["healthy"]


def test_an_import_that_never_finishes_errors_at_once(tmp_path: Path) -> None:
    context = _context(tmp_path, "imports")
    try:
        with pytest.raises(ImplementationStuck) as stuck:
            when_list_skills(context)
    finally:
        context.close()
    assert str(stuck.value) == (
        "start() is stuck: importing the module of `sleeper`'s tool `probe`, which never finishes"
    )
