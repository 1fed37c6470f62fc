"""The model every adapter drives real agents with: no LLM, one scripted tool call at most.

A :class:`Script` is the model of one run. On its first request it records the names of the
tools it is offered (what "the agent sees" means); if told to, it then calls one tool once, and
it reads that call's result back from the request that carries it to the model, with whether the
tool refused it (a retry) and the text that came with it. Calls to make first (loading a skill
before reading its file) go in ``before``. :meth:`Script.model` gives a ``FunctionModel`` for
both ``agent.run`` and streaming runs; :meth:`Script.run` drives a pydantic-ai agent only as far
as the call's result, which spares the request that would only end the run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

__all__ = ["CALL_ID", "Call", "Script", "idle"]

CALL_ID = "conformance-call"
"""The id of the scripted tool call, by which its result is found."""


Call = tuple[str, Mapping[str, object]]
"""A tool name and its arguments."""


class Script:
    """The model of one run: it calls one tool once (if told to), then answers with text.

    Attributes:
        offered: The tool names of the first request.
        instructions: The instructions of the first request (where a framework lists skills).
        result: What the call returned (or the retry prompt's text when it was refused).
        refused: Whether the tool refused the call (asked the model to retry).
        followed: Text parts that reached the model in the request carrying the result,
            after it (instructions a framework adds once a tool returns).

    """

    def __init__(self, call: Call | None = None, *, before: Sequence[Call] = ()) -> None:
        self.call = call
        self.offered: tuple[str, ...] | None = None
        self.instructions: str | None = None
        self.result: object = None
        self.refused = False
        self.followed: tuple[str, ...] = ()
        self._pending = [*before, *([call] if call is not None else [])]

    def _call_id(self) -> str:
        """The id of the next call: the last one is :data:`CALL_ID`."""
        return CALL_ID if len(self._pending) == 1 else f"{CALL_ID}-{len(self._pending)}"

    def _next_call(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> tuple[str, str, str] | None:
        """Record what was offered and returned; the (tool, JSON arguments, id) to call, if any."""
        if self.offered is None:
            self.offered = tuple(tool.name for tool in info.function_tools)
            self.instructions = getattr(info, "instructions", None)
        if self._pending:
            call_id = self._call_id()
            name, arguments = self._pending.pop(0)
            return name, json.dumps(dict(arguments)), call_id
        for message in messages:
            self._read(message.parts)
        return None

    def _read(self, parts: Sequence[object]) -> bool:
        """Find the call's result among ``parts``, and the text that follows it; whether found."""
        after: list[str] | None = None
        for part in parts:
            if isinstance(part, ToolReturnPart) and part.tool_call_id == CALL_ID:
                self.result = part.content
                self.refused = getattr(part, "outcome", "success") != "success"
                after = []
            elif isinstance(part, RetryPromptPart) and part.tool_call_id == CALL_ID:
                self.result = part.model_response()
                self.refused = True
                after = []
            elif (
                after is not None
                and isinstance(part, UserPromptPart | TextPart)
                and isinstance(part.content, str)
            ):
                after.append(part.content)
        if after is not None:
            self.followed = tuple(after)
        return after is not None

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The model's answer to the run so far.

        A coroutine: pydantic-ai runs a plain function on a worker thread, one per request.
        """
        call = self._next_call(messages, info)
        if call is None:
            return ModelResponse(parts=[TextPart("Done.")])
        name, arguments, call_id = call
        return ModelResponse(
            parts=[ToolCallPart(tool_name=name, args=arguments, tool_call_id=call_id)]
        )

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        """The same answer, streamed."""
        call = self._next_call(messages, info)
        if call is None:
            yield "Done."
            return
        name, arguments, call_id = call
        yield {0: DeltaToolCall(name=name, json_args=arguments, tool_call_id=call_id)}

    async def run(self, agent: Agent[Any, Any], prompt: str) -> None:
        """Run ``agent`` on this script's model until the call's result is on its way to it.

        The run is iterated node by node (``Agent.iter``) and left once the request carrying
        the result is built: what the model would receive next is known, and asking it again
        would only end the run.
        """
        async with agent.iter(prompt, model=self.model()) as run:
            async for node in run:
                if Agent.is_model_request_node(node) and self._read(node.request.parts):
                    return

    def model(self) -> FunctionModel:
        """A ``FunctionModel`` answering with this script, streamed or not."""
        return FunctionModel(self.respond, stream_function=self.stream)


async def idle(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model function that only ever answers ``Done.``."""
    return ModelResponse(parts=[TextPart("Done.")])
