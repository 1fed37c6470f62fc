"""Import a skill's Python tool from ``module:function``, never taking the host down with it.

A tool module is someone else's code run at import time. The import runs in a daemon thread of its
own and is waited for at most ``timeout`` seconds:

- any exception it raises, ``SystemExit`` and ``KeyboardInterrupt`` included, becomes a
  :class:`ToolImportError` (a real Ctrl-C reaches the waiting thread, not the import, and stops
  the host as usual);
- an import still running after the timeout is abandoned and reported; its thread is left to
  finish on its own (a daemon thread does not keep the process alive), and every later import of
  the same module fails at once instead of waiting again.

What one process cannot contain: a module that calls ``os._exit``, kills its own process, or
corrupts the interpreter (a crashing C extension) takes the host with it. Only running tool
imports in a separate process would contain those.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from skill_conformance.reference.errors import ToolImportError

__all__ = ["IMPORT_TIMEOUT", "import_tool", "tool_name"]

IMPORT_TIMEOUT = 5.0
"""Seconds a tool module may take to import before it is abandoned and reported."""

_abandoned: dict[str, threading.Thread] = {}
"""Imports given up on, by module name, while their thread still runs."""
_abandoned_lock = threading.Lock()


def import_tool(import_path: str, timeout: float = IMPORT_TIMEOUT) -> Callable[..., Any]:
    """The callable at ``import_path``; the module part ends at the last ``:``.

    Raises:
        ToolImportError: The path is malformed, the module does not import (whatever it raises,
            or it does not finish within ``timeout`` seconds), or it has no such callable.

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
    """``importlib.import_module(module_name)`` in a daemon thread, waited for ``timeout`` s."""
    with _abandoned_lock:
        hung = _abandoned.get(module_name)
        if hung is not None and not hung.is_alive():
            del _abandoned[module_name]
            hung = None
    if hung is not None:
        raise ToolImportError(f"importing {module_name!r} for {import_path!r} still hangs")
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["module"] = importlib.import_module(module_name)
        except BaseException as error:
            outcome["error"] = error
        finally:
            done.set()

    # The thread's name only shows in debuggers and thread dumps.
    thread = threading.Thread(
        target=run, name=f"import {module_name}", daemon=True
    )  # pragma: no mutate
    thread.start()
    if not done.wait(timeout):
        with _abandoned_lock:
            _abandoned[module_name] = thread
        raise ToolImportError(
            f"importing {module_name!r} for {import_path!r} did not finish within"
            f" {timeout:g} s; abandoned"
        )
    error = outcome.get("error")
    if error is not None:
        raise ToolImportError(
            f"cannot import {module_name!r} for {import_path!r}: {type(error).__name__}: {error}"
        ) from error
    return outcome["module"]


def tool_name(function: Callable[..., Any]) -> str:
    """The tool name of an imported function: its own ``__name__``."""
    return str(getattr(function, "__name__", "") or type(function).__name__)
