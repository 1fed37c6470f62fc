"""Run an asynchronous implementation behind the synchronous port the steps use.

Each scenario gets its own event loop on a private thread, and one task on that loop runs every
call in order. One task matters: MCP clients enter anyio cancel scopes that must be exited by the
task that entered them. Every wait is bounded; an implementation that overruns is reported as hung,
unless it is seen working (:mod:`~skill_conformance.runtime.progress`).

What the implementation raises reaches the caller wrapped, so an interrupt of the caller itself (a
Ctrl-C or SIGTERM arriving in the main thread while it waits) is never mistaken for a crash of the
implementation: it cancels the call in flight and propagates as the interrupt it is.

Every call runs under :func:`~skill_conformance.runtime.production.production_warnings`, as the
implementation would run in production. :class:`~skill_conformance.port.Unsupported` passes
through unchanged: the scenario is then not applicable.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from typing_extensions import override

from skill_conformance.errors import ImplementationError
from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    SkillListing,
    SkillSystem,
    SkillSystemError,
    Unsupported,
)
from skill_conformance.runtime.abilities import operation_needs
from skill_conformance.runtime.production import production_warnings
from skill_conformance.runtime.progress import CEILING, Progress

__all__ = [
    "BlockingSkillSystem",
    "ImplementationBadResult",
    "ImplementationCrash",
    "ImplementationHang",
    "ImplementationStuck",
    "Tripwire",
    "blocking",
]

T = TypeVar("T")

Guard = Callable[[str, frozenset[Ability]], None]
"""Told an operation's name and the abilities it relies on, before the call; raises to refuse."""

Tripwire = Callable[[float, int], str | None]
"""Asked, while a call is in flight, given its seconds so far and the loop thread's id: what the
call is seen stuck on (a named pipe it waits to read, a module that never finishes importing), or
``None``. A call seen stuck ends at once as hung, instead of at its bound."""

_LOOK_EVERY = 0.1
"""Seconds between two looks of the tripwire."""

_GRACE = 5.0
"""Seconds the caller waits past the in-loop timeout before declaring the loop itself stuck."""


class ImplementationCrash(ImplementationError):
    """The implementation raised something other than a :class:`SkillSystemError`."""

    def __init__(self, operation: str, error: BaseException) -> None:
        super().__init__(f"{operation}() crashed: {type(error).__name__}: {error}")
        self.operation = operation
        self.error = error


class ImplementationHang(ImplementationError):
    """The implementation did not answer within the timeout (``how``: what it did meanwhile)."""

    def __init__(self, operation: str, timeout: float, how: str = "") -> None:
        said = f"{operation}() did not finish within {timeout:g} s"
        super().__init__(f"{said}, {how}" if how else said)
        self.operation = operation
        self.timeout = timeout


class ImplementationStuck(ImplementationHang):
    """The implementation was seen waiting on something that never comes: a hang, told at once."""

    def __init__(self, operation: str, timeout: float, stuck: str) -> None:
        super().__init__(operation, timeout)
        self.args = (f"{operation}() is stuck: {stuck}",)
        self.stuck = stuck


class ImplementationBadResult(ImplementationError):
    """The implementation answered with a value of a type the port does not allow."""

    def __init__(self, operation: str, value: object, expected: str) -> None:
        shown = repr(value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        super().__init__(f"{operation}() returned {type(value).__name__} {shown}, not {expected}")
        self.operation = operation
        self.value = value


def _expect(operation: str, value: T, ok: bool, expected: str) -> T:
    if not ok:
        raise ImplementationBadResult(operation, value, expected)
    return value


def _sequence_of(value: object, kind: type) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and all(isinstance(item, kind) for item in value)
    )


