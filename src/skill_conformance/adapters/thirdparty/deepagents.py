"""The adapter of deepagents' skills middleware (``--impl deepagents``).

``create_deep_agent(skills=["/"], backend=FilesystemBackend(root_dir=skills_dir))`` adds the
``SkillsMiddleware``: it lists every skill (name, description, the path of its ``SKILL.md``) in
the system prompt, and the model reads a skill, or any of its files, with the filesystem
middleware's ``read_file`` tool, which the backend confines to its root directory. Every
operation here is a real ``ainvoke`` of that agent graph, whose chat model is scripted
(:class:`ScriptedChatModel`): it records the tools bound to it and makes the calls it is told
to. Problems are the load warnings the middleware puts in the system prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from deepagents import create_deep_agent
from deepagents.backends.filesystem import FilesystemBackend
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict
from typing_extensions import override

from skill_conformance.adapters.thirdparty.common import (
    ProblemLog,
    child_tools,
    installed_version,
    refused,
    run_ended,
    unsupported_uri,
)
from skill_conformance.adapters.thirdparty.listing import (
    markdown_skill_list,
    markdown_skill_paths,
    skill_load_warnings,
)
from skill_conformance.adapters.thirdparty.script import ToolScript
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

__all__ = ["UNSUPPORTED", "DeepagentsImplementation", "DeepagentsSystem", "ScriptedChatModel"]

UNSUPPORTED: Mapping[Ability, str] = {
    Ability.MCP: "a skill's frontmatter declares no MCP server deepagents would start",
    Ability.MCP_HTTP: "a skill's frontmatter declares no MCP server deepagents would connect to",
    Ability.LIFECYCLE: "the skills middleware has no async context to enter: it starts nothing",
    Ability.CHILD_SESSION: "no agent factory of child sessions (subagents are tools of one graph)",
    Ability.STANDALONE_AGENT: "no agent factory: the host calls create_deep_agent(skills=...)",
    Ability.REMOTE_SKILLS: "skills are read from the backend's files, not from an MCP server",
    Ability.PYTHON_TOOLS: "a skill's `tools:` frontmatter is not read (metadata.include_tools "
    "names tools the host passes in, which the suite's skills do not use)",
    Ability.ALLOWED_TOOLS: "`allowed-tools` is shown to the model, but filters no tool",
    Ability.ARGUMENTS: "a skill is read with read_file: no arguments",
    Ability.SKILL_URI: "skills are files of the backend; there are no skill:// URIs",
    Ability.INLINE_REFERENCES: "a skill's other files are read one by one with read_file",
    Ability.REGISTRY: "no extension registry",
    Ability.LISTING_SOURCE: "the system prompt lists a skill's name, description and path only",
    Ability.ERROR_KINDS: "a refused read is an error ToolMessage with text, no error kind",
    Ability.LENIENT_LOADING: "yaml.safe_load refuses an unquoted value holding ': ' (a name "
    "differing from its folder does load, with a warning)",
    Ability.SIZE_LIMITS: "a SKILL.md is skipped only over 10 MiB (MAX_SKILL_FILE_SIZE); no 1 MiB "
    "or 64 KiB limit",
    Ability.DUPLICATE_KEYS: "yaml.safe_load keeps the last of a key written twice",
    Ability.LENGTH_LIMITS: "a name over 64 characters loads with a warning, and a description "
    "over 1024 is cut to 1024 with a warning",
    Ability.SKILL_SCOPED_READER: "read_file is confined to the backend's root, the skills "
    "directory: it serves every skill's files alike",
    Ability.NAME_CHARACTERS: "a name breaking the format's characters loads with a warning, as the "
    "client guide's lenient validation allows",
    Ability.SKIPS_HIDDEN_FOLDERS: "a folder whose name starts with a dot is scanned like any "
    "other (.b/SKILL.md lists skill b), which the client guide allows",
    Ability.LINKED_SKILL_FOLDERS: "the backend's virtual file system, rooted at the skills "
    "directory, lists no entry that resolves outside it (FilesystemBackend(virtual_mode=True)), "
    "so a skill folder linked from elsewhere is not seen",
}

_PROMPT = "Use the skills."
_READ_LIMIT = 1000
"""The ``limit`` the middleware's own system prompt tells the model to pass to ``read_file``."""


def _text(content: str | list[Any]) -> str:
    """A message's text: its string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(
        str(block.get("text", "")) if isinstance(block, dict) else str(block) for block in content
    )


class ScriptedChatModel(BaseChatModel):
    """A LangChain chat model answering from a :class:`ToolScript`: no provider, no network."""

    script: ToolScript

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return "skill-conformance-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """Bind the tools as a provider would receive them (OpenAI's schema)."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        for message in messages:
            if isinstance(message, ToolMessage):
                self.script.returned(
                    message.tool_call_id, message.content, refused=message.status == "error"
                )
        names = [str(tool["function"]["name"]) for tool in kwargs.get("tools", [])]
        system = next((_text(m.content) for m in messages if isinstance(m, SystemMessage)), None)
        planned = self.script.request(names, system)
        if planned is None:
            reply = AIMessage(content="Done.")
        else:
            call = {"name": planned.name, "args": dict(planned.arguments), "id": planned.id}
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])


