"""Helpers of the reference implementation's own tests: skills on disk and real agent runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

SkillWriter = Callable[..., Path]
ServerEntry = Callable[..., dict[str, Any]]


def write_skill(
    skills_dir: Path,
    name: str,
    body: str | None = None,
    *,
    frontmatter: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
    raw: str | None = None,
    **fields: Any,
) -> Path:
    """Write ``skills_dir/name/SKILL.md`` (and ``files``); ``fields`` use ``_`` for ``-``."""
    directory = skills_dir / name
    directory.mkdir(parents=True, exist_ok=True)
    if raw is None:
        data: dict[str, Any] = {"name": name, "description": f"Skill {name}."}
        data.update({key.replace("_", "-"): value for key, value in fields.items()})
        data.update(frontmatter or {})
        header = yaml.safe_dump(data, sort_keys=False)
        raw = f"---\n{header}---\n{body if body is not None else f'Instructions of {name}.'}\n"
    (directory / "SKILL.md").write_text(raw)
    for relative, content in (files or {}).items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return directory


@dataclass
class Run:
    """What the model saw and got in one real agent run."""

    call: tuple[str, dict[str, Any]] | None = None
    offered: list[list[str]] = field(default_factory=list)
    result: object = None

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([tool.name for tool in info.function_tools])
        if self.call is not None and len(self.offered) == 1:
            name, args = self.call
            return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args, tool_call_id="c1")])
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id == "c1":
                    self.result = part.content
        return ModelResponse(parts=[TextPart("done")])


async def agent_run(
    capabilities: Sequence[AbstractCapability[Any]],
    call: tuple[str, dict[str, Any]] | None = None,
) -> Run:
    """Run a real agent over ``capabilities``; its model calls ``call`` once, if given."""
    run = Run(call)
    agent = Agent(FunctionModel(run.respond), capabilities=list(capabilities))
    await agent.run("go")
    return run


async def offered(capabilities: Sequence[AbstractCapability[Any]]) -> list[str]:
    """The tool names the model is offered in a real run over ``capabilities``."""
    return (await agent_run(capabilities)).offered[0]


async def called(
    capabilities: Sequence[AbstractCapability[Any]], name: str, args: dict[str, Any]
) -> object:
    """What tool ``name`` returned to the model in a real run."""
    return (await agent_run(capabilities, (name, args))).result
