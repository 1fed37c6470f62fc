"""The adapter of agno's skills (``--impl agno``).

An agno ``Agent`` given ``skills=Skills(loaders=[LocalSkills(dir)])`` lists the skills (name,
description, scripts, references) in its system prompt and offers three tools:
``get_skill_instructions``, ``get_skill_reference`` and ``get_skill_script``. Each answers with a
JSON object; a refusal is one with an ``error`` member, which the model reads as the tool's result
and so the adapter returns it as a result too (a tool that raises is an error). Every operation
here is a real ``Agent.arun`` whose model is a scripted :class:`agno.models.base.Model` subclass
making those calls; nothing is called around the agent. Problems are what agno logs as warnings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agno.agent import Agent
from agno.models.base import Model
from agno.models.response import ModelResponse
from agno.skills import LocalSkills, Skills
from agno.tools.function import Function
from typing_extensions import override

from skill_conformance.adapters.thirdparty.agno_paths import (
    agno_file_call,
    agno_instructions_text,
    agno_result_text,
)
from skill_conformance.adapters.thirdparty.common import (
    ProblemLog,
    child_tools,
    installed_version,
    refused,
    unsupported_uri,
)
from skill_conformance.adapters.thirdparty.listing import xml_skill_list
from skill_conformance.adapters.thirdparty.script import ToolScript, decoded
from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    Unsupported,
)

__all__ = ["UNSUPPORTED", "AgnoImplementation", "AgnoSystem", "ScriptedModel"]

UNSUPPORTED: Mapping[Ability, str] = {
    Ability.MCP: "a skill's frontmatter declares no MCP server agno would start",
    Ability.MCP_HTTP: "a skill's frontmatter declares no MCP server agno would connect to",
    Ability.LIFECYCLE: "Skills has no async context to enter: it starts nothing",
    Ability.CHILD_SESSION: "no agent factory: the host passes skills= to each Agent it builds",
    Ability.STANDALONE_AGENT: "no agent factory: the host passes skills= to each Agent it builds",
    Ability.REMOTE_SKILLS: "skills come from loaders of local directories only",
    Ability.PYTHON_TOOLS: "a skill's `tools:` frontmatter is not read; skills carry scripts",
    Ability.ALLOWED_TOOLS: "`allowed-tools` is validated and kept, but filters no tool",
    Ability.ARGUMENTS: "get_skill_instructions takes a skill name only, no arguments",
    Ability.SKILL_URI: "skills are named; there are no skill:// URIs",
    Ability.INLINE_REFERENCES: "references are listed by name and read with get_skill_reference",
    Ability.REGISTRY: "no extension registry",
    Ability.LISTING_SOURCE: "the system prompt lists a skill's name and description, no source",
    Ability.ERROR_KINDS: "a refusal is a JSON result with an error message, no error kind",
    Ability.LENIENT_LOADING: "its validator refuses a name differing from its folder ('Directory "
    "name ... must match skill name') and yaml.safe_load refuses an unquoted value holding ': '",
    Ability.SIZE_LIMITS: "the whole SKILL.md is read and parsed whatever its size: no size limit",
    Ability.DUPLICATE_KEYS: "yaml.safe_load keeps the last of a key written twice",
}

_PROMPT = "Use the skills."


@dataclass
class ScriptedModel(Model):
    """An agno model answering from a :class:`ToolScript`: no provider, no network."""

    id: str = "scripted"
    name: str = "Scripted"
    provider: str = "skill-conformance"
    script: ToolScript = field(default_factory=ToolScript)

    async def ainvoke(
        self,
        messages: list[Any],
        assistant_message: Any,
        tools: list[dict[str, Any]] | None = None,
        **_: Any,
    ) -> ModelResponse:
        """Read the tool results so far, then make the script's next call or answer."""
        for message in messages:
            if message.role == "tool":
                self.script.returned(
                    message.tool_call_id,
                    decoded(message.content),
                    refused=bool(message.tool_call_error),
                )
        names = [str(tool.get("function", tool).get("name")) for tool in tools or []]
        system = next((m.content for m in messages if m.role == "system"), None)
        planned = self.script.request(names, system if isinstance(system, str) else None)
        if planned is None:
            return ModelResponse(role="assistant", content="Done.")
        call = {"name": planned.name, "arguments": planned.json_arguments()}
        return ModelResponse(
            role="assistant", tool_calls=[{"id": planned.id, "type": "function", "function": call}]
        )

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Agents are run asynchronously here."""
        raise NotImplementedError("the scripted model runs with Agent.arun")

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        """Agents are not streamed here."""
        raise NotImplementedError("the scripted model does not stream")

    def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        """Agents are not streamed here."""
        raise NotImplementedError("the scripted model does not stream")

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


class AgnoImplementation:
    """agno's skills as ``--impl agno`` loads them."""

    name = "agno"
    cannot_drive: str | None = None

    def __init__(self) -> None:
        self.version = installed_version("agno")
        self.unsupported = UNSUPPORTED

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return AgnoSystem(setup)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""


