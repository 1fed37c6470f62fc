"""Import a skill's Python tool from ``module:function``, never taking the host down with it.

A tool module is someone else's code run at import time. Where fork exists (Linux, macOS), its
first import is tried in a child process first: a fork of the host, so the module finds there what
it would find in the host, and only the child ends if the module ends its process (``os._exit``,
a signal it sends itself, a crashing C extension), which nothing in the host's own process could
survive. Such a module is refused and never imported by the host, and so is one that closes or
replaces ``sys.stdin``, ``sys.stdout`` or ``sys.stderr`` (the host's, which every other skill and
server shares; the host's thread puts back any it replaces, where there is no fork). The price:
the module's import runs twice (its side effects too, if it has any) after a fork of a few
milliseconds; a module already imported is not tried again.

The import in the host runs in a daemon thread of its own. Each is waited for at most ``timeout``
seconds:

- any exception the import raises, ``SystemExit`` and ``KeyboardInterrupt`` included, becomes a
  :class:`ToolImportError` (a real Ctrl-C reaches the waiting thread, not the import, and stops
  the host as usual);
- an import still running after the timeout is abandoned and reported. In the host's thread it is
  left to finish on its own (a daemon thread does not keep the process alive), and every later
  import of the same module fails at once instead of waiting again, until it has finished. A child
  still trying it is killed (it holds copies of the host's pipes, which would keep a server or a
  worker from seeing them close), and the module is not tried again for as long as it was waited
  for.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import os
import select
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from skill_conformance.reference.errors import ToolImportError

__all__ = ["IMPORT_TIMEOUT", "import_tool", "tool_name"]

IMPORT_TIMEOUT = 5.0
"""Seconds a tool module may take to import before it is abandoned and reported."""

_IMPORTED = b"i"
"""What the child trying an import writes once the import is over, raised or not."""

_TOOK_STREAMS = b"s"
"""What it writes instead if the import closed or replaced ``sys.stdin``, ``stdout``, ``stderr``."""

_STREAMS = ("stdin", "stdout", "stderr")


class _GivenUp:
    """A first import whose child was killed at the timeout: not tried again for as long."""

    def __init__(self, timeout: float) -> None:
        self.until = time.monotonic() + timeout

    def is_alive(self) -> bool:
        """Whether imports of the module still fail at once."""
        return time.monotonic() < self.until


_abandoned: dict[str, threading.Thread | _GivenUp] = {}
"""Imports given up on, by module name: their thread still runs, or their child hung lately."""
_abandoned_lock = threading.Lock()


def import_tool(import_path: str, timeout: float = IMPORT_TIMEOUT) -> Callable[..., Any]:
    """The callable at ``import_path``; the module part ends at the last ``:``.

    Raises:
        ToolImportError: The path is malformed, the module does not import (whatever it raises,
            if it ends its process, or if it does not finish within ``timeout`` seconds), or it
            has no such callable.

    """
    module_name, colon, attribute = import_path.rpartition(":")
    if not colon or not module_name or not attribute:
        raise ToolImportError(f"{import_path!r} is not 'module:function'")
    module = _import_bounded(module_name, import_path, timeout)
    function = getattr(module, attribute, None)
    if function is None:
        raise ToolImportError(f"module {module_name!r} has no {attribute!r} ({import_path!r})")
    if not callable(function):
        raise ToolImportError(f"{import_path!r} is not callable")
    return function  # type: ignore[no-any-return]


def _import_bounded(module_name: str, import_path: str, timeout: float) -> Any:
    """``importlib.import_module(module_name)``, tried in a child first, each bounded."""
    with _abandoned_lock:
        hung = _abandoned.get(module_name)
        if hung is not None and not hung.is_alive():
            del _abandoned[module_name]
            hung = None
    if isinstance(hung, _GivenUp):
        raise ToolImportError(
            f"importing {module_name!r} for {import_path!r} did not finish lately; not tried again"
            " yet"
        )
    if hung is not None:
        raise ToolImportError(f"importing {module_name!r} for {import_path!r} still hangs")
    if module_name not in sys.modules and hasattr(os, "fork"):
        _try_in_child(module_name, import_path, timeout)
    return _import_in_thread(module_name, import_path, timeout)


def _try_in_child(module_name: str, import_path: str, timeout: float) -> None:
    """Import ``module_name`` in a forked child; raise if that ended the child or hung."""
    readable, writable = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns that a fork of a process running threads may deadlock in the child:
        # the child only imports one module, and is given up at the timeout like a hang.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; seen through what the parent reads
        _child(module_name, readable, writable)
    os.close(writable)
    try:
        ready, _, _ = select.select([readable], [], [], timeout)
        said = os.read(readable, 1) if ready else b""
        imported = said in (_IMPORTED, _TOOK_STREAMS)
        if not ready:  # never left running: it holds copies of the host's pipes
            os.kill(pid, signal.SIGKILL)
    except BaseException:  # interrupted while waiting: leave no child behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _reap(pid)
        raise
    finally:
        os.close(readable)
    status = _reap(pid)
    if not ready:
        with _abandoned_lock:
            _abandoned[module_name] = _GivenUp(timeout)
        raise ToolImportError(_did_not_finish(module_name, import_path, timeout))
    if not imported:
        raise ToolImportError(
            f"importing {module_name!r} for {import_path!r} ended the process importing it"
            f" ({_ending(status)}); never imported by the host"
        )
    if said == _TOOK_STREAMS:
        raise ToolImportError(
            f"importing {module_name!r} for {import_path!r} closed or replaced sys.stdin, stdout"
            " or stderr, which are the host's; never imported by the host"
        )


def _reap(pid: int) -> int | None:
    """The wait status of the child, which has ended or is ending; None if another reaped it."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _child(module_name: str, readable: int, writable: int) -> None:  # pragma: no cover
    """In the forked child: import, say so, exit; whatever the module does, never return."""
    try:
        os.close(readable)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing the module prints reaches the host's own streams
            os.dup2(null, fd)
        streams = open(os.devnull, "r+")  # noqa: SIM115
        sys.stdin = sys.stdout = sys.stderr = streams
        faulthandler.disable()  # a module that crashes says nothing on the host's own streams
        with contextlib.suppress(BaseException):
            importlib.import_module(module_name)  # what it raises, the host's import reports
        kept = not streams.closed and all(getattr(sys, name) is streams for name in _STREAMS)
        os.write(writable, _IMPORTED if kept else _TOOK_STREAMS)
    finally:
        os._exit(0)


