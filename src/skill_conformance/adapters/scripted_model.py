"""The model every adapter drives real agents with: no LLM, one scripted tool call at most.

A :class:`Script` is the model of one run. On its first request it records the names of the
tools it is offered (what "the agent sees" means); if told to, it then calls one tool once, and
it reads that call's result back from the run's messages. :meth:`Script.model` gives a
``FunctionModel`` for both ``agent.run`` and streaming runs.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

__all__ = ["CALL_ID", "Script", "idle"]

CALL_ID = "conformance-call"
"""The id of the scripted tool call, by which its result is found."""


class Script:
    """The model of one run: it calls one tool once (if told to), then answers with text."""

    def __init__(self, call: tuple[str, Mapping[str, object]] | None = None) -> None:
        self.call = call
        self.offered: tuple[str, ...] | None = None
        self.result: object = None
        self._called = False

    def _next_call(self, messages: list[ModelMessage], info: AgentInfo) -> tuple[str, str] | None:
        """Record what was offered and returned; the (tool, JSON arguments) to call, if any."""
        if self.offered is None:
            self.offered = tuple(tool.name for tool in info.function_tools)
        if self.call is not None and not self._called:
            self._called = True
            name, arguments = self.call
            return name, json.dumps(dict(arguments))
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_call_id == CALL_ID:
                    self.result = part.content
                elif isinstance(part, RetryPromptPart) and part.tool_call_id == CALL_ID:
                    self.result = part.model_response()
        return None

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The model's answer to the run so far."""
        call = self._next_call(messages, info)
        if call is None:
            return ModelResponse(parts=[TextPart("Done.")])
        name, arguments = call
        return ModelResponse(
            parts=[ToolCallPart(tool_name=name, args=arguments, tool_call_id=CALL_ID)]
        )

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        """The same answer, streamed."""
        call = self._next_call(messages, info)
        if call is None:
            yield "Done."
            return
        name, arguments = call
        yield {0: DeltaToolCall(name=name, json_args=arguments, tool_call_id=CALL_ID)}

    def model(self) -> FunctionModel:
        """A ``FunctionModel`` answering with this script, streamed or not."""
        return FunctionModel(self.respond, stream_function=self.stream)


def idle(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model function that only ever answers ``Done.``."""
    return ModelResponse(parts=[TextPart("Done.")])
