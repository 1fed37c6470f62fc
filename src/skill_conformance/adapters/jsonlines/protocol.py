"""The messages of the JSON-lines protocol: requests out, values and port errors in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_conformance.errors import ImplementationError
from skill_conformance.port import ErrorKind, McpChild, Setup, SkillSystemError, Unsupported

__all__ = [
    "HELLO",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "object_of",
    "setup_json",
    "strings_of",
    "value_of",
]

PROTOCOL_VERSION = 1
HELLO = {"protocol": PROTOCOL_VERSION, "suite": "skill-conformance"}
_SHOWN = 200
"""Characters of an offending value a protocol error quotes."""


class ProtocolError(ImplementationError, RuntimeError):
    """The process broke the protocol, died, or reported a crash; the scenario is errored."""


def shown(value: object) -> str:
    """``repr(value)``, cut to a length an error line can carry."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def value_of(op: str, response: Mapping[str, Any]) -> Any:
    """The ``ok`` value of ``response``, or its error raised as a port or protocol error."""
    if "error" in response:
        error = response["error"]
        if not isinstance(error, dict):
            raise ProtocolError(f"{op}: 'error' must be an object, not {shown(error)}")
        kind, message = str(error.get("kind", "crash")), str(error.get("message", ""))[:_SHOWN]
        if kind == "unsupported":
            raise Unsupported(message)
        try:
            port_kind = ErrorKind(kind)
        except ValueError:
            raise ProtocolError(
                f"{op}: the implementation reported {kind[:_SHOWN]}: {message}"
            ) from None
        raise SkillSystemError(port_kind, message)
    return response["ok"]


def setup_json(setup: Setup) -> dict[str, object]:
    """The ``open`` request's ``setup``."""
    children: list[dict[str, object]] = []
    for child in setup.children:
        if isinstance(child, McpChild):
            server = child.server
            command = {"command": server.command, "args": list(server.args), "env": server.env}
            children.append({"kind": "mcp", "label": child.label, "server": command})
        else:
            children.append({"kind": "tools", "label": child.label, "tools": list(child.tools)})
    return {
        "skills_dir": str(setup.skills_dir),
        "children": children,
        "skills_tools_provider": setup.skills_tools_provider,
        "workdir": None if setup.workdir is None else str(setup.workdir),
        "python_path": [str(directory) for directory in setup.python_path],
        "give_up_after": setup.give_up_after,
    }


def strings_of(op: str, value: object) -> list[str]:
    """``value``, which must be a list, as strings."""
    if not isinstance(value, list):
        raise ProtocolError(f"{op}: expected a list of strings, got {shown(value)}")
    return [str(item) for item in value]


def object_of(op: str, value: object) -> dict[str, Any]:
    """``value``, which must be a JSON object."""
    if not isinstance(value, dict):
        raise ProtocolError(f"{op}: expected an object, got {shown(value)}")
    return value