def _ending(status: int | None) -> str:
    if status is None:
        return "its status unknown"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(number).name}"
        return f"killed by signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _did_not_finish(module_name: str, import_path: str, timeout: float) -> str:
    return (
        f"importing {module_name!r} for {import_path!r} did not finish within {timeout:g} s;"
        " abandoned"
    )


def _import_in_thread(module_name: str, import_path: str, timeout: float) -> Any:
    """``importlib.import_module(module_name)`` in a daemon thread, waited for ``timeout`` s."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    streams = {name: getattr(sys, name) for name in _STREAMS}

    def run() -> None:
        try:
            outcome["module"] = importlib.import_module(module_name)
        except BaseException as error:
            outcome["error"] = error
        finally:
            for name, stream in streams.items():  # one it replaced anyway (no fork to try it)
                setattr(sys, name, stream)
            done.set()

    # The thread's name only shows in debuggers and thread dumps.
    thread = threading.Thread(
        target=run, name=f"import {module_name}", daemon=True
    )  # pragma: no mutate
    thread.start()
    if not done.wait(timeout):
        with _abandoned_lock:
            _abandoned[module_name] = thread
        raise ToolImportError(_did_not_finish(module_name, import_path, timeout))
    error = outcome.get("error")
    if error is not None:
        raise ToolImportError(
            f"cannot import {module_name!r} for {import_path!r}: {type(error).__name__}: {error}"
        ) from error
    return outcome["module"]


def tool_name(function: Callable[..., Any]) -> str:
    """The tool name of an imported function: its own ``__name__``."""
    return str(getattr(function, "__name__", "") or type(function).__name__)