class DeepagentsImplementation:
    """deepagents' skills middleware as ``--impl deepagents`` loads it."""

    name = "deepagents"
    cannot_drive: str | None = None

    def __init__(self) -> None:
        self.version = installed_version("deepagents")
        self.unsupported = UNSUPPORTED

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return DeepagentsSystem(setup)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""


def _returning(name: str, text: str) -> StructuredTool:
    def tool() -> str:
        return text

    return StructuredTool.from_function(tool, name=name, description=f"Return {text!r}.")


def _read(path: str) -> tuple[str, Mapping[str, object]]:
    return "read_file", {"file_path": path, "limit": _READ_LIMIT}


_VIRTUAL_PATH = re.compile(r"'(/[^'\\]*)'")
"""A quoted path in the backend's virtual namespace, rooted at the skills directory."""


class DeepagentsSystem(AsyncSkillSystem):
    """A deep agent over one scenario's skills directory (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup) -> None:
        self._setup = setup
        self._log = ProblemLog(loggers=("deepagents",))
        self._skills = True
        self._backend: FilesystemBackend | None = None

    async def start(self) -> None:
        """The backend rooted at the skills directory, as the middleware's docs show; one run.

        When that first run raises (reading one skill is enough), the middleware cannot serve:
        the host builds its agents without skills, and the error is a problem. Later runs are
        not guarded: what they raise is a crash.
        """
        self._backend = FilesystemBackend(root_dir=self._setup.skills_dir, virtual_mode=True)
        try:
            await self._run(ToolScript())
        except Exception as error:
            self._log.failed("the first run with the skills middleware", error)
            self._skills = False

    async def _run(self, script: ToolScript) -> ToolScript:
        assert self._backend is not None, "start() was not called"
        tools: list[Callable[..., Any] | StructuredTool] = [
            _returning(name, f"{child.label}:{name}")
            for child in child_tools(self._setup.children)
            for name in child.tools
        ]
        agent = create_deep_agent(
            model=ScriptedChatModel(script=script),
            tools=tools,
            skills=["/"] if self._skills else None,
            backend=self._backend,
        )
        with self._log.recording():
            await agent.ainvoke({"messages": [{"role": "user", "content": _PROMPT}]})
        for line in skill_load_warnings(script.prompt):
            self._log.add(line)
        return script

    @override
    async def tool_names(self) -> Sequence[str]:
        return (await self._run(ToolScript())).offered or ()

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        script = await self._run(ToolScript((name, arguments)))
        return RunRecord(offered=script.offered or (), result=script.result)

    async def _read_file(self, path: str) -> str:
        """One run whose model calls ``read_file``; a refusal that ends the run is ``run-ended``."""
        try:
            script = await self._run(ToolScript(_read(path)))
        except Exception as error:  # the backend's ValueError on a link out of its root, say
            raise run_ended(error) from error
        if script.refused:
            raise refused(script.result)
        return str(script.result)

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """``read_file`` on the path the prompt lists for the skill, as it says to.

        A name the prompt does not list is read where a skill of that name would be.
        """
        unsupported_uri(skill)
        if arguments is not None:
            raise Unsupported(UNSUPPORTED[Ability.ARGUMENTS])
        paths = markdown_skill_paths((await self._run(ToolScript())).prompt)
        return await self._read_file(paths.get(skill, f"/{skill}/SKILL.md"))

    async def list_skills(self) -> Sequence[SkillListing]:
        """The skills the middleware lists in the system prompt."""
        return markdown_skill_list((await self._run(ToolScript())).prompt)

    async def read_skill_file(self, skill: str, path: str) -> str:
        """``read_file`` on the path inside the skill's directory (absolute paths as given)."""
        return await self._read_file(path if path.startswith("/") else f"/{skill}/{path}")

    async def rebuild(self) -> None:
        """A new agent: the middleware reads the skills again at the start of each thread."""
        await self._run(ToolScript())

    @override
    def problems(self) -> Sequence[str]:
        """The load warnings, with the backend's paths (its root is ``/``) as the host's."""
        root = self._setup.skills_dir
        return [
            _VIRTUAL_PATH.sub(lambda m: f"'{root / m.group(1).lstrip('/')}'", line)
            for line in self._log.lines()
        ]

    async def close(self) -> None:
        """Nothing to release: the agent starts no process."""

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