class _Actor:
    """An event loop on a daemon thread with one task that awaits submitted coroutines in turn."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._deadline: asyncio.Timeout | None = None
        self._abandoned: concurrent.futures.Future[Any] | None = None  # the last call given up on
        self._queue: asyncio.Queue[tuple[Awaitable[Any], concurrent.futures.Future[Any], float]]
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._serve, args=(ready,), name="skill-conformance-loop", daemon=True
        )
        self._thread.start()
        ready.wait()

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._queue = asyncio.Queue()
        self._task = self._loop.create_task(self._work())
        self._loop.call_soon(ready.set)
        try:
            self._loop.run_forever()
        finally:
            # Here, not only in stop(): an implementation holding this thread past stop() (a
            # blocking read in a coroutine) lets the loop end later, and a loop left unclosed
            # warns when collected, in the middle of another scenario.
            self._loop.close()

    async def _work(self) -> None:
        while True:
            awaitable, future, timeout = await self._queue.get()
            if future.cancelled():  # interrupted before it began: never start it
                if asyncio.iscoroutine(awaitable):
                    awaitable.close()
                continue
            deadline = self._deadline = asyncio.timeout(timeout)
            try:
                async with deadline:
                    result = await awaitable
            except TimeoutError as error:
                _settle(future, error=_Timeout() if deadline.expired() else _Raised(error))
            except GeneratorExit:  # the task destroyed with a loop the implementation stopped
                raise
            except BaseException as error:
                _settle(future, error=_Raised(error))
                task = asyncio.current_task()
                # Only a cancellation of this task ends it; one raised inside is a crash.
                if isinstance(error, asyncio.CancelledError) and task and task.cancelling():
                    raise
            else:
                _settle(future, result=result)
            finally:
                self._deadline = None

    def submit(self, awaitable: Awaitable[T], timeout: float) -> concurrent.futures.Future[T]:
        """Queue ``awaitable`` for the loop's task; its outcome arrives in the future returned."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (awaitable, future, timeout))
        except RuntimeError as error:  # the loop has ended: the implementation stopped it
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            ended = RuntimeError(f"the event loop it was called on had been stopped ({error})")
            _settle(future, error=_Raised(ended))
        return future

    def call(self, awaitable: Awaitable[T], timeout: float, tripwire: Tripwire | None = None) -> T:
        """Await ``awaitable`` on the loop; what it raises arrives wrapped in :class:`_Raised`.

        Past ``timeout`` a call seen doing nothing raises :class:`_Overran`, and one seen working
        goes on as :class:`~skill_conformance.runtime.progress.Progress` judges. With
        ``tripwire``, a call it sees stuck raises :class:`_Tripped` at once. Either way the
        call's deadline expires (the loop cancels it once the implementation gives the loop back).
        """
        future = self.submit(awaitable, timeout * CEILING + _GRACE)
        try:
            # Behind a call that still holds the loop's thread, the work seen is that call's: a
            # later call cannot even begin, so it is given its bound alone.
            patient = self._abandoned is None or self._abandoned.done()
            return self._watch(future, Progress(timeout, patient=patient), tripwire)
        except (_Raised, _Timeout, _Tripped, _Overran):
            raise
        except BaseException:
            # The caller was interrupted while it waited: cut the call in flight short, so that
            # what runs next (closing the system) does not queue behind it.
            future.cancel()
            self.interrupt()
            raise

    def _watch(
        self, future: concurrent.futures.Future[T], progress: Progress, tripwire: Tripwire | None
    ) -> T:
        started = time.monotonic()
        while True:
            try:
                return future.result(_LOOK_EVERY)
            except concurrent.futures.TimeoutError:
                pass
            elapsed = time.monotonic() - started
            stuck = tripwire(elapsed, self._thread.ident or 0) if tripwire else None
            if stuck is not None:
                self.interrupt()
                raise _Tripped(stuck)
            how = progress.overrun(elapsed)
            if how is not None:
                self.interrupt()
                try:  # the loop cancels it, unless the implementation holds the loop's thread
                    return future.result(_GRACE)
                except concurrent.futures.TimeoutError:
                    self._abandoned = future  # still holding the loop's thread
                    raise _Overran(how) from None
                except _Timeout:
                    raise _Overran(how) from None

    def interrupt(self) -> None:
        """Make the deadline of the call in flight, if any, expire now."""

        def expire() -> None:
            if self._deadline is not None and not self._deadline.expired():
                self._deadline.reschedule(self._loop.time())

        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(expire)

    def stop(self) -> None:
        async def shutdown() -> None:
            while not self._queue.empty():  # calls queued behind a stuck one never begin
                awaitable, future, _ = self._queue.get_nowait()
                if asyncio.iscoroutine(awaitable):
                    awaitable.close()
                future.cancel()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self._loop.shutdown_asyncgens()
            self._loop.stop()

        if self._loop.is_running():  # its thread closes it once it has stopped (_serve)
            asyncio.run_coroutine_threadsafe(shutdown(), self._loop)
            self._thread.join(timeout=_GRACE)


