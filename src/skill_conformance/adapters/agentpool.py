"""The adapter of the real codebase, Leoyzen/agentpool (``--impl agentpool`` / ``wolfharness``).

It builds a real ``AgentPool`` from a manifest naming the scenario's skills directory, enters
it (the pool's start-up path), and asks the objects the pool populated: its extension registry,
its ``skill_capabilities``, its ``skill_resolver`` and its ``_rebuild_skill_capabilities``.
Agent runs use real pydantic-ai agents whose model is a ``FunctionModel`` recording
``info.function_tools``. ``load_skill``/``list_skills`` are the real tools, called with the
context they expect. Results are returned as the real code gave them; only real exceptions are
mapped to :class:`~skill_conformance.port.ErrorKind`.

The real package (``wolfharness`` at HEAD, ``agentpool`` before) is imported lazily, so this
module imports without it; the version-dependent choices are small pure functions.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import importlib.util
import logging
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ErrorKind,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    SkillSystemError,
)

__all__ = [
    "AgentpoolImplementation",
    "AgentpoolSystem",
    "detect_flavour",
    "error_kind_for",
    "has_skills_tools_provider",
    "parse_listing",
    "scope_keywords",
    "unsupported_for",
]

TIMEOUT = 60.0
"""Seconds any one awaited call into the real code may take."""

_AGENT = "test_agent"
_SESSION = "conformance-session"
_CALL_ID = "conformance-call"
FLAVOURS = ("wolfharness", "agentpool")


# -- pure, version-dependent choices -------------------------------------------------------------


def detect_flavour(
    find_spec: Callable[[str], object | None] = importlib.util.find_spec,
) -> str | None:
    """The importable real package: ``wolfharness`` first, then ``agentpool``; else None."""
    for name in FLAVOURS:
        try:
            if find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def package_version(flavour: str | None) -> str:
    """The distribution version of ``flavour`` plus the flavour, e.g. ``1.0.0 (agentpool)``."""
    if flavour is None:
        return "not installed"
    try:
        version = importlib.metadata.version(flavour)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return f"{version} ({flavour})"


def has_skills_tools_provider(flavour: str) -> bool:
    """Whether the host has ``skills_tools_provider``/``skill_provider`` (not at wolfharness)."""
    return flavour != "wolfharness"


def builtin_skill_tools_in_manager(flavour: str) -> bool:
    """Whether ``load_skill``/``list_skills`` live in SkillManagerCap (wolfharness only)."""
    return flavour == "wolfharness"


_SCOPE_KEYWORDS: Mapping[Scope, Mapping[str, str]] = {
    Scope.POOL: {},
    Scope.SESSION: {"session_id": _SESSION},
    Scope.AGENT: {"session_id": _SESSION, "agent_name": _AGENT},
    Scope.TURN: {"session_id": _SESSION, "agent_name": _AGENT, "turn_id": "turn-1"},
}


def scope_keywords(scope: Scope) -> tuple[str, dict[str, str]]:
    """The ``ScopeLevel`` member name and the keywords of the real ``Scope`` for ``scope``.

    The field order of the real ``Scope`` changed between versions, so only keywords are used.
    """
    return scope.name, dict(_SCOPE_KEYWORDS[scope])


_ERROR_KINDS: Mapping[str, ErrorKind] = {
    "SkillNotFoundError": ErrorKind.NOT_FOUND,
    "ReferenceNotFoundError": ErrorKind.NOT_FOUND,
    "SecurityError": ErrorKind.SECURITY,
    "ValidationError": ErrorKind.INVALID_CONFIG,
    "ConfigError": ErrorKind.INVALID_CONFIG,
    "ConfigurationError": ErrorKind.INVALID_CONFIG,
}


def error_kind_for(error: BaseException) -> ErrorKind | None:
    """The port kind of a real exception (by class name along its MRO), or None."""
    for cls in type(error).__mro__:
        kind = _ERROR_KINDS.get(cls.__name__)
        if kind is not None:
            return kind
    return None


def unsupported_for(flavour: str | None) -> dict[Ability, str]:
    """The abilities this adapter cannot provide for ``flavour``, each with its reason."""
    if flavour is None:
        reason = "neither wolfharness nor agentpool is importable"
        return {ability: reason for ability in Ability if ability is not Ability.SYMLINKS}
    return {
        Ability.REMOTE_SKILLS: (
            "adapter unfinished: the suite's MCP child is not yet wired into the real pool"
        ),
        Ability.MCP: "adapter unfinished: skill MCP servers not yet verified against the pool",
        Ability.LIFECYCLE: "adapter unfinished: needs the MCP ability to observe lifecycle",
    }


_ENTRY = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: ?(?P<description>.*)$")
_URI = re.compile(r"^\s+- URI: `(?P<uri>[^`]+)`")


def parse_listing(text: str) -> list[SkillListing]:
    """The entries of the markdown text the real ``list_skills`` returns.

    The text names no source; entries get an empty source, as the real tool gives none.
    """
    entries: list[SkillListing] = []
    for line in text.splitlines():
        entry = _ENTRY.match(line)
        if entry is not None:
            entries.append(
                SkillListing(
                    name=entry["name"], description=entry["description"].strip(), source=""
                )
            )
            continue
        uri = _URI.match(line)
        if uri is not None and entries:
            last = entries[-1]
            entries[-1] = SkillListing(last.name, last.description, last.source, uri["uri"])
    return entries


# -- the implementation --------------------------------------------------------------------------


class AgentpoolImplementation:
    """The real codebase, as ``--impl agentpool`` or ``--impl wolfharness`` loads it."""

    name = "agentpool"

    def __init__(self) -> None:
        self.flavour = detect_flavour()
        self.name = self.flavour or "agentpool"
        self.version = package_version(self.flavour)
        self.unsupported: Mapping[Ability, str] = unsupported_for(self.flavour)

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        flavour = detect_flavour()
        if flavour is None:
            raise RuntimeError("neither wolfharness nor agentpool is importable")
        return AgentpoolSystem(setup, flavour)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        self.lines.append(f"{record.name}: {message}".replace("\n", " "))


class _Script:
    """A model that calls one tool once (if told to), records what it was offered and got."""

    def __init__(self, call: tuple[str, Mapping[str, object]] | None = None) -> None:
        self.call = call
        self.offered: tuple[str, ...] | None = None
        self.result: object = None
        self._called = False

    def _respond(self, messages: list[Any], info: Any) -> tuple[str, Any]:
        if self.offered is None:
            self.offered = tuple(tool.name for tool in info.function_tools)
        if self.call is not None and not self._called:
            self._called = True
            return "call", self.call
        for message in messages:
            for part in getattr(message, "parts", ()):
                if getattr(part, "tool_call_id", None) != _CALL_ID:
                    continue
                kind = getattr(part, "part_kind", "")
                if kind == "tool-return":
                    self.result = part.content
                elif kind == "retry-prompt":
                    self.result = part.model_response()
        return "text", None

    def model(self) -> Any:
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import DeltaToolCall, FunctionModel

        def fn(messages: list[Any], info: Any) -> Any:
            what, call = self._respond(messages, info)
            if what == "call":
                name, arguments = call
                return ModelResponse(
                    parts=[
                        ToolCallPart(tool_name=name, args=dict(arguments), tool_call_id=_CALL_ID)
                    ]
                )
            return ModelResponse(parts=[TextPart("Done.")])

        async def stream(messages: list[Any], info: Any) -> Any:
            import json

            what, call = self._respond(messages, info)
            if what == "call":
                name, arguments = call
                yield {
                    0: DeltaToolCall(
                        name=name, json_args=json.dumps(dict(arguments)), tool_call_id=_CALL_ID
                    )
                }
            else:
                yield "Done."

        return FunctionModel(fn, stream_function=stream)


async def _bounded(awaitable: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return await asyncio.wait_for(awaitable, TIMEOUT)


class AgentpoolSystem:
    """The real codebase opened on one :class:`Setup` (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup, flavour: str) -> None:
        self._setup = setup
        self._flavour = flavour
        self._pool: Any = None
        self._entered: Any = None
        self._capture = _Capture()
        self._loggers = [logging.getLogger(flavour), logging.getLogger(f"{flavour}_toolsets")]
        self._sessions = 0

    def _module(self, suffix: str) -> Any:
        return importlib.import_module(f"{self._flavour}{suffix}")

    def _wrap(self, error: BaseException) -> BaseException:
        kind = error_kind_for(error)
        if kind is None:
            return error
        return SkillSystemError(kind, str(error))

    @property
    def pool(self) -> Any:
        """The real pool, once started."""
        assert self._pool is not None, "start() was not called"
        return self._pool

    def _manager(self) -> Any:
        caps = list(self.pool.skill_capabilities)
        assert caps, "the pool has no skill capability"
        return caps[0]

    async def start(self) -> None:  # noqa: D102
        if self._setup.children:
            raise NotImplementedError("adapter unfinished: non-skill children are not wired in")
        for logger in self._loggers:
            logger.addHandler(self._capture)
        pkg = self._module("")
        try:
            manifest = pkg.AgentsManifest.model_validate(
                {
                    "skills": {"paths": [str(self._setup.skills_dir)], "include_default": False},
                    "agents": {
                        _AGENT: {
                            "type": "native",
                            "model": "test",
                            "system_prompt": "You are a test agent.",
                        }
                    },
                }
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                pool = pkg.AgentPool(manifest)
            await _bounded(pool.__aenter__())
        except Exception as error:
            wrapped = self._wrap(error)
            if wrapped is error:
                raise
            raise wrapped from error
        self._pool = pool

    async def _run(self, agent: Any, script: _Script) -> RunRecord:
        try:
            await _bounded(agent.run("Use the skills.", model=script.model()))
        except Exception as error:
            wrapped = self._wrap(error)
            if wrapped is error:
                raise
            raise wrapped from error
        return RunRecord(offered=script.offered or (), result=script.result)

    def _manager_agent(self) -> Any:
        from pydantic_ai import Agent

        return Agent(_Script().model(), capabilities=[self._manager()])

    async def tool_names(self) -> Sequence[str]:  # noqa: D102
        return (await self._run(self._manager_agent(), _Script())).offered

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:  # noqa: D102
        return await self._run(self._manager_agent(), _Script((name, arguments)))

    def _tool_context(self) -> Any:
        node = SimpleNamespace(name=_AGENT)
        if builtin_skill_tools_in_manager(self._flavour):
            context_cls = self._module(".agents.context").AgentContext
            return SimpleNamespace(deps=context_cls(node=node, pool=self.pool))
        return SimpleNamespace(pool=self.pool, node=node)

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:  # noqa: D102
        ctx = self._tool_context()
        try:
            if builtin_skill_tools_in_manager(self._flavour):
                result = await _bounded(self._manager()._load_skill_impl(ctx, skill, arguments))
            else:
                tools = self._module("_toolsets.builtin.skills")
                result = await _bounded(tools.load_skill(ctx, skill, arguments))
        except Exception as error:
            wrapped = self._wrap(error)
            if wrapped is error:
                raise
            raise wrapped from error
        return str(result)

    async def list_skills(self) -> Sequence[SkillListing]:  # noqa: D102
        ctx = self._tool_context()
        if builtin_skill_tools_in_manager(self._flavour):
            result = await _bounded(self._manager()._list_skills_impl(ctx))
        else:
            tools = self._module("_toolsets.builtin.skills")
            result = await _bounded(tools.list_skills(ctx))
        return parse_listing(str(result))

    async def resolve_uri(self, uri: str) -> ResolvedSkill:  # noqa: D102
        resolver = self.pool.skill_resolver
        if resolver is None:
            raise RuntimeError("the pool has no skill_resolver")
        try:
            skill = await _bounded(resolver.resolve(uri))
        except Exception as error:
            wrapped = self._wrap(error)
            if wrapped is error:
                raise
            raise wrapped from error
        return ResolvedSkill(name=str(skill.name), instructions=str(skill.instructions or ""))

    def _real_scope(self, scope: Scope) -> Any:
        registry = self._module(".capabilities.extension_registry")
        level, keywords = scope_keywords(scope)
        return registry.Scope(level=getattr(registry.ScopeLevel, level), **keywords)

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:  # noqa: D102
        registry = self.pool._extension_registry
        names: list[str] = []
        for resource in registry.get_skill_resources(self._real_scope(scope)):
            names.extend(str(e.name) for e in await _bounded(resource.list_skills()))
        return names

    async def rebuild(self) -> None:  # noqa: D102
        try:
            await _bounded(self.pool.skills.refresh())
            await _bounded(self.pool._rebuild_skill_capabilities())
        except Exception as error:
            wrapped = self._wrap(error)
            if wrapped is error:
                raise
            raise wrapped from error

    async def enter(self) -> None:  # noqa: D102
        manager = self._manager()
        await _bounded(manager.__aenter__())
        self._entered = manager

    async def exit(self) -> None:  # noqa: D102
        manager, self._entered = self._entered, None
        if manager is not None:
            await _bounded(manager.__aexit__(None, None, None))

    async def _path_agent(self, path: AgentPath) -> tuple[Any, dict[str, Any], Any]:
        """An agent created through ``path``, the run keywords, and a cleanup coroutine fn."""
        if path is AgentPath.CHILD_SESSION:
            self._sessions += 1
            session_id = f"{_SESSION}-child-{self._sessions}"
            agent = await _bounded(
                self.pool.session_pool.sessions.get_or_create_session_agent(session_id, _AGENT)
            )
            return agent, {"session_id": session_id}, None
        agent_cls = self._module(".agents.native_agent").Agent
        inject = self._module(".host.factory")._inject_pool_providers
        config = self.pool.manifest.agents[_AGENT]
        if config.name is None:
            config = config.model_copy(update={"name": _AGENT})
        agent = agent_cls.from_config(config, agent_pool=self.pool)
        await _bounded(agent.__aenter__())
        inject(agent, self.pool.get_context(), self.pool, include_aggregating=True)
        return agent, {"session_id": f"{_SESSION}-standalone", "_skip_pool": True}, agent

    async def _path_run(self, path: AgentPath, script: _Script) -> RunRecord:
        agent, keywords, cleanup = await self._path_agent(path)
        try:
            await agent.set_model(script.model())

            async def drive() -> None:
                async for _event in agent.run_stream("hello", **keywords):
                    pass

            await _bounded(drive())
        finally:
            if cleanup is not None:
                await _bounded(cleanup.__aexit__(None, None, None))
        return RunRecord(offered=script.offered or (), result=script.result)

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:  # noqa: D102
        return (await self._path_run(path, _Script())).offered

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:  # noqa: D102
        record = await self._path_run(path, _Script(("load_skill", {"skill_name": skill})))
        return str(record.result)

    def problems(self) -> Sequence[str]:  # noqa: D102
        return list(self._capture.lines)

    async def close(self) -> None:  # noqa: D102
        try:
            await self.exit()
        finally:
            try:
                if self._pool is not None:
                    await _bounded(self._pool.__aexit__(None, None, None))
            finally:
                for logger in self._loggers:
                    logger.removeHandler(self._capture)
