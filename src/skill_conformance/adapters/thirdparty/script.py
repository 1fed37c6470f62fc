"""A framework-neutral scripted model: the calls one run makes, and what came back.

The pydantic-ai adapters use :class:`~skill_conformance.adapters.scripted_model.Script`; agno and
LangChain have model interfaces of their own, and each adapter wraps a :class:`ToolScript` in a
few lines of its framework's model class. The script decides; the wrapper only translates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["CALL_ID", "PlannedCall", "ToolScript", "decoded"]

CALL_ID = "conformance-call"
"""The id of the call whose result the run is for; calls made before it get numbered ids."""


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the model makes: its id, tool name and arguments (a JSON object)."""

    id: str
    name: str
    arguments: Mapping[str, object]

    def json_arguments(self) -> str:
        """The arguments as the JSON text a provider would send."""
        return json.dumps(dict(self.arguments))


class ToolScript:
    """The model of one run: calls ``before`` in order, then ``call``, then answers ``Done.``.

    Attributes:
        offered: The tool names of the first request.
        prompt: The system prompt of the first request.
        result: What the last call returned to the model.
        refused: Whether the framework marked that result as an error of the tool.

    """

    def __init__(
        self,
        call: tuple[str, Mapping[str, object]] | None = None,
        *,
        before: Sequence[tuple[str, Mapping[str, object]]] = (),
    ) -> None:
        planned = [*before, *([call] if call is not None else [])]
        self._pending = [
            PlannedCall(CALL_ID if i == len(planned) - 1 else f"{CALL_ID}-{i}", name, args)
            for i, (name, args) in enumerate(planned)
        ]
        self.offered: tuple[str, ...] | None = None
        self.prompt: str | None = None
        self.result: object = None
        self.refused = False

    def request(self, offered: Sequence[str], prompt: str | None) -> PlannedCall | None:
        """One model request: note what is offered (first time), return the next call, if any."""
        if self.offered is None:
            self.offered = tuple(offered)
            self.prompt = prompt
        return self._pending.pop(0) if self._pending else None

    def returned(self, call_id: str | None, content: object, *, refused: bool = False) -> None:
        """A tool result the model received: kept when it answers the last call."""
        if call_id == CALL_ID:
            self.result = content
            self.refused = refused


def decoded(content: object) -> object:
    """A tool result that is JSON text, decoded; anything else as it is."""
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except json.JSONDecodeError:
        return content