class _Timeout(Exception):
    """Internal marker: the in-loop timeout fired (as opposed to the implementation's own)."""


class _Tripped(Exception):
    """Internal marker: the tripwire saw the call stuck; the message says on what."""


class _Overran(Exception):
    """Internal marker: the call overran its bound; the message says what it did meanwhile."""


class _Raised(Exception):
    """Internal wrapper: ``error`` was raised by the implementation inside the loop."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(repr(error))
        self.error = error


def _settle(
    future: concurrent.futures.Future[Any], *, result: object = None, error: Exception | None = None
) -> None:
    """Complete ``future`` unless the caller gave up on it (an interrupt cancelled it)."""
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


class BlockingSkillSystem(SkillSystem):
    """The synchronous :class:`~skill_conformance.port.SkillSystem` over an async one."""

    def __init__(
        self,
        system: AsyncSkillSystem,
        timeout: float,
        guard: Guard | None = None,
        tripwire: Tripwire | None = None,
    ) -> None:
        self._system = system
        self._timeout = timeout
        self._guard = guard
        self._tripwire = tripwire
        self._actor = _Actor()

    def _needs(self, operation: str, *arguments: object) -> None:
        """Tell the guard which abilities this call relies on, before it is made."""
        if self._guard is not None:
            self._guard(operation, operation_needs(operation, *arguments))

    def _run(self, operation: str, coroutine: Coroutine[Any, Any, T]) -> T:
        try:
            with production_warnings():
                return self._actor.call(coroutine, self._timeout, self._tripwire)
        except _Timeout:
            raise ImplementationHang(operation, self._timeout) from None
        except _Overran as overran:
            raise ImplementationHang(operation, self._timeout, str(overran)) from None
        except _Tripped as tripped:
            raise ImplementationStuck(operation, self._timeout, str(tripped)) from None
        except _Raised as raised:
            if isinstance(raised.error, (SkillSystemError, Unsupported)):
                raise raised.error from None
            # Raised inside the implementation, even a KeyboardInterrupt or SystemExit: a crash
            # of the implementation. An interrupt of the run itself is not wrapped and passes.
            raise ImplementationCrash(operation, raised.error) from raised.error

    @override
    def start(self) -> None:
        self._run("start", self._system.start())

    @override
    def tool_names(self) -> Sequence[str]:
        names = self._run("tool_names", self._system.tool_names())
        return _expect("tool_names", names, _sequence_of(names, str), "a sequence of str")

    @override
    def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        record = self._run("run_tool", self._system.run_tool(name, arguments))
        ok = isinstance(record, RunRecord) and _sequence_of(record.offered, str)
        return _expect("run_tool", record, ok, "a RunRecord")

    @override
    def load_skill(self, skill: str, arguments: str | None = None) -> str:
        self._needs("load_skill", skill, arguments)
        text = self._run("load_skill", self._system.load_skill(skill, arguments))
        return _expect("load_skill", text, isinstance(text, str), "a str")

    @override
    def list_skills(self) -> Sequence[SkillListing]:
        listing = self._run("list_skills", self._system.list_skills())
        ok = _sequence_of(listing, SkillListing)
        return _expect("list_skills", listing, ok, "a sequence of SkillListing")

    @override
    def read_skill_file(self, skill: str, path: str) -> str:
        self._needs("read_skill_file")
        text = self._run("read_skill_file", self._system.read_skill_file(skill, path))
        return _expect("read_skill_file", text, isinstance(text, str), "a str")

    @override
    def resolve_uri(self, uri: str) -> ResolvedSkill:
        self._needs("resolve_uri")
        resolved = self._run("resolve_uri", self._system.resolve_uri(uri))
        return _expect(
            "resolve_uri", resolved, isinstance(resolved, ResolvedSkill), "a ResolvedSkill"
        )

    @override
    def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        self._needs("registry_skill_names")
        names = self._run("registry_skill_names", self._system.registry_skill_names(scope))
        ok = _sequence_of(names, str)
        return _expect("registry_skill_names", names, ok, "a sequence of str")

    @override
    def rebuild(self) -> None:
        self._needs("rebuild")
        self._run("rebuild", self._system.rebuild())

    @override
    def enter(self) -> None:
        self._needs("enter")
        self._run("enter", self._system.enter())

    def cancel_enter(self, once: Callable[[], bool]) -> str:
        """Enter, cancelling the enter in flight as soon as ``once()`` holds; how it ended.

        The enter runs in the loop's one task, as every call does, and is cancelled as a caller's
        timeout cancels it (the task's deadline expires now). Returns ``cancelled`` when the
        cancellation came back out of the enter, ``returned`` when the enter returned as if
        nothing happened, ``raised ...`` when it ended in another error, ``finished`` when it
        ended before ``once()`` held.

        Raises:
            ImplementationHang: The enter neither finished nor met ``once()`` within the timeout.

        """
        self._needs("cancel_enter")
        future = self._actor.submit(self._system.enter(), self._timeout)
        deadline = time.monotonic() + self._timeout
        cancelled = False
        while not future.done() and time.monotonic() < deadline:
            if once():
                self._actor.interrupt()
                cancelled = True
                break
            time.sleep(0.005)
        try:
            future.result(self._timeout + _GRACE)
        except (_Timeout, concurrent.futures.TimeoutError):
            if cancelled:
                return "cancelled"
            raise ImplementationHang("enter", self._timeout) from None
        except _Raised as raised:
            error = raised.error
            return f"{'raised' if cancelled else 'finished:'} {type(error).__name__}: {error}"
        return "returned" if cancelled else "finished"

    @override
    def exit(self) -> None:
        self._needs("exit")
        self._run("exit", self._system.exit())

    @override
    def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        self._needs("agent_tool_names", path)
        names = self._run("agent_tool_names", self._system.agent_tool_names(path))
        return _expect("agent_tool_names", names, _sequence_of(names, str), "a sequence of str")

    @override
    def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        self._needs("agent_load_skill", path, skill)
        text = self._run("agent_load_skill", self._system.agent_load_skill(path, skill))
        return _expect("agent_load_skill", text, isinstance(text, str), "a str")

    @override
    def problems(self) -> Sequence[str]:
        self._needs("problems")
        try:
            with production_warnings():
                problems = self._system.problems()
        except Unsupported:
            raise
        except Exception as error:
            raise ImplementationCrash("problems", error) from error
        return list(_expect("problems", problems, _sequence_of(problems, str), "a sequence of str"))

    def close(self, *, keep_loop: bool = False) -> None:
        """Close the system (bounded), then stop its loop, even if closing failed.

        With ``keep_loop`` the loop runs on until :meth:`stop`: whatever the system left behind
        (a server it did not stop) stays as it left it, to be observed, instead of being cancelled
        with the loop's tasks.
        """
        try:
            self._run("close", self._system.close())
        finally:
            if not keep_loop:
                self._actor.stop()

    def stop(self) -> None:
        """Stop the loop of a system closed with ``keep_loop``, cancelling what still runs in it."""
        self._actor.stop()


def blocking(
    system: AsyncSkillSystem,
    timeout: float = 30.0,
    guard: Guard | None = None,
    tripwire: Tripwire | None = None,
) -> BlockingSkillSystem:
    """Wrap ``system`` so that each call blocks until done, ``timeout`` seconds unless it works.

    ``guard``, if given, is told before each call the abilities it relies on, and may refuse it.
    ``tripwire``, if given, is asked while a call is in flight whether it is seen stuck.
    """
    return BlockingSkillSystem(system, timeout, guard, tripwire)
