"""The port's operations on the real pool of one scenario (see :class:`AsyncSkillSystem`)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import warnings
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from typing_extensions import override

from skill_conformance.adapters.agentpool.flavour import Offers
from skill_conformance.adapters.agentpool.pool import (
    AGENT,
    SESSION,
    LogCapture,
    child_module_source,
    manifest,
)
from skill_conformance.adapters.agentpool.translate import (
    error_kind_for,
    parse_listing,
    scope_keywords,
    skill_file_uri,
)
from skill_conformance.adapters.import_path import ImportPath
from skill_conformance.adapters.scripted_model import Script
from skill_conformance.port import (
    AgentPath,
    AsyncSkillSystem,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    SkillSystemError,
    ToolsChild,
    Unsupported,
)

TIMEOUT = 60.0
"""Seconds any one awaited call into the real code may take."""

_PROMPT = "Use the skills."
_T = TypeVar("_T")


class AgentpoolSystem(AsyncSkillSystem):
    """The real codebase opened on one :class:`Setup` (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup, offers: Offers) -> None:
        self._setup = setup
        self._offers = offers
        flavour = self._flavour = offers.flavour
        self._pool: Any = None
        self._entered: Any = None
        self._capture = LogCapture()
        self._loggers = [logging.getLogger(flavour), logging.getLogger(f"{flavour}_toolsets")]
        self._paths = 0
        self._modules_dir: Path | None = None
        self._child_modules: list[str] = []
        self._import_path = ImportPath(())

    # -- plumbing ------------------------------------------------------------------------------

    def _module(self, suffix: str) -> Any:
        return importlib.import_module(f"{self._flavour}{suffix}")

    async def _guard(self, work: Awaitable[_T]) -> _T:
        """Run ``work`` bounded, its warnings not raised, its known errors mapped to kinds."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return await asyncio.wait_for(work, TIMEOUT)
            except Exception as error:
                kind = error_kind_for(error)
                if kind is None:
                    raise
                raise SkillSystemError(kind, str(error)) from error

    @property
    def pool(self) -> Any:
        """The real pool, once started."""
        if self._pool is None:
            raise RuntimeError("start() was not called")
        return self._pool

    def _capabilities(self) -> list[Any]:
        """The pool's skill capabilities: one manager, or (before it) one per skill."""
        return list(self.pool.skill_capabilities)

    # -- start ---------------------------------------------------------------------------------

    def _write_child_modules(self) -> list[str]:
        """Write the non-skill children's tool modules; their import paths."""
        children = [c for c in self._setup.children if isinstance(c, ToolsChild)]
        if not children:
            return []
        base = self._setup.workdir or self._setup.skills_dir.parent
        self._modules_dir = base / "agentpool-children"
        self._modules_dir.mkdir(parents=True, exist_ok=True)
        paths: list[str] = []
        for index, child in enumerate(children):
            module = f"skill_conformance_child_{id(self)}_{index}"
            (self._modules_dir / f"{module}.py").write_text(child_module_source(child))
            self._child_modules.append(module)
            paths += [f"{module}:{tool}" for tool in child.tools]
        return paths

    @override
    async def start(self) -> None:
        for logger in self._loggers:
            logger.addHandler(self._capture)
        await self._guard(self._start())

    async def _start(self) -> None:
        package = self._module("")
        tool_paths = self._write_child_modules()
        modules = [self._modules_dir] if self._modules_dir is not None else []
        self._import_path = ImportPath([*self._setup.python_path, *modules])
        self._import_path.add()
        validated = package.AgentsManifest.model_validate(manifest(self._setup, tool_paths))
        pool = package.AgentPool(validated)
        if not self._setup.skills_tools_provider and hasattr(pool, "skills_tools_provider"):
            pool.skills_tools_provider = None
        await pool.__aenter__()
        self._pool = pool

    # -- the skill manager's tools ---------------------------------------------------------------

    def _child_toolset(self) -> Any:
        from pydantic_ai.toolsets import FunctionToolset

        functions: list[Any] = []
        for module_name in self._child_modules:
            module = importlib.import_module(module_name)
            functions += [
                getattr(module, name)
                for name in dir(module)
                if not name.startswith("_") and callable(getattr(module, name))
            ]
        return FunctionToolset(functions)

    def _manager_agent(self) -> Any:
        from pydantic_ai import Agent

        toolsets = [self._child_toolset()] if self._child_modules else []
        return Agent(Script().model(), capabilities=self._capabilities(), toolsets=toolsets)

    async def _run(self, agent: Any, script: Script, **keywords: Any) -> RunRecord:
        await agent.run(_PROMPT, model=script.model(), **keywords)
        return RunRecord(offered=script.offered or (), result=script.result)

    @override
    async def tool_names(self) -> Sequence[str]:
        record = await self._guard(self._run(self._manager_agent(), Script()))
        return record.offered

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        return await self._guard(self._run(self._manager_agent(), Script((name, arguments))))

    # -- load_skill / list_skills ----------------------------------------------------------------

    def _agent_context(self) -> Any:
        context = self._module(".agents.context").AgentContext
        return context(node=SimpleNamespace(name=AGENT), pool=self.pool)

    async def _skill_tool(self, tool: str, arguments: Mapping[str, object]) -> object:
        """Call the real ``load_skill``/``list_skills`` where the installed code offers them."""
        if self._offers.toolset_functions:
            function = getattr(self._module("_toolsets.builtin.skills"), tool)
            return await function(self._agent_context(), **arguments)
        # The tools are the skill manager's own; run them as an agent would.
        from pydantic_ai import Agent

        agent = Agent(Script().model(), capabilities=self._capabilities(), deps_type=object)
        script = Script((tool, arguments))
        await agent.run(_PROMPT, model=script.model(), deps=self._agent_context())
        return script.result

    @override
    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        call: dict[str, object] = {"skill_name": skill}
        if arguments is not None:
            call["arguments"] = arguments
        return str(await self._guard(self._skill_tool("load_skill", call)))

    @override
    async def list_skills(self) -> Sequence[SkillListing]:
        return parse_listing(str(await self._guard(self._skill_tool("list_skills", {}))))

    @override
    async def read_skill_file(self, skill: str, path: str) -> str:
        return await self.load_skill(skill_file_uri(skill, path))

    # -- registry, rebuild, lifecycle ------------------------------------------------------------

    @override
    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        return await self._guard(self._resolve_uri(uri))

    async def _resolve_uri(self, uri: str) -> ResolvedSkill:
        resolver = self.pool.skill_resolver
        if resolver is None:
            raise RuntimeError("the pool has no skill_resolver")
        skill = await resolver.resolve(uri)
        return ResolvedSkill(name=str(skill.name), instructions=str(skill.instructions or ""))

    @override
    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        return await self._guard(self._registry_skill_names(scope))

    async def _registry_skill_names(self, scope: Scope) -> list[str]:
        registry_module = self._module(".capabilities.extension_registry")
        level, keywords = scope_keywords(scope)
        real_scope = registry_module.Scope(
            level=getattr(registry_module.ScopeLevel, level), **keywords
        )
        names: list[str] = []
        for resource in self.pool._extension_registry.get_skill_resources(real_scope):
            names.extend(str(entry.name) for entry in await resource.list_skills())
        return names

    @override
    async def rebuild(self) -> None:
        await self._guard(self._rebuild())

    async def _rebuild(self) -> None:
        await self.pool.skills.refresh()
        await self.pool._rebuild_skill_capabilities()

    def _manager(self) -> Any:
        """The pool's skill manager: the one skill capability with a lifecycle of its own."""
        managers = [cap for cap in self._capabilities() if hasattr(cap, "__aenter__")]
        if len(managers) != 1:
            kinds = sorted({type(cap).__name__ for cap in self._capabilities()}) or ["none"]
            raise Unsupported(
                f"{self._flavour}'s pool has no skill manager to enter (its skill capabilities: "
                f"{', '.join(kinds)})"
            )
        return managers[0]

    @override
    async def enter(self) -> None:
        manager = self._manager()
        await self._guard(manager.__aenter__())
        self._entered = manager

    @override
    async def exit(self) -> None:
        manager, self._entered = self._entered, None
        if manager is not None:
            await self._guard(manager.__aexit__(None, None, None))

    # -- other agent creation paths ----------------------------------------------------------------

    async def _child_session_agent(self) -> tuple[Any, str]:
        """A child session's agent, created by the session controller and the factory."""
        sessions = self.pool.session_pool.sessions
        self._paths += 1
        parent, child = f"{SESSION}-{self._paths}", f"{SESSION}-{self._paths}-child"
        await sessions.get_or_create_session(parent, AGENT)
        await sessions.get_or_create_session_agent(parent, AGENT)
        await sessions.get_or_create_session(child, AGENT, parent_session_id=parent)
        return await sessions.get_or_create_session_agent(child, AGENT), child

    async def _standalone_agent(self) -> Any:
        """An agent built from its config, given the pool's providers by the factory."""
        agent_class = self._module(".agents.native_agent").Agent
        name = self._offers.pool_providers
        if name is None:
            raise Unsupported(
                f"{self._flavour}'s factory cannot give an agent the pool's providers"
            )
        inject = getattr(self._module(".host.factory"), name)
        config = self.pool.manifest.agents[AGENT]
        if config.name is None:
            config = config.model_copy(update={"name": AGENT})
        agent = agent_class.from_config(config, agent_pool=self.pool)
        await agent.__aenter__()
        # Its parameters changed over time: (agent, host_context, [pool,] include_aggregating).
        extra = {"pool": self.pool} if "pool" in inspect.signature(inject).parameters else {}
        inject(agent, self.pool.get_context(), include_aggregating=True, **extra)
        return agent

    async def _path_run(self, path: AgentPath, script: Script) -> RunRecord:
        owned: Any = None
        if path is AgentPath.CHILD_SESSION:
            agent, session_id = await self._child_session_agent()
            keywords: dict[str, Any] = {"session_id": session_id}
        else:
            agent = owned = await self._standalone_agent()
            keywords = {"session_id": f"{SESSION}-standalone-{self._paths}", "_skip_pool": True}
        try:
            await agent.set_model(script.model())
            async for _event in agent.run_stream(_PROMPT, **keywords):
                pass
        finally:
            if owned is not None:
                await owned.__aexit__(None, None, None)
        return RunRecord(offered=script.offered or (), result=script.result)

    @override
    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        return (await self._guard(self._path_run(path, Script()))).offered

    @override
    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        script = Script(("load_skill", {"skill_name": skill}))
        return str((await self._guard(self._path_run(path, script))).result)

    # -- problems, close ---------------------------------------------------------------------------

    @override
    def problems(self) -> Sequence[str]:
        return list(self._capture.lines)

    @override
    async def close(self) -> None:
        # The pool's own shutdown, entered manager or not (see the port's close).
        try:
            if self._pool is not None:
                await self._guard(self._pool.__aexit__(None, None, None))
        finally:
            for logger in self._loggers:
                logger.removeHandler(self._capture)
            self._import_path.remove()
