"""The adapter of fast-agent's skills (``--impl fast-agent``), on the ``mcp`` SDK 2.x.

fast-agent activates skills by file read, as the Agent Skills client guide describes: the system
prompt lists each skill (``<available_skills>``: name, description, the absolute ``<location>`` of
its ``SKILL.md`` and its ``<directory>``), and names the tool the model reads them with. With
skills configured, fast-agent gives its agent a shell runtime, whose general file tool
(``read_text_file``) is that reader; there is no ``load_skill`` or ``list_skills`` tool. So here
``list_skills`` is the catalogue the model receives, ``load_skill`` is the model reading the
``<location>`` the catalogue gives with the tool the prompt names, and ``read_skill_file`` reads a
path in the skill's ``<directory>`` with the same tool.

Every operation is a real agent turn of a ``FastAgent`` app whose model is fast-agent's own
``passthrough`` model, which calls the tool a message names (``***CALL_TOOL name {json}``); the
adapter only looks at what that model receives: the tools, the system prompt, the tool result.
The app's home (its sessions and log) is in the scenario's scratch directory; problems are the
warnings of the log fast-agent writes there, where a host's operator reads them.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from fast_agent import FastAgent
from fast_agent.core.logging.transport import AsyncEventBus
from typing_extensions import override

from skill_conformance.adapters.thirdparty.common import (
    ProblemLog,
    child_tools,
    installed_version,
    refused,
    unsupported_uri,
)
from skill_conformance.adapters.thirdparty.listing import xml_skill_list
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

__all__ = ["UNSUPPORTED", "FastAgentImplementation", "FastAgentSystem"]

UNSUPPORTED: Mapping[Ability, str] = {
    Ability.MCP: "a skill's frontmatter declares no MCP server fast-agent would start "
    "(MCP servers are the agent's, from its configuration)",
    Ability.MCP_HTTP: "a skill's frontmatter declares no MCP server fast-agent would connect to",
    Ability.LIFECYCLE: "skills start nothing: there is no skill manager to enter",
    Ability.CHILD_SESSION: "no agent factory of child sessions: agents are declared on the app",
    Ability.STANDALONE_AGENT: "no agent factory: agents are declared on the app",
    Ability.REMOTE_SKILLS: "remote skills come from marketplaces and registries, not an MCP "
    "server's resources",
    Ability.PYTHON_TOOLS: "a skill's `tools:` frontmatter is not read; function tools are the "
    "agent's",
    Ability.ALLOWED_TOOLS: "`allowed-tools` is parsed but filters no tool",
    Ability.ARGUMENTS: "a skill is read with a file tool: no arguments",
    Ability.SKILL_URI: "skills are files at the catalogue's <location>; there are no skill:// URIs",
    Ability.INLINE_REFERENCES: "a skill's other files are read one by one with the file tool",
    Ability.REGISTRY: "no extension registry",
    Ability.LISTING_SOURCE: "the catalogue lists a skill's name, description and paths only",
    Ability.ERROR_KINDS: "a refused read is an error tool result with text, no error kind",
    Ability.LENIENT_LOADING: "PyYAML (python-frontmatter) refuses an unquoted value holding ': '",
    Ability.SIZE_LIMITS: "the whole SKILL.md is read and parsed whatever its size: no size limit",
    Ability.DUPLICATE_KEYS: "PyYAML keeps the last of a key written twice",
    Ability.LENGTH_LIMITS: "names and descriptions are kept whatever their length",
    Ability.NAME_CHARACTERS: "a name is kept as written, whatever its characters (the client "
    "guide's lenient validation)",
    Ability.SKIPS_HIDDEN_FOLDERS: "every folder holding a SKILL.md is a skill, hidden or not",
    Ability.PROBLEM_LOCATIONS: "a skipped skill is logged with PyYAML's own words: a line for "
    "most errors, a character position for some",
    Ability.CONTAINED_READER: "the catalogue has the model read skills with read_text_file, the "
    "shell runtime's file tool, whose scope is the whole host",
    Ability.SKILL_SCOPED_READER: "the catalogue has the model read skills with read_text_file, "
    "whose scope is the whole host",
}

_PROMPT = "Use the skills."
_CONFIG = "session_history: false\nlogger:\n  type: file\n  batch_size: 1\n"
"""The app's configuration: no session files; each log event written as it comes."""
_LOG_SETTLES = 0.2
"""Seconds given to fast-agent's log task, which writes the events of start-up after it."""
_INSTRUCTION = "Use the skills.\n\n{{agentSkills}}"
"""The agent's instruction: fast-agent puts the catalogue where ``{{agentSkills}}`` stands."""
_CALL = "***CALL_TOOL"
"""How a message asks the passthrough model to call a tool (then its name and JSON arguments)."""
_READER = re.compile(r"using the '(?P<tool>[^']+)' tool")
"""Where the catalogue's preamble names the tool the model reads skills with."""
_XML_PATHS = re.compile(
    r"<skill>\s*<name>(?P<name>.*?)</name>.*?<location>(?P<location>.*?)</location>\s*"
    r"<directory>(?P<directory>.*?)</directory>",
    re.DOTALL,
)