def _returning(text: str) -> Callable[[], str]:
    def tool() -> str:
        return text

    tool.__doc__ = f"Return {text!r}."
    return tool


class AgnoSystem(AsyncSkillSystem):
    """agno ``Skills`` over one scenario's skills directory (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup) -> None:
        self._setup = setup
        self._log = ProblemLog(loggers=("agno",))
        self._skills: Skills | None = None
        self._started = False

    async def start(self) -> None:
        """Load the skills as ``Skills(loaders=[LocalSkills(dir)])`` does, validating them.

        agno raises on the first skill it refuses, and then there is no ``Skills`` at all: the
        host runs its agent without skills, and the error is a problem. What the model is then
        offered (no skill) is what the scenarios see.
        """
        with self._log.recording():
            try:
                self._skills = Skills(loaders=[LocalSkills(str(self._setup.skills_dir))])
            except Exception as error:
                self._log.failed("Skills(loaders=[LocalSkills(...)])", error)
                self._skills = None
        self._started = True

    async def _run(self, script: ToolScript) -> ToolScript:
        assert self._started, "start() was not called"
        tools = [
            Function(name=name, entrypoint=_returning(f"{child.label}:{name}"))
            for child in child_tools(self._setup.children)
            for name in child.tools
        ]
        agent = Agent(
            model=ScriptedModel(script=script), skills=self._skills, tools=tools, telemetry=False
        )
        with self._log.recording():
            await agent.arun(_PROMPT)
        return script

    @override
    async def tool_names(self) -> Sequence[str]:
        return (await self._run(ToolScript())).offered or ()

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        script = await self._run(ToolScript((name, arguments)))
        return RunRecord(offered=script.offered or (), result=script.result)

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """``get_skill_instructions``: its JSON answer, the instructions first."""
        unsupported_uri(skill)
        if arguments is not None:
            raise Unsupported(UNSUPPORTED[Ability.ARGUMENTS])
        script = await self._run(ToolScript(("get_skill_instructions", {"skill_name": skill})))
        if script.refused:
            raise refused(script.result)
        if isinstance(script.result, dict) and "error" not in script.result:
            return agno_instructions_text(script.result)
        return agno_result_text(script.result, "instructions")

    async def list_skills(self) -> Sequence[SkillListing]:
        """The skills the system prompt lists."""
        return xml_skill_list((await self._run(ToolScript())).prompt)

    async def read_skill_file(self, skill: str, path: str) -> str:
        """``get_skill_reference`` (or ``get_skill_script`` for ``scripts/``) with that path."""
        name, arguments = agno_file_call(skill, path)
        script = await self._run(ToolScript((name, arguments)))
        if script.refused:
            raise refused(script.result)
        return agno_result_text(script.result, "content")

    async def rebuild(self) -> None:
        """``Skills.reload()``: every loader again, as agno's own reload does (or a new one)."""
        if self._skills is None:
            await self.start()
            return
        with self._log.recording():
            try:
                self._skills.reload()
            except Exception as error:
                self._log.failed("Skills.reload()", error)
                self._skills = None

    @override
    def problems(self) -> Sequence[str]:
        return self._log.lines()

    async def close(self) -> None:
        """Nothing to release: agno's skills start no process."""

    @override
    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        raise Unsupported(UNSUPPORTED[Ability.REGISTRY])

    @override
    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        raise Unsupported(UNSUPPORTED[Ability.REGISTRY])

    @override
    async def enter(self) -> None:
        raise Unsupported(UNSUPPORTED[Ability.LIFECYCLE])

    @override
    async def exit(self) -> None:
        raise Unsupported(UNSUPPORTED[Ability.LIFECYCLE])

    @override
    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        raise Unsupported(UNSUPPORTED[Ability.STANDALONE_AGENT])

    @override
    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        raise Unsupported(UNSUPPORTED[Ability.STANDALONE_AGENT])
