"""The scripted model's run: the result of its call read back, the model asked no more than needed.

``Script.run`` leaves a real pydantic-ai run once the request carrying the call's result is built
(the reference adapter drives every operation so); these tests hold what it reads to what a whole
run gives the model, and check that leaving early leaves nothing running.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry, ToolReturn
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset

from skill_conformance.adapters.scripted_model import Call, Script, idle


class _Counted(Script):
    """A script that counts the requests its model answers."""

    def __init__(self, call: Call | None = None, *, before: tuple[Call, ...] = ()) -> None:
        super().__init__(call, before=before)
        self.requests = 0

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> Any:
        self.requests += 1
        return await super().respond(messages, info)


class _Entered(WrapperToolset[Any]):
    """A toolset that counts the runs that have it entered."""

    entered = 0

    async def __aenter__(self) -> _Entered:
        self.entered += 1
        await super().__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self.entered -= 1
        return await super().__aexit__(*args)


def _agent(*tools: Callable[..., Any], toolset: _Entered | None = None) -> Agent[None, str]:
    toolset = toolset or _Entered(FunctionToolset(list(tools)))
    return Agent(FunctionModel(idle), toolsets=[toolset])


def echo(text: str) -> str:
    """Give ``text`` back, marked."""
    return f"echo: {text}"


def picky(text: str) -> str:
    """Refuse every call."""
    raise ModelRetry(f"not {text!r}, try again")


def noted(text: str) -> ToolReturn:
    """Give ``text`` back with a note that follows the result to the model."""
    return ToolReturn(return_value=f"noted: {text}", content="Read the note.")


def broken(text: str) -> str:
    """Fail every call."""
    raise LookupError(text)


def _run(script: Script, agent: Agent[None, str]) -> None:
    asyncio.run(script.run(agent, "Go."))


def test_a_call_s_result_is_read_and_the_model_asked_once() -> None:
    script = _Counted(("echo", {"text": "hi"}))
    _run(script, _agent(echo))
    assert (script.result, script.refused, script.offered) == ("echo: hi", False, ("echo",))
    assert script.requests == 1


def test_a_refused_call_is_read_as_refused_with_the_tool_s_words() -> None:
    script = _Counted(("picky", {"text": "hi"}))
    _run(script, _agent(picky))
    assert script.refused
    assert "not 'hi', try again" in str(script.result)
    assert script.requests == 1


def test_calls_made_first_are_made_and_the_last_one_s_result_is_read() -> None:
    script = _Counted(("echo", {"text": "last"}), before=(("echo", {"text": "first"}),))
    _run(script, _agent(echo))
    assert script.result == "echo: last"
    assert script.requests == 2


def test_without_a_call_the_run_ends_on_the_model_s_answer() -> None:
    script = _Counted()
    _run(script, _agent(echo))
    assert (script.offered, script.result, script.requests) == (("echo",), None, 1)


def test_a_tool_that_fails_fails_the_run() -> None:
    with pytest.raises(LookupError, match="hi"):
        _run(Script(("broken", {"text": "hi"})), _agent(broken))


@pytest.mark.parametrize("tool", [echo, picky, noted])
def test_the_result_read_is_what_a_whole_run_gives_the_model(tool: Callable[..., Any]) -> None:
    call = (tool.__name__, {"text": "hi"})
    whole, early = Script(call), Script(call)
    asyncio.run(_agent(tool).run("Go.", model=whole.model()))
    _run(early, _agent(tool))
    assert (early.result, early.refused, early.followed) == (
        whole.result,
        whole.refused,
        whole.followed,
    )
    assert early.result is not None


def test_text_that_follows_the_result_to_the_model_is_read() -> None:
    script = Script(("noted", {"text": "hi"}))
    _run(script, _agent(noted))
    assert (script.result, script.followed) == ("noted: hi", ("Read the note.",))


def test_leaving_the_run_early_leaves_none_of_its_toolsets_entered() -> None:
    toolset = _Entered(FunctionToolset([echo]))
    _run(Script(("echo", {"text": "hi"})), _agent(toolset=toolset))
    assert toolset.entered == 0