class _Turn:
    """What the passthrough model received in one turn: tools, system prompt, tool result."""

    def __init__(self) -> None:
        self.offered: tuple[str, ...] | None = None
        self.prompt: str | None = None
        self.result: str | None = None
        self.refused = False

    def saw(self, messages: Sequence[Any], params: Any, tools: Sequence[Any] | None) -> None:
        if self.offered is None:
            self.offered = tuple(tool.name for tool in tools or ())
            self.prompt = getattr(params, "system_prompt", None)
        results = getattr(messages[-1], "tool_results", None) if messages else None
        for result in (results or {}).values():
            self.result = "".join(getattr(part, "text", "") for part in result.content)
            self.refused = bool(result.is_error)


class FastAgentImplementation:
    """fast-agent as ``--impl fast-agent`` loads it."""

    name = "fast-agent"
    cannot_drive: str | None = None

    def __init__(self) -> None:
        self.version = installed_version("fast-agent-mcp")
        self.unsupported = UNSUPPORTED

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return FastAgentSystem(setup)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""


def _returning(name: str, text: str) -> Callable[[], str]:
    def tool() -> str:
        return text

    tool.__name__ = name
    tool.__doc__ = f"Return {text!r}."
    return tool


class FastAgentSystem(AsyncSkillSystem):
    """A ``FastAgent`` app over one scenario's skills directory (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup) -> None:
        self._setup = setup
        self._log = ProblemLog()
        self._stack: AsyncExitStack | None = None
        self._agent: Any = None
        self._turn = _Turn()
        self._home = Path()

    async def start(self) -> None:
        """The app, as fast-agent's docs declare one, entered: it reads the skills now."""
        workdir = self._setup.workdir or self._setup.skills_dir.parent
        home = self._home = workdir / "fast-agent-home"
        config = workdir / "fastagent.config.yaml"
        config.write_text(_CONFIG)
        tools = [
            _returning(name, f"{child.label}:{name}")
            for child in child_tools(self._setup.children)
            for name in child.tools
        ]
        # fast-agent's log goes through one event bus per process, whose listeners (the log file
        # of the first app's home) outlive an app. A host runs one app per process; the suite
        # runs one per scenario, so each starts with a fresh bus, as fast-agent's tests do.
        AsyncEventBus.reset()
        fast = FastAgent(
            "skill-conformance",
            config_path=str(config),
            parse_cli_args=False,
            quiet=True,
            home=home,
            skills_directory=[self._setup.skills_dir],
        )

        @fast.agent(  # type: ignore[untyped-decorator, unused-ignore]
            name="agent", instruction=_INSTRUCTION, model="passthrough", function_tools=tools
        )
        async def agent() -> None:
            """The one agent of the app."""

        self._stack = AsyncExitStack()
        with self._log.recording():
            app = await self._stack.enter_async_context(fast.run())
        self._agent = app.agent
        llm = self._agent.llm
        inner = llm._apply_prompt_provider_specific

        async def observed(
            messages: list[Any],
            request_params: Any = None,
            tools: list[Any] | None = None,
            is_template: bool = False,
        ) -> Any:
            self._turn.saw(messages, request_params, tools)
            return await inner(messages, request_params, tools, is_template)

        llm._apply_prompt_provider_specific = observed
        await asyncio.sleep(_LOG_SETTLES)

    async def _run(self, message: str = _PROMPT) -> _Turn:
        assert self._agent is not None, "start() was not called"
        self._turn = _Turn()
        with self._log.recording():
            await self._agent.send(message)
        return self._turn

    async def _call(self, name: str, arguments: Mapping[str, object]) -> _Turn:
        return await self._run(f"{_CALL} {name} {json.dumps(dict(arguments))}")

    @override
    async def tool_names(self) -> Sequence[str]:
        return (await self._run()).offered or ()

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        turn = await self._call(name, arguments)
        return RunRecord(offered=turn.offered or (), result=turn.result)

    async def _read(self, path: str) -> str:
        """``path`` read with the tool the catalogue tells the model to read skills with."""
        prompt = (await self._run()).prompt or ""
        reader = _READER.search(prompt)
        turn = await self._call(reader["tool"] if reader else "read_text_file", {"path": path})
        if turn.refused:
            raise refused(turn.result)
        return turn.result or ""

    async def _paths(self) -> dict[str, tuple[str, str]]:
        prompt = (await self._run()).prompt or ""
        return {m["name"]: (m["location"], m["directory"]) for m in _XML_PATHS.finditer(prompt)}

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """The skill's ``<location>`` read, as the catalogue says to.

        A name the catalogue does not list is read where a skill of that name would be.
        """
        unsupported_uri(skill)
        if arguments is not None:
            raise Unsupported(UNSUPPORTED[Ability.ARGUMENTS])
        default = str(self._setup.skills_dir / skill / "SKILL.md")
        location, _ = (await self._paths()).get(skill, (default, ""))
        return await self._read(location)

    async def list_skills(self) -> Sequence[SkillListing]:
        """The skills the catalogue in the system prompt lists."""
        return xml_skill_list((await self._run()).prompt)

    async def read_skill_file(self, skill: str, path: str) -> str:
        """``path`` in the skill's ``<directory>`` read with the file tool (absolute as given)."""
        if Path(path).is_absolute():
            return await self._read(path)
        default = str(self._setup.skills_dir / skill)
        _, directory = (await self._paths()).get(skill, ("", default))
        return await self._read(f"{directory}/{path}")

    async def rebuild(self) -> None:
        """A new app: fast-agent reads the skills when its app starts."""
        await self.close()
        await self.start()

    @override
    def problems(self) -> Sequence[str]:
        """The warnings and errors of the app's log (its home's ``fast-agent-log.jsonl``)."""
        for line in self._home_log().splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if entry.get("level") in ("WARNING", "ERROR"):
                data = entry.get("data") or {}
                details = data.values() if isinstance(data, dict) else [data]
                self._log.add(" ".join([str(entry.get("message", "")), *map(str, details)]))
        return self._log.lines()

    def _home_log(self) -> str:
        try:
            return (self._home / "fast-agent-log.jsonl").read_text(errors="replace")
        except OSError:
            return ""

    async def close(self) -> None:
        """Leave the app: its shell runtime and the processes it started stop."""
        if self._stack is not None:
            stack, self._stack = self._stack, None
            with self._log.recording():
                await stack.aclose()

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
