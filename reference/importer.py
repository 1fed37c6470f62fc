"""Import a skill's Python tool from its ``module:function`` path."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from skill_conformance.reference.errors import ToolImportError

__all__ = ["import_tool", "tool_name"]


def import_tool(import_path: str) -> Callable[..., Any]:
    """The callable at ``import_path``; the module part ends at the last ``:``.

    Raises:
        ToolImportError: The path is malformed, the module does not import, or it has no such
            callable.

    """
    module_name, colon, attribute = import_path.rpartition(":")
    if not colon or not module_name or not attribute:
        raise ToolImportError(f"{import_path!r} is not 'module:function'")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise ToolImportError(
            f"cannot import {module_name!r} for {import_path!r}: {type(error).__name__}: {error}"
        ) from error
    function = getattr(module, attribute, None)
    if function is None:
        raise ToolImportError(f"module {module_name!r} has no {attribute!r} ({import_path!r})")
    if not callable(function):
        raise ToolImportError(f"{import_path!r} is not callable")
    return function  # type: ignore[no-any-return]


def tool_name(function: Callable[..., Any]) -> str:
    """The tool name of an imported function: its own ``__name__``."""
    return str(getattr(function, "__name__", "") or type(function).__name__)
