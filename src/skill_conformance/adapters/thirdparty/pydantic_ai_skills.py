"""The adapter of ``pydantic-ai-skills`` (``--impl pydantic-ai-skills``).

``SkillsCapability`` hands each skill directory to pydantic-ai-harness's ``Skills``, which makes
every skill a deferred capability: the model is shown each skill's name and description in its
instructions and loads one with pydantic-ai's own ``load_capability`` tool, whose instructions
then follow the tool's return. The skill's other files are read with ``read_skill_resource``,
once the skill is loaded. Everything here is a real ``Agent.run`` whose ``FunctionModel`` makes
those calls, exactly as a model would; the catalogue is read from the instructions it receives.

Skipped skills are reported by harness as ``UserWarning``s at the start of each run: those are
the problems, one line each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic_ai import Agent, Tool
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai_skills import SkillsCapability
from typing_extensions import override

from skill_conformance.adapters.scripted_model import Call, Script
from skill_conformance.adapters.thirdparty.common import (
    ProblemLog,
    child_tools,
    installed_version,
    refused,
    unsupported_uri,
)
from skill_conformance.adapters.thirdparty.listing import deferred_capabilities
from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    ToolsChild,
    Unsupported,
)

__all__ = ["UNSUPPORTED", "PydanticAiSkillsImplementation", "PydanticAiSkillsSystem"]

UNSUPPORTED: Mapping[Ability, str] = {
    Ability.MCP: "a skill's frontmatter declares no MCP server it would start",
    Ability.MCP_HTTP: "a skill's frontmatter declares no MCP server it would connect to",
    Ability.LIFECYCLE: "SkillsCapability has no async context to enter: it starts nothing",
    Ability.CHILD_SESSION: "no agent factory: the host attaches SkillsCapability to an agent",
    Ability.STANDALONE_AGENT: "no agent factory: the host attaches SkillsCapability to an agent",
    Ability.REMOTE_SKILLS: "remote skills come from Git or S3 registries, not an MCP server",
    Ability.PYTHON_TOOLS: "a skill's `tools:` frontmatter is not read; skills carry no tools",
    Ability.ALLOWED_TOOLS: "harness ignores `allowed-tools` (with a warning): no tool filter",
    Ability.ARGUMENTS: "load_capability takes a capability id only, no arguments",
    Ability.SKILL_URI: "skills are capability ids; there are no skill:// URIs",
    Ability.INLINE_REFERENCES: "references are listed by name and read with read_skill_resource",
    Ability.REGISTRY: "no extension registry",
    Ability.LISTING_SOURCE: "the catalogue shows a skill's name and description only",
    Ability.ERROR_KINDS: "a refused call is a retry prompt with text, no error kind",
    Ability.LENIENT_LOADING: "a name differing from its folder is refused, as the format says, "
    "and YAML is parsed strictly, so an unquoted value holding ': ' refuses the skill",
    Ability.SIZE_LIMITS: "the whole SKILL.md is read and parsed whatever its size: no size limit",
    Ability.LENGTH_LIMITS: "a description over 1024 characters is kept with a warning, as harness "
    "documents (a name over 64 is refused)",
    Ability.PROBLEM_LOCATIONS: "a skipped skill's warning names the file and the field, no line",
}


class PydanticAiSkillsImplementation:
    """``pydantic-ai-skills`` as ``--impl pydantic-ai-skills`` loads it."""

    name = "pydantic-ai-skills"
    cannot_drive: str | None = None

    def __init__(self) -> None:
        self.version = installed_version("pydantic-ai-skills")
        self.unsupported = UNSUPPORTED

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return PydanticAiSkillsSystem(setup)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""


def _toolset(child: ToolsChild) -> FunctionToolset[None]:
    def returning(text: str) -> Callable[[], str]:
        def tool() -> str:
            return text

        tool.__doc__ = f"Return {text!r}."
        return tool

    tools = [Tool(returning(f"{child.label}:{name}"), name=name) for name in child.tools]
    return FunctionToolset(tools, id=child.label)


class PydanticAiSkillsSystem(AsyncSkillSystem):
    """``SkillsCapability`` over one scenario's skills directory (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup) -> None:
        self._setup = setup
        self._log = ProblemLog()
        self._capability: SkillsCapability[None] | None = None
        self._started = False

    async def start(self) -> None:
        """Build the capability, then serve one run: harness reads the skills at a run's start.

        When building it, or that first run, raises (one unreadable skill is enough), the
        capability cannot serve: the host runs its agents without skills, and the error is a
        problem. Later runs are not guarded: what they raise is a crash.
        """
        with self._log.recording():
            try:
                self._capability = SkillsCapability(self._setup.skills_dir)
            except Exception as error:
                self._log.failed("SkillsCapability(directory)", error)
                self._capability = None
        self._started = True
        try:
            await self._run(Script())
        except Exception as error:
            self._log.failed("the first run with SkillsCapability", error)
            self._capability = None

    async def _run(self, script: Script) -> Script:
        assert self._started, "start() was not called"
        toolsets = [_toolset(child) for child in child_tools(self._setup.children)]
        capabilities = [] if self._capability is None else [self._capability]
        agent: Agent[None, str] = Agent(
            script.model(), capabilities=capabilities, toolsets=toolsets
        )
        with self._log.recording():
            await agent.run("Use the skills.")
        return script

    @override
    async def tool_names(self) -> Sequence[str]:
        return (await self._run(Script())).offered or ()

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        script = await self._run(Script((name, arguments)))
        return RunRecord(offered=script.offered or (), result=script.result)

    def _load(self, skill: str) -> Call:
        return ("load_capability", {"id": skill})

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """``load_capability``: its return, then the skill's instructions that follow it."""
        unsupported_uri(skill)
        if arguments is not None:
            raise Unsupported(UNSUPPORTED[Ability.ARGUMENTS])
        script = await self._run(Script(self._load(skill)))
        if script.refused:
            raise refused(script.result)
        message = script.result.get("message", "") if isinstance(script.result, dict) else ""
        return "\n".join([str(message), *script.followed])

    async def list_skills(self) -> Sequence[SkillListing]:
        """The deferred-capability catalogue in the instructions the model receives."""
        return deferred_capabilities((await self._run(Script())).instructions)

    async def read_skill_file(self, skill: str, path: str) -> str:
        """``read_skill_resource`` after loading the skill, as its instructions say to."""
        call = ("read_skill_resource", {"skill_name": skill, "resource_name": path})
        script = await self._run(Script(call, before=[self._load(skill)]))
        if script.refused:
            raise refused(script.result)
        return str(script.result)

    async def rebuild(self) -> None:
        """A new ``SkillsCapability`` over the directory: its docs' way to pick up changes."""
        await self.start()

    @override
    def problems(self) -> Sequence[str]:
        return self._log.lines()

    async def close(self) -> None:
        """Nothing to release: the capability starts no process."""

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
