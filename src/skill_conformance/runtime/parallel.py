"""Scenarios run by processes forked once collection ends: a parallel run that collects once.

pytest-xdist starts fresh interpreters, and each imports and collects everything again: on two
cores that costs what the second core saves. Here the process that collected forks its workers
when collection ends. They share its imports, its parsed features and its loaded implementation
(copy-on-write) and run the scenarios it hands out, one at a time, in collection order; each
sends back what pytest's hooks reported for its scenarios. The parent replays that through its
own hooks in collection order, so the terminal, JUnit XML, the verdicts, the results file and
pytest's cache see what a run in one process shows them, in the same order.

- A worker that dies (an implementation that calls ``os._exit``, or crashes the interpreter) errs
  the scenario it was running, naming how it died; a new worker runs the rest.
- Ctrl-C and SIGTERM reach the parent, which passes one SIGTERM to each worker (they ignore
  Ctrl-C themselves, so none is interrupted twice); a worker stops as a run in one process does,
  the call in flight cut short and its systems and servers closed. The run ends interrupted, with
  the verdicts of the scenarios that finished.
- ``-x`` and ``--maxfail`` stop the run at the same scenario as in one process: the parent
  decides as it replays, stops the workers and drops what they ran beyond it.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe, wait
from pathlib import Path
from typing import Any, Literal, NoReturn

import pytest

from skill_conformance.errors import ImplementationError
from skill_conformance.runtime.interrupts import raise_on_sigterm

__all__ = ["Plan", "WorkerDied", "plan_workers", "run_in_workers"]

_SCENARIOS_PER_WORKER = 8
"""``auto`` forks no more workers than this many scenarios each would run, so that a small
selection (``-k``) stays in one process. Chosen, not measured: forking three workers took 5 ms,
a scenario about 30 ms of CPU, so even a few scenarios each would pay for their worker."""

_SPARE_WORKERS = 1
"""``auto`` forks this many workers more than there are CPUs: a scenario spends part of its time
waiting for its MCP server processes, and the spare worker runs meanwhile (on two CPUs, seven
rounds side by side: run / collect-only 2.19 with two workers, 2.02 with three, 2.08 with four)."""

_STOP_GRACE = 15.0
"""Seconds the workers get to stop cleanly once told to, before they are killed."""


class WorkerDied(ImplementationError):
    """The worker process running a scenario ended before the scenario did."""


class _ParentGone(Exception):
    """In a worker: the connection to pytest's process is closed."""


def _send(connection: Connection, message: object) -> None:
    try:
        connection.send(message)
    except (EOFError, OSError) as error:
        raise _ParentGone from error


@dataclass(frozen=True)
class Plan:
    """How many workers run the scenarios, and the line that says so (or why not) in the summary."""

    workers: int
    note: str | None = None


def plan_workers(
    items: Sequence[pytest.Item],
    asked: int | None,
    *,
    is_scenario: Callable[[pytest.Item], bool],
    memory_limit_mib: int,
    unsuitable: str | None,
) -> Plan:
    """The workers for ``items``: ``asked`` (``None``: auto), or 1 with the reason.

    ``unsuitable`` is why this run cannot fork workers (an option that needs the scenarios in
    this process, say); it is stated only when workers were asked for by number.
    """
    if asked == 1:
        return Plan(1)
    why_not = unsuitable or _unforkable(items, is_scenario)
    if asked is not None:
        workers = min(asked, len(items))
        if why_not is not None:
            return Plan(1, f"scenarios ran in this process, not in {asked} workers: {why_not}")
    elif why_not is not None or not sys.platform.startswith("linux") or _cpus() < 2:
        return Plan(1)
    else:
        by_size = math.ceil(len(items) / _SCENARIOS_PER_WORKER)
        workers = min(_cpus() + _SPARE_WORKERS, by_size, _memory_room(memory_limit_mib))
    if workers < 2:
        return Plan(1)
    return Plan(workers, f"scenarios ran in {workers} worker processes forked after collection")


