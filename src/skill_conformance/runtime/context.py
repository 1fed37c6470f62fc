"""The state one scenario carries from step to step.

Steps never hold an implementation themselves: they describe the world, then build the system
with :meth:`ScenarioContext.start` (which writes the skills described so far to disk, opens the
implementation and starts it) before they ask it anything.

The context also checks the scenario's ``@needs`` tags (:mod:`skill_conformance.runtime.abilities`):
the world it writes, each operation it calls and each kind of result it checks must rely only on
abilities the scenario is tagged with.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from skill_conformance.port import (
    Ability,
    AgentPath,
    ErrorKind,
    Implementation,
    McpChild,
    RunRecord,
    SkillListing,
    SkillSystemError,
    ToolsChild,
    Unsupported,
)
from skill_conformance.runtime.abilities import UntaggedAbility, world_needs
from skill_conformance.runtime.blocking import (
    BlockingSkillSystem,
    ImplementationCrash,
    ImplementationHang,
    blocking,
)
from skill_conformance.runtime.production import production_warnings
from skill_conformance.runtime.servers import ServerLog, pauses, pid_alive
from skill_conformance.runtime.world import World
from skill_conformance.verdicts import Mismatch, expect

__all__ = ["Outcome", "ScenarioContext"]

T = TypeVar("T")

SHOWN_TEXT = 2000
"""How much of a returned text a failure shows: an oversized read must not exhaust the suite."""


def _shown(value: object) -> str:
    """``repr`` of ``value``, a long text cut to its first :data:`SHOWN_TEXT` characters."""
    if isinstance(value, str) and len(value) > SHOWN_TEXT:
        return f"{value[:SHOWN_TEXT]!r}... ({len(value):,} characters in all)"
    return repr(value)


@dataclass
class Outcome:
    """The result of the last call a scenario made: a value, or an error of the port."""

    value: object = None
    error: SkillSystemError | None = None

    def texts(self) -> list[str]:
        """Every text the caller got back, result and error alike."""
        found = [] if self.value is None else [str(self.value)]
        if self.error is not None:
            found.append(self.error.message)
        return found


@dataclass
class ScenarioContext:
    """One scenario's world, its system under test and what the steps observed."""

    implementation: Implementation
    world: World
    timeout: float
    children: list[ToolsChild | McpChild] = field(default_factory=list)
    skills_tools_provider: bool = True
    outcome: Outcome | None = None
    run: RunRecord | None = None
    listing: list[SkillListing] | None = None
    runs: int = 0
    running_before_rebuild: set[int] = field(default_factory=set)
    loaded: str | None = None
    """What the last ``load_skill`` call of the scenario asked for (None after other reads)."""
    enter_outcome: str | None = None
    """How an enter the scenario cancelled ended (:meth:`cancel_enter`)."""
    enter_failure: str | None = None
    """Why an enter that may fail failed, or ``""`` when it did not (:meth:`try_enter`)."""
    descriptors: tuple[int, int] | None = None
    """Open file descriptors of this process before and after a run of calls."""
    needs: frozenset[Ability] | None = None
    """The abilities the scenario's tags name; ``None`` checks nothing."""
    _system: BlockingSkillSystem | None = None
    _entered: bool = False
    _closed: bool = False
    _tools: list[str] | None = None
    _agent: tuple[AgentPath, Outcome] | None = None

    @property
    def started(self) -> bool:
        """Whether the system has been opened and started."""
        return self._system is not None

    def uses(self, ability: Ability, why: str) -> None:
        """Note that the scenario relies on ``ability`` (because ``why``); it must be tagged so.

        Raises:
            UntaggedAbility: The scenario's ``@needs`` tags do not name ``ability``.

        """
        if self.needs is not None and ability not in self.needs:
            raise UntaggedAbility(
                f"the scenario relies on {ability.value} ({why}) but is not tagged "
                f"@needs:{ability.value}"
            )

    def _guard(self, operation: str, needs: frozenset[Ability]) -> None:
        for ability in sorted(needs):
            self.uses(ability, f"it calls {operation}")

    def _check_world(self) -> None:
        for ability, why in world_needs(self.world, self.children).items():
            self.uses(ability, why)

    def start(self) -> BlockingSkillSystem:
        """Build the scenario's system, once, and return it.

        Building writes the skills described so far to disk, opens the implementation on them
        and starts it (the pool's start-up). Later calls return the system already started.
        """
        if self._system is None:
            self._check_world()
            self.world.write()
            setup = self.world.setup(
                self.children, skills_tools_provider=self.skills_tools_provider
            )
            with production_warnings():
                opened = self.implementation.open(setup)
            system = blocking(opened, self.timeout, self._guard, self.world.stuck_on)
            self._system = system
            system.start()
        return self._system

    def bounded(self, call: Callable[[], T]) -> T:
        """Make ``call`` for a step whose point is that it finishes: a hang is then a failure.

        Elsewhere an implementation that overruns the timeout ends the scenario *errored*. A step
        that says the call must finish without blocking observes the overrun as the wrong
        behaviour, so here it is a *failed* verdict naming the call and the timeout.
        """
        try:
            return call()
        except ImplementationHang as hang:
            raise Mismatch(
                "the call did not finish, though it must not block",
                expected=f"{hang.operation}() to finish within {hang.timeout:g} s",
                observed=str(hang),
            ) from None

    def rebuild(self) -> None:
        """Write the skills as now described and have the pool rebuild them."""
        self._check_world()
        self.world.write()
        self.running_before_rebuild = self.servers.running_pids()
        self.start().rebuild()
        self._tools = None

    def refresh_tools(self) -> list[str]:
        """List, in a real agent run, the tools the model is offered."""
        self._tools = list(self.start().tool_names())
        self.runs += 1
        return self._tools

    def tools(self) -> list[str]:
        """The tools last listed, listing them now if they have not been."""
        return self._tools if self._tools is not None else self.refresh_tools()

    def call_tool(self, tool: str, arguments: str) -> RunRecord:
        """Run an agent whose model calls ``tool`` with the JSON object ``arguments``."""
        parsed = json.loads(arguments)
        assert isinstance(parsed, dict), f"tool arguments must be a JSON object: {arguments}"
        self.runs += 1
        self.run = self.start().run_tool(tool, parsed)
        # What the model was offered in that run is the agent's tool list: no second run needed.
        self._tools = list(self.run.offered)
        return self.run

    def last_run(self) -> RunRecord:
        """The record of the last agent run that called a tool."""
        assert self.run is not None, "no agent run called a tool in this scenario"
        return self.run

    def create_agent(self, path: AgentPath) -> None:
        """Create an agent through ``path`` and keep what it is offered, or the error."""
        self._agent = (path, self.attempt(lambda: list(self.start().agent_tool_names(path))))

    def agent_path(self) -> AgentPath:
        """The path of the agent this scenario created."""
        assert self._agent is not None, "no agent was created in this scenario"
        return self._agent[0]

    def agent_tools(self) -> list[str]:
        """The tools the created agent is offered (it must have been created without error)."""
        assert self._agent is not None, "no agent was created in this scenario"
        outcome = self._agent[1]
        expect(
            outcome.error is None,
            "creating the agent failed",
            expected="an agent",
            observed=f"{outcome.error}",
        )
        assert isinstance(outcome.value, list)
        return [str(name) for name in outcome.value]

    def last_outcome(self) -> Outcome:
        """The outcome of the last call made through :meth:`attempt`."""
        assert self.outcome is not None, "no call was made in this scenario"
        return self.outcome

    def expect_value(self) -> object:
        """The value of the last call, which must not have failed."""
        outcome = self.last_outcome()
        expect(
            outcome.error is None,
            "the call failed",
            expected="a value",
            observed=f"{outcome.error}",
        )
        return outcome.value

    def expect_error(self, kind: ErrorKind, *alternatives: ErrorKind) -> SkillSystemError:
        """The error of the last call, which must have failed with ``kind`` (or an alternative)."""
        self.uses(Ability.ERROR_KINDS, f"it expects a {kind} error")
        return self._error_of((kind, *alternatives))

    def expect_refusal(self, kind: ErrorKind, *alternatives: ErrorKind) -> None:
        """The last call was refused in a way the agent can continue from.

        With an error of ``kind`` (or an alternative) where the implementation names the kinds
        of its errors (:attr:`Ability.ERROR_KINDS`). Where it does not, a refusal is whatever its
        adapter reports short of a run it ended: an unclassified error, or a result the model
        reads (a tool answering with its refusal as text, as many do).
        """
        if Ability.ERROR_KINDS not in self.implementation.unsupported:
            self._error_of((kind, *alternatives))
            return
        error = self.last_outcome().error
        expect(
            error is None or error.kind != ErrorKind.RUN_ENDED,
            "the refusal ended the agent's run",
            expected="a result or a tool error the model can act on (the implementation names "
            "no kinds of error)",
            observed=f"{error}",
        )

    def _error_of(self, kinds: tuple[ErrorKind, ...]) -> SkillSystemError:
        outcome = self.last_outcome()
        names = [str(k) for k in kinds]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        wanted = f"a {listed} error"
        if outcome.error is None:
            raise Mismatch(
                "the call did not fail",
                expected=wanted,
                observed=f"it returned {_shown(outcome.value)}",
            )
        expect(
            outcome.error.kind in kinds,
            f"the call failed with another kind of error than {listed}",
            expected=wanted,
            observed=f"{outcome.error}",
        )
        return outcome.error

    def wait_until_no_server_runs(self, timeout: float = 5.0) -> list[str]:
        """Wait (bounded) until no test MCP server runs; return those still running."""
        deadline = time.monotonic() + timeout
        running = self.servers.running()
        waits = pauses()
        while running and time.monotonic() < deadline:
            next(waits)
            running = self.servers.running()
        return running

    def attempt(self, call: Callable[[], T]) -> Outcome:
        """Make ``call`` and keep its value or its port error as the scenario's outcome."""
        try:
            self.outcome = Outcome(value=call())
        except SkillSystemError as error:
            self.outcome = Outcome(error=error)
        return self.outcome

    def enter(self) -> None:
        """Enter the skill manager."""
        self.start().enter()
        self._entered = True
        self._tools = None

    def try_enter(self) -> str | None:
        """Enter the skill manager, which may fail; why it failed, or ``None`` if it did not.

        Raises:
            Unsupported: The host refused to start at all beside what makes the enter fail (a
                host may check its children at start-up): there is no enter to judge.

        """
        try:
            system = self.start()
        except (SkillSystemError, ImplementationCrash) as error:
            if isinstance(getattr(error, "error", None), NotImplementedError):
                raise  # an adapter not written yet, not a host's choice
            raise Unsupported(
                f"the host does not start beside a child that cannot be entered ({error}):"
                " there is no enter to judge"
            ) from error
        try:
            system.enter()
        except (SkillSystemError, ImplementationCrash) as error:
            return str(error)
        self._entered = True
        self._tools = None
        return None

    def cancel_enter(self, once: Callable[[], bool]) -> str:
        """Enter the skill manager and cancel the enter once ``once()`` holds; how it ended.

        See :meth:`BlockingSkillSystem.cancel_enter`. An enter that returned (the cancellation
        swallowed) leaves the manager entered, to be exited at the end as usual.
        """
        outcome = self.start().cancel_enter(once)
        self._entered = outcome in ("returned", "finished")
        self._tools = None
        return outcome

    def exit(self) -> None:
        """Exit the skill manager."""
        self.start().exit()
        self._entered = False
        self._tools = None

    def close_entered(self) -> None:
        """Close the system while its skill manager is entered, without exiting it first."""
        assert self._entered, "the skill manager is not entered; the step is misplaced"
        self._closed = True
        self._entered = False
        self.start().close(keep_loop=True)

    @property
    def servers(self) -> ServerLog:
        """What this world's test MCP servers recorded."""
        return ServerLog(self.world.mcp_log)

    def close(self) -> list[int]:
        """Close the system; return the pids of test servers it left running (now killed)."""
        self.world.release()
        try:
            if self._system is not None and self._closed:
                self._system.stop()
            elif self._system is not None:
                try:
                    if self._entered:
                        self._system.exit()
                finally:
                    self._system.close()
        finally:
            leftovers = wait_for_exit(self.servers.pids(), timeout=5.0)
            for pid in leftovers:
                _kill(pid)
            self.world.teardown()
        return leftovers


def wait_for_exit(pids: set[int], timeout: float) -> list[int]:
    """Wait (bounded) until the processes ``pids`` have exited; return those still alive."""
    deadline = time.monotonic() + timeout
    alive = sorted(pid for pid in pids if pid_alive(pid))
    waits = pauses()
    while alive and time.monotonic() < deadline:
        next(waits)
        alive = [pid for pid in alive if pid_alive(pid)]
    return alive


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
