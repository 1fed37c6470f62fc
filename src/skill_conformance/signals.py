"""One signal discipline for every command: SIGTERM as Ctrl-C, then quiet once the outcome is known.

Standard library only, so that a command installs it before it imports anything else: an
interrupt landing during an import is then an interrupt like any other (one line, exit 2), not a
traceback. From :func:`guard` on, SIGTERM raises :class:`Terminated`, a ``KeyboardInterrupt``;
the command ends on ``skill-conformance: interrupted`` with exit status 2. Once its outcome is
decided (its output written, or the interrupt caught), :func:`settle` makes every later SIGINT
and SIGTERM do nothing until the process exits, so that the outcome it reports is the one it has.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

__all__ = [
    "BROKEN_PIPE",
    "INTERRUPTED",
    "Terminated",
    "exit_quietly",
    "finish",
    "guard",
    "guarded",
    "ignore",
    "interrupted",
    "raise_on_sigint",
    "raise_on_sigterm",
    "run_pytest",
    "settle",
    "settled",
]

INTERRUPTED = 2
"""The exit status of a command stopped by Ctrl-C or SIGTERM, as pytest's for a run."""

BROKEN_PIPE = 128 + signal.SIGPIPE
"""The exit status of a command whose output's reader went away, as a shell shows one it kills."""

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_state = {"owned": False, "settled": False}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that a command or a run ends as it does on Ctrl-C."""


def ignore(signum: int, frame: FrameType | None) -> None:
    """A handler that does nothing.

    Rather than ``SIG_IGN``: Python reports a signal that arrived just before a handler was set to
    ``SIG_IGN`` as an "ignored due to race condition" error on stderr; and children started
    later do not inherit a handler as they inherit ``SIG_IGN``.
    """


def _swallowed_in(frame: FrameType | None) -> bool:
    """Whether an exception raised in ``frame`` would be reported as "ignored" and lost.

    Python runs a ``__del__`` method and a weak reference's callback (the import system's
    module locks have one) where an exception cannot propagate: an interrupt raised there is
    printed as "Exception ignored" and the program goes on, as if it had never come.
    """
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (
            code.co_name == "cb" and code.co_filename == "<frozen importlib._bootstrap>"
        ):
            return True
        frame = frame.f_back
    return False


def _deferred(signum: int, frame: FrameType | None) -> bool:
    """Send ``signum`` again in a moment if ``frame`` would lose it; whether it did."""
    if not _swallowed_in(frame):
        return False
    again = threading.Timer(0.01, os.kill, (os.getpid(), signum))
    again.daemon = True
    again.start()
    return True


def raise_on_sigint(signum: int, frame: FrameType | None) -> None:
    """A SIGINT handler: ``KeyboardInterrupt``, as Python's own, but never where it is lost."""
    if not _deferred(signum, frame):
        raise KeyboardInterrupt


def raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler: raise :class:`Terminated` once, then do nothing on SIGTERM.

    Once: a second SIGTERM during the clean-up must not cut the clean-up short.
    """
    if _deferred(signum, frame):
        return
    signal.signal(signal.SIGTERM, ignore)
    raise Terminated(f"terminated by signal {signum}")


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def guard() -> None:
    """Own this process's signals: SIGTERM raises :class:`Terminated` from now on.

    Called first by the command line, which then ends the process itself; a SIGTERM handler
    already set (by a host program) is left alone.
    """
    _state["owned"] = True  # first: a handler may run as soon as it is set, inside this call
    if _main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, raise_on_sigterm)
    if _main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, raise_on_sigint)


def settle() -> None:
    """The process's outcome is decided: from now on SIGINT and SIGTERM do nothing.

    Only in a process a command owns (:func:`guard`): a program that merely imports the suite
    (pytest run by hand, a test) keeps its own handling.
    """
    if not (_state["owned"] and _main_thread()):
        return
    while True:
        try:  # an interrupt raised before the handlers change: set them again, it is moot
            for signum in _SIGNALS:
                signal.signal(signum, ignore)
            break
        except KeyboardInterrupt:
            continue
    _state["settled"] = True


def finish() -> None:
    """The process is about to exit: SIGINT and SIGTERM are ignored by the system from now on.

    Python gives a signal handled by a function back its default action as the interpreter
    shuts down (after :func:`settle`'s handlers stop working): one arriving then would kill
    the process by the signal after its whole output. ``SIG_IGN`` outlives the shutdown.
    """
    if _state["owned"] and _main_thread():
        for signum in _SIGNALS:
            signal.signal(signum, signal.SIG_IGN)  # runs ignore() for any pending first
        # CPython ends a ``python -m`` process by SIGINT, whatever its exit status, once a
        # KeyboardInterrupt has ended any string run by exec or eval, caught or not (dataclasses
        # and namedtuple build their methods so: a Ctrl-C landing there, then reported on one
        # line, ended the command killed by the signal). Running a string that ends well clears
        # that mark (CPython 3.11 to 3.13 alike).
        exec("")


def settled() -> bool:
    """Whether :func:`settle` quieted this process's signals."""
    return _state["settled"]


def interrupted(message: str = "interrupted") -> int:
    """Settle, say ``message`` on one line, and return :data:`INTERRUPTED`."""
    settle()
    os.write(2, f"skill-conformance: {message}\n".encode())  # not sys.stderr: may be mid-write
    return INTERRUPTED


def exit_quietly(status: int) -> int:
    """Flush the standard streams (a reader gone away ends as SIGPIPE would); return ``status``."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            # The flush at exit would fail again on the closed pipe (the signal module's note).
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            status = BROKEN_PIPE if status == 0 else status
        except (OSError, ValueError):
            pass
    return status


def guarded(body: Callable[[], int]) -> int:
    """Run ``body`` under the signal discipline; its status, or 2 on one line if interrupted.

    Once ``body`` returns (its output whole) or is interrupted, later signals change nothing.
    """
    try:
        try:
            guard()  # inside: a signal landing as a handler is set is an interrupt as any other
            status = body()
        finally:
            settle()
    except KeyboardInterrupt:
        status = interrupted()
    status = exit_quietly(status)
    finish()
    return status


def _pytest() -> int:
    # Interrupts were blocked across the exec of ``skill-conformance run`` (see its run_suite):
    # one that arrived meanwhile is raised here, now that it ends the run on one line.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    import runpy

    try:
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        raise
    return 0


def run_pytest() -> int:
    """pytest, as ``skill-conformance run`` becomes it: its exit status, or 2 if interrupted.

    Loaded by its path, without the package (pytest must import that itself, to rewrite its
    assertions). An interrupt before pytest's session begins (while it imports and configures)
    ends the run with no results file; one after the results file is written changes nothing
    (the rest of the output is printed and the run's status kept): see ``docs/ci-gate.md``.
    """
    return guarded(_pytest)