def _unforkable(
    items: Sequence[pytest.Item], is_scenario: Callable[[pytest.Item], bool]
) -> str | None:
    if not hasattr(os, "fork"):
        return "this platform cannot fork"
    if not all(is_scenario(item) for item in items):
        return "the run holds tests that are not scenarios"
    return None


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _memory_room(limit_mib: int) -> int:
    """How many workers may each grow by ``limit_mib`` MiB within the memory now available."""
    if limit_mib <= 0:
        return sys.maxsize
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return max(1, int(line.split()[1]) // 1024 // limit_mib)
    except (OSError, ValueError, IndexError):
        pass
    return sys.maxsize


# -- in a worker ---------------------------------------------------------------------------------


class _Forwarder:
    """In a worker: sends what pytest's reporting hooks receive to the parent, by scenario."""

    def __init__(self, config: pytest.Config, connection: Connection) -> None:
        self.config = config
        self.connection = connection
        self.index = -1
        self.live = False
        """False while registering: the historic warnings replayed then are the parent's."""

    def send(self, kind: str, *payload: object) -> None:
        _send(self.connection, ("event", self.index, kind, payload))

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self.send("logstart", nodeid, location)

    @pytest.hookimpl(tryfirst=True)  # before anyone (the verdicts' hooks) changes the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        self.send("logreport", data)

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self.send("logfinish", nodeid, location)

    def pytest_warning_recorded(
        self,
        warning_message: warnings.WarningMessage,
        when: str,
        nodeid: str,
        location: tuple[str, int, str] | None,
    ) -> None:
        if self.live:
            self.send("warning", _portable(warning_message), when, nodeid, location)


def _portable(message: warnings.WarningMessage) -> warnings.WarningMessage:
    """``message`` as it can be pickled: a warning of a class the parent cannot load as text."""
    portable = warnings.WarningMessage(
        message.message, message.category, message.filename, message.lineno, None, message.line
    )
    try:
        pickle.loads(pickle.dumps(portable))
    except Exception:  # a class defined where the parent cannot import it, arguments that aren't
        text = f"{message.category.__name__}: {message.message}"
        return warnings.WarningMessage(
            UserWarning(text), UserWarning, message.filename, message.lineno, None, message.line
        )
    return portable


def _work(session: pytest.Session, connection: Connection, in_worker: Callable[[], None]) -> int:
    """A worker's life: run the scenarios the parent hands out; the exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent passes interrupts on, once
    signal.signal(signal.SIGTERM, raise_on_sigterm)
    config = session.config
    in_worker()
    _own_capture(config)
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        config.pluginmanager.unregister(terminal)
    forwarder = _Forwarder(config, connection)
    config.pluginmanager.register(forwarder, "skill-conformance-worker")
    forwarder.live = True
    items = session.items

    def ask() -> int | None:
        _send(connection, ("next",))
        try:
            answer: int | None = connection.recv()
        except (EOFError, OSError) as error:
            raise _ParentGone from error
        return answer

    try:
        current = ask()
        while current is not None:
            following = ask()  # known before the scenario runs: its fixtures' teardown needs it
            forwarder.index = current
            nextitem = items[following] if following is not None else None
            items[current].ihook.pytest_runtest_protocol(item=items[current], nextitem=nextitem)
            _send(connection, ("done", current))
            current = following
    except _ParentGone:
        _tear_down(session)
        return 1
    except KeyboardInterrupt:
        _tear_down(session)
        _send(connection, ("stopped", "interrupted", None))
    except pytest.exit.Exception as stop:
        _tear_down(session)
        _send(connection, ("stopped", "exit", (stop.msg, stop.returncode)))
    except BaseException:
        import traceback

        _tear_down(session)
        _send(connection, ("stopped", "crash", traceback.format_exc()))
        return 1
    return 0


def _own_capture(config: pytest.Config) -> None:
    """Capture into files of this worker's own: the parent's are shared with every worker."""
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is None or not capture.is_globally_capturing():
        return
    capture.stop_global_capturing()  # nothing is pending: each test's capture was read
    capture.start_global_capturing()
    capture.suspend_global_capture()  # as between tests, where the fork happened


def _tear_down(session: pytest.Session) -> None:
    """Close what the interrupted scenario set up, as pytest's own session end would."""
    with contextlib.suppress(BaseException):
        session._setupstate.teardown_exact(None)


# -- in the parent -------------------------------------------------------------------------------


@dataclass
class _Worker:
    pid: int
    connection: Connection
    assigned: list[int] = field(default_factory=list)
    """Scenarios handed out and not yet done, in order: the one running, then the next."""
    ran: bool = False
    stopped: tuple[str, Any] | None = None


_Event = tuple[str, tuple[Any, ...]]


class _Run:
    """The parent's side: hand out scenarios, collect what the workers report, replay it."""

    def __init__(self, session: pytest.Session, count: int, in_worker: Callable[[], None]) -> None:
        self.session = session
        self.config = session.config
        self.items = session.items
        self.in_worker = in_worker
        self.pending = list(range(len(self.items)))
        self.workers: dict[Connection, _Worker] = {}
        self.events: dict[int, list[_Event]] = {}
        self.done: set[int] = set()
        self.replayed = 0
        """Scenarios replayed: all before this index were, in order."""
        self.stopping = False
        self.outcome: tuple[str, Any] | None = None
        """Why a worker stopped the run of its own: ``("interrupted", None)`` (a signal reached it,
        not this process), ``("exit", (msg, code))`` (``pytest.exit``) or ``("crash", text)``."""
        for _ in range(min(count, len(self.items))):
            self.fork()

    def fork(self) -> None:
        parent_end, child_end = Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker; measured through the parent's reports
            status = 1
            try:
                parent_end.close()
                for other in self.workers:
                    other.close()
                status = _work(self.session, child_end, self.in_worker)
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(status)
        child_end.close()
        self.workers[parent_end] = _Worker(pid, parent_end)

    def run(self) -> None:
        """Until every worker has ended: answer, collect, replay; raise as one process would."""
        try:
            while self.workers:
                for connection in wait(list(self.workers)):
                    self.receive(self.workers[connection])  # type: ignore[index]
        except KeyboardInterrupt:
            self.stop()
            self.finish()
            raise
        except BaseException:  # this process broke (a hook raised): no worker may outlive it
            self.stop()
            self.kill()
            raise
        self.finish()
        self.raise_outcome()

    def receive(self, worker: _Worker) -> None:
        try:
            message = worker.connection.recv()
        except (EOFError, OSError):
            self.ended(worker)
            return
        kind = message[0]
        if kind == "next":
            index = self.pending.pop(0) if self.pending and not self.stopping else None
            if index is not None:
                worker.assigned.append(index)
            with contextlib.suppress(OSError):
                worker.connection.send(index)
        elif kind == "event":
            _, index, name, payload = message
            worker.ran = True
            if name == "logreport":
                payload = (
                    self.config.hook.pytest_report_from_serializable(
                        config=self.config, data=payload[0]
                    ),
                )
            self.events.setdefault(index, []).append((name, payload))
        elif kind == "done":
            worker.assigned.remove(message[1])
            self.done.add(message[1])
            self.replay()
        elif kind == "stopped":
            worker.stopped = (message[1], message[2])
            if not self.stopping:  # of its own: interrupted from outside, pytest.exit, a crash
                self.outcome = worker.stopped
                self.stop()

    def ended(self, worker: _Worker) -> None:
        """A worker's connection closed: reap it; if it died in a scenario, err that one."""
        del self.workers[worker.connection]
        worker.connection.close()
        _, status = os.waitpid(worker.pid, 0)
        if not worker.assigned or self.stopping:
            return
        running, *reserved = worker.assigned
        self.pending[:0] = reserved
        if not self.events.get(running):  # died between scenarios: run it elsewhere
            self.pending.insert(0, running)
        else:
            self.err(running, f"the worker process running it {_death(status)}")
        if not worker.ran and worker.stopped is None:
            self.outcome = ("crash", f"a worker process {_death(status)} before any scenario")
            self.stop()
        elif self.pending:
            self.fork()

    def err(self, index: int, why: str) -> None:
        """Report the scenario at ``index`` errored in the phase it died in, as pytest would."""
        item = self.items[index]
        events = self.events.setdefault(index, [])
        reported = {payload[0].when for name, payload in events if name == "logreport"}
        when: Literal["setup", "call", "teardown"] = (
            "teardown" if "call" in reported else "call" if "setup" in reported else "setup"
        )

        def died() -> NoReturn:
            raise WorkerDied(why)

        call = pytest.CallInfo.from_call(died, when=when)
        report = item.ihook.pytest_runtest_makereport(item=item, call=call)
        events += [("logreport", (report,)), ("logfinish", (item.nodeid, item.location))]
        self.done.add(index)
        self.replay()

    def replay(self) -> None:
        """Replay, in collection order, every scenario done that nothing before it holds up."""
        while self.replayed in self.done and not self.stopping:
            self.replay_one(self.replayed)
            self.replayed += 1
            if self.session.shouldfail or self.session.shouldstop:
                self.stop()

    def replay_one(self, index: int) -> None:
        hook = self.items[index].ihook
        for name, payload in self.events.pop(index, []):
            if name == "logstart":
                hook.pytest_runtest_logstart(nodeid=payload[0], location=payload[1])
            elif name == "logreport":
                hook.pytest_runtest_logreport(report=payload[0])
            elif name == "logfinish":
                hook.pytest_runtest_logfinish(nodeid=payload[0], location=payload[1])
            elif name == "warning":
                message, when, nodeid, location = payload
                kwargs = {
                    "warning_message": message, "when": when, "nodeid": nodeid,
                    "location": location,
                }  # fmt: skip
                hook.pytest_warning_recorded.call_historic(kwargs=kwargs)

    def stop(self) -> None:
        """Hand out nothing more; interrupt every worker, once."""
        if self.stopping:
            return
        self.stopping = True
        for worker in self.workers.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGTERM)

    def finish(self) -> None:
        """Wait (bounded) for the workers to end; if stopped early, replay what did finish."""
        deadline = time.monotonic() + _STOP_GRACE
        try:
            while self.workers:
                left = deadline - time.monotonic()
                ready = wait(list(self.workers), timeout=max(0.0, left))
                if not ready:
                    break
                for connection in ready:
                    self.receive(self.workers[connection])  # type: ignore[index]
        except KeyboardInterrupt:  # a second interrupt: stop waiting
            pass
        finally:
            self.kill()
        if self.stopping and not (self.session.shouldfail or self.session.shouldstop):
            for index in sorted(self.done):  # what finished, the gaps left out
                if index >= self.replayed:
                    self.replay_one(index)

    def kill(self) -> None:
        """Kill and reap every worker still running."""
        for worker in list(self.workers.values()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)
            self.ended(worker)

    def raise_outcome(self) -> None:
        """End the run as one process would have: interrupted, exited, failed fast, stopped."""
        if self.outcome is not None:
            kind, detail = self.outcome
            if kind == "interrupted":
                raise KeyboardInterrupt("a scenario worker was interrupted")
            if kind == "exit":
                pytest.exit(detail[0], returncode=detail[1])
            raise RuntimeError(f"a scenario worker failed:\n{detail}")
        if self.session.shouldfail:
            raise self.session.Failed(self.session.shouldfail)
        if self.session.shouldstop:
            raise self.session.Interrupted(self.session.shouldstop)


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        with contextlib.suppress(ValueError):
            return f"was killed by signal {signal.Signals(signum).name}"
        return f"was killed by signal {signum}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def run_in_workers(
    session: pytest.Session, count: int, *, in_worker: Callable[[], None]
) -> str | None:
    """Run ``session``'s items in ``count`` forked workers; ``in_worker`` runs first in each.

    Returns why it did not (``None`` when it did): threads other than this one are running,
    whose locks a fork would copy held.
    """
    threads = [
        thread.name for thread in threading.enumerate() if thread is not threading.current_thread()
    ]
    if threads:
        return f"threads are running ({', '.join(threads)}), and a fork copies their locks"
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        factory.getbasetemp()  # one base for every worker's tmp_path, made before they start
    _Run(session, count, in_worker).run()
    return None
