"""Implementations that misbehave on purpose; the suite must still finish and report on each.

Each is the reference adapter with one kind of misbehaviour: it raises, returns the wrong types,
hangs, starts MCP servers that crash or never answer, or leaves its servers running. Two behave
well in ways the suite must not hold against them: one warns, as libraries do, and one lacks
features and says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic_ai.capabilities import AbstractCapability

from skill_conformance.adapters.reference import (
    ReferenceImplementation,
    ReferenceParts,
    ReferenceSystem,
)
from skill_conformance.port import (
    Ability,
    AsyncSkillSystem,
    McpChild,
    Setup,
    SkillListing,
    Unsupported,
)
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import ManagerFactory
from skill_conformance.reference.skill import Skill

_QUESTIONS = (
    "tool_names",
    "run_tool",
    "load_skill",
    "list_skills",
    "resolve_uri",
    "registry_skill_names",
    "rebuild",
    "enter",
    "agent_tool_names",
    "agent_load_skill",
)


def _implementation(name: str, system: type[ReferenceSystem]) -> type[ReferenceImplementation]:
    def open_(self: ReferenceImplementation, setup: Setup) -> AsyncSkillSystem:
        return system(setup)

    def init(self: ReferenceImplementation) -> None:
        ReferenceImplementation.__init__(self)
        self.name = f"misbehaving:{name}"

    return type(name, (ReferenceImplementation,), {"__init__": init, "open": open_})


# -- raises ----------------------------------------------------------------------------------


class _Raising(ReferenceSystem):
    """Every question raises an exception that is not a port error."""


async def _boom(self: ReferenceSystem, *args: object) -> Any:
    raise RuntimeError("misbehaving: unexpected exception")


for _name in _QUESTIONS:
    setattr(_Raising, _name, _boom)

Raising = _implementation("Raising", _Raising)


class _RaisingBaseExceptions(ReferenceSystem):
    """Questions raise ``KeyboardInterrupt``, ``SystemExit`` or ``CancelledError`` from inside."""

    async def tool_names(self) -> Sequence[str]:
        raise KeyboardInterrupt

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        raise SystemExit(3)

    async def list_skills(self) -> Any:
        raise asyncio.CancelledError


RaisingBaseExceptions = _implementation("RaisingBaseExceptions", _RaisingBaseExceptions)


# -- wrong types -----------------------------------------------------------------------------


class _WrongTypes(ReferenceSystem):
    """Answers with values of the wrong type."""

    async def tool_names(self) -> Any:
        return 42

    async def run_tool(self, name: str, arguments: Any) -> Any:
        return "not a run record"

    async def load_skill(self, skill: str, arguments: str | None = None) -> Any:
        return None

    async def list_skills(self) -> Any:
        return [{"name": "a dict, not a listing"}]

    async def registry_skill_names(self, scope: Any) -> Any:
        return None

    async def agent_tool_names(self, path: Any) -> Any:
        return [1, 2]


WrongTypes = _implementation("WrongTypes", _WrongTypes)


# -- hangs -----------------------------------------------------------------------------------


class _Hanging(ReferenceSystem):
    """Every question waits forever."""


async def _forever(self: ReferenceSystem, *args: object) -> Any:
    await asyncio.sleep(3600)


for _name in _QUESTIONS:
    setattr(_Hanging, _name, _forever)

Hanging = _implementation("Hanging", _Hanging)


class _HangingClosingToo(_Hanging):
    """Every question waits forever, and so does closing (a loop stuck in a blocking read)."""

    close = _forever


HangingClosingToo = _implementation("HangingClosingToo", _HangingClosingToo)


class _HoldsItsLoop(ReferenceSystem):
    """Starting holds the loop's thread for 25 s (a blocking read in a coroutine), then starts.

    Long enough to outlast the suite's waits for the start, for closing and for stopping the
    loop at a 1 s timeout; the thread lets go during a later scenario.
    """

    async def start(self) -> None:
        time.sleep(25)
        await super().start()


HoldsItsLoop = _implementation("HoldsItsLoop", _HoldsItsLoop)


class _StopsTheLoop(ReferenceSystem):
    """Starting stops the event loop it is called on (the suite's), then waits forever."""

    async def start(self) -> None:
        asyncio.get_running_loop().stop()
        await asyncio.sleep(3600)


StopsTheLoop = _implementation("StopsTheLoop", _StopsTheLoop)


# -- MCP servers that crash, hang, or are left behind ----------------------------------------


def _mode_manager(mode: str) -> ManagerFactory:
    """A skill manager whose skills' MCP servers run in ``mode``."""

    def build(
        skills: Iterable[Skill],
        children: Sequence[AbstractCapability[Any]],
        *,
        name: str,
        import_timeout: float,
        startup_timeout: float,
    ) -> SkillManagerCap:
        with_mode = [
            dataclasses.replace(
                skill,
                mcp_servers=tuple(
                    dataclasses.replace(spec, args=(*spec.args, "--mode", mode))
                    for spec in skill.mcp_servers
                ),
            )
            for skill in skills
        ]
        return SkillManagerCap(
            with_mode,
            children,
            name=name,
            import_timeout=import_timeout,
            startup_timeout=startup_timeout,
        )

    return build


def _with_mode(setup: Setup, mode: str) -> Setup:
    """``setup`` with its MCP children run in ``mode``."""
    children = tuple(
        dataclasses.replace(
            child,
            server=dataclasses.replace(child.server, args=(*child.server.args, "--mode", mode)),
        )
        if isinstance(child, McpChild)
        else child
        for child in setup.children
    )
    return dataclasses.replace(setup, children=children)


def _mcp_mode(name: str, mode: str) -> Callable[[], ReferenceImplementation]:
    class InMode(ReferenceImplementation):
        def open(self, setup: Setup) -> AsyncSkillSystem:
            return super().open(_with_mode(setup, mode))

    return functools.partial(InMode, ReferenceParts(manager=_mode_manager(mode)), name=name)


McpCrashes = _mcp_mode("misbehaving:McpCrashes", "crash")
McpHangs = _mcp_mode("misbehaving:McpHangs", "hang")


class _LeavesServersRunning(ReferenceSystem):
    """Enters the skill manager at start and never exits it: its MCP servers are left running."""

    async def start(self) -> None:
        await super().start()
        await self.pool.manager.__aenter__()

    async def exit(self) -> None:
        return None

    async def close(self) -> None:
        return None


LeavesServersRunning = _implementation("LeavesServersRunning", _LeavesServersRunning)


# -- ends the process it runs in -------------------------------------------------------------------


class _EndsProcess(ReferenceSystem):
    """Ends the whole process when asked to list skills, as a library calling ``os._exit`` would."""

    async def list_skills(self) -> Sequence[SkillListing]:
        os._exit(3)


EndsProcess = _implementation("EndsProcess", _EndsProcess)


# -- warns, as third-party code often does -------------------------------------------------------


def _warn(where: str) -> None:
    warnings.warn(f"misbehaving: ordinary warning in {where}", UserWarning, stacklevel=2)
    warnings.warn(f"misbehaving: deprecated call in {where}", DeprecationWarning, stacklevel=2)


class _Warns(ReferenceSystem):
    """Warns when opened and on every question, as libraries do; production only prints them."""

    def __init__(self, setup: Setup) -> None:
        _warn("open")
        super().__init__(setup)

    async def start(self) -> None:
        _warn("start")
        await super().start()

    def problems(self) -> Sequence[str]:
        _warn("problems")
        return super().problems()


def _warning_question(name: str) -> Any:
    async def question(self: ReferenceSystem, *args: Any) -> Any:
        _warn(name)
        return await getattr(ReferenceSystem, name)(self, *args)

    return question


for _name in (*_QUESTIONS, "read_skill_file"):
    setattr(_Warns, _name, _warning_question(_name))


class Warns(ReferenceImplementation):
    """The reference, warning when loaded, opened and on every call."""

    def __init__(self) -> None:
        _warn("load")
        super().__init__()
        self.name = "misbehaving:Warns"

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return _Warns(setup)


# -- lacks features, and says so ------------------------------------------------------------------


class _NoFileReader(ReferenceSystem):
    async def read_skill_file(self, skill: str, path: str) -> str:
        raise Unsupported("no reader of skill files apart from load_skill")


class LacksFeatures(ReferenceImplementation):
    """Declares two abilities unsupported, and has no equivalent of ``read_skill_file``."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "misbehaving:LacksFeatures"
        self.unsupported = {
            Ability.MCP: "no MCP client",
            Ability.PYTHON_TOOLS: "skills bring no Python tools",
        }

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return _NoFileReader(setup)


# -- forks a helper that outlives the scenario -------------------------------------------------


class _ForksHelper(ReferenceSystem):
    """Forks, without exec, a helper that lives ten minutes, as an implementation's daemon might.

    The helper inherits every descriptor of the suite's process; its pid goes to the file that
    ``SC_HELPER_PIDS`` names.
    """

    async def start(self) -> None:
        pid = os.fork()
        if pid == 0:  # the helper: holds what it inherited, then ends without cleaning up
            time.sleep(600)
            os._exit(0)
        with open(os.environ["SC_HELPER_PIDS"], "a", encoding="utf-8") as pids:
            pids.write(f"{pid}\n")
        await super().start()


ForksHelper = _implementation("ForksHelper", _ForksHelper)


# -- forks a helper, then ends the process it runs in ----------------------------------------------


class _ForksThenEnds(ReferenceSystem):
    """Forks a helper (as :class:`_ForksHelper`), then ends the whole process when asked to list
    skills: the run ends by the implementation's hand while a copy of its process lives on."""

    async def list_skills(self) -> Sequence[SkillListing]:
        pid = os.fork()
        if pid == 0:  # the helper: holds every descriptor it inherited, then ends
            time.sleep(600)
            os._exit(0)
        with open(os.environ["SC_HELPER_PIDS"], "a", encoding="utf-8") as pids:
            pids.write(f"{pid}\n")
        os._exit(3)


ForksThenEnds = _implementation("ForksThenEnds", _ForksThenEnds)
