"""The adapter of the real codebase, Leoyzen/agentpool (``--impl agentpool`` / ``wolfharness``).

It builds a real ``AgentPool`` from a manifest (the scenario's skills directory, one native
agent whose config tools are the non-skill child's tools, and the non-skill MCP children as the
pool's own MCP servers), enters it (the pool's start-up path), and asks what the pool built:

- the agent's tools: a real pydantic-ai run whose capability is the pool's own
  ``SkillManagerCap``, as the native agent adds it to every run, beside the child's tools;
- ``skill://`` URIs: the pool's ``skill_resolver`` over its extension registry;
- rebuild: ``pool.skills.refresh()`` then the pool's ``_rebuild_skill_capabilities``;
- ``load_skill``/``list_skills``: the real tools, with a real ``AgentContext`` on the pool;
- reading a skill's file: the real ``load_skill`` with ``skill://{skill}/{path}``, the one way
  production serves a skill's file to an agent (its reader has no public entry of its own);
- agent paths: a child session created through the pool's session controller (a parent session,
  then a session naming it as parent, so the factory's child path runs), and a standalone agent
  built from its config and given the pool's providers by the factory's
  ``_inject_pool_providers``; their runs are streamed, as sessions run.

Results are returned as the real code gave them; only real exceptions are mapped to
:class:`~skill_conformance.port.ErrorKind`. Warnings the real code emits are kept as problems,
not raised.

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
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar
from urllib.parse import quote

from skill_conformance.adapters.scripted_model import Script
from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ErrorKind,
    McpChild,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    SkillSystemError,
    ToolsChild,
)

__all__ = [
    "AgentpoolImplementation",
    "AgentpoolSystem",
    "detect_flavour",
    "error_kind_for",
    "not_installed_message",
    "parse_listing",
    "scope_keywords",
    "skill_file_uri",
    "source_revision",
    "unsupported_for",
    "version_label",
]

TIMEOUT = 60.0
"""Seconds any one awaited call into the real code may take."""

_AGENT = "test_agent"
_SESSION = "conformance-session"
_PROMPT = "Use the skills."
FLAVOURS = ("wolfharness", "agentpool")
_T = TypeVar("_T")


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


def source_revision(package_dir: Path | None) -> str | None:
    """The short git commit of the checkout ``package_dir`` lies in, or None."""
    if package_dir is None:
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(package_dir), "rev-parse", "--short=9", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{7,40}", revision) else None


def version_label(version: str, revision: str | None) -> str:
    """The version shown and used to find expectations: ``2.9.5+gb686ede72`` in a checkout."""
    return f"{version}+g{revision}" if revision else version


def package_version(flavour: str) -> str:
    """The installed version of ``flavour``, with the checkout's commit where there is one."""
    try:
        version = importlib.metadata.version(flavour)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    spec = importlib.util.find_spec(flavour)
    origin = spec.origin if spec is not None else None
    return version_label(version, source_revision(Path(origin).parent if origin else None))


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


def unsupported_for(flavour: str) -> dict[Ability, str]:
    """The abilities this adapter cannot provide for ``flavour``, each with its reason.

    None so far: every ability is reached through an entry point production uses.
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"unknown flavour {flavour!r}")
    return {}


def skill_file_uri(skill: str, path: str) -> str:
    """The ``skill://`` URI through which the real ``load_skill`` reads ``path`` of ``skill``.

    The path is percent-encoded (``/`` kept), so that the real parser's one decoding gives it
    back exactly as given.
    """
    return f"skill://{quote(skill, safe='')}/{quote(path, safe='/')}"


def not_installed_message(executable: str) -> str:
    """The one line shown when neither real package can be imported."""
    return (
        f"neither wolfharness nor agentpool is importable by {executable}; run the suite with "
        "the Python of the real codebase's venv, with skill-conformance installed into it"
    )


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


MODULES = (
    "",
    ".agents.context",
    ".agents.native_agent",
    ".capabilities.extension_registry",
    ".host.factory",
)
"""The modules of the real package the adapter uses, imported once when it is loaded."""


def import_modules(flavour: str) -> None:
    """Import the real package up front, so that no scenario's time limit pays for it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for suffix in MODULES:
            importlib.import_module(f"{flavour}{suffix}")
        if not builtin_skill_tools_in_manager(flavour):
            importlib.import_module(f"{flavour}_toolsets.builtin.skills")


def warm_up(implementation: AgentpoolImplementation) -> str | None:
    """Run one throwaway scenario, so that no scenario's time limit pays for first imports.

    The real package imports much of itself lazily, through an import hook that compiles from
    source each time; the first pool start and the first runs pay for it. Returns what went
    wrong, if anything, as one line (the scenarios then show the failure themselves).
    """

    async def scenario(root: Path) -> None:
        (root / "skills").mkdir()
        system = implementation.open(Setup(skills_dir=root / "skills", workdir=root))
        try:
            await system.start()
            await system.tool_names()
            await system.list_skills()
            for path in AgentPath:
                await system.agent_tool_names(path)
        finally:
            await system.close()

    with tempfile.TemporaryDirectory(prefix="skill-conformance-warm-up-") as directory:
        try:
            asyncio.run(scenario(Path(directory)))
        except Exception as error:
            return f"warm-up failed: {type(error).__name__}: {error}".splitlines()[0]
    return None


# -- the implementation --------------------------------------------------------------------------


class AgentpoolImplementation:
    """The real codebase, as ``--impl agentpool`` or ``--impl wolfharness`` loads it."""

    name = "agentpool"

    def __init__(self) -> None:
        flavour = detect_flavour()
        if flavour is None:
            raise RuntimeError(not_installed_message(sys.executable))
        self.flavour = flavour
        self.name = flavour
        self.version = package_version(flavour)
        self.unsupported: Mapping[Ability, str] = unsupported_for(flavour)
        import_modules(flavour)
        self.warm_up_problem = warm_up(self)
        if self.warm_up_problem is not None:
            print(f"skill-conformance: {flavour}: {self.warm_up_problem}", file=sys.stderr)

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return AgentpoolSystem(setup, self.flavour)


class _Capture(logging.Handler):
    """Keeps the warnings and errors the real code logs, one line each: its problems."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        self.lines.append(f"{record.name}: {message}".replace("\n", " "))


def _child_module_source(child: ToolsChild) -> str:
    """A module whose functions are the tools of ``child``, each returning ``label:tool``."""
    functions = [
        f"def {tool}() -> str:\n    return {f'{child.label}:{tool}'!r}\n" for tool in child.tools
    ]
    return '"""Tools of a non-skill child (generated by skill-conformance)."""\n\n' + "\n\n".join(
        functions
    )


class AgentpoolSystem:
    """The real codebase opened on one :class:`Setup` (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup, flavour: str) -> None:
        self._setup = setup
        self._flavour = flavour
        self._pool: Any = None
        self._entered: Any = None
        self._capture = _Capture()
        self._loggers = [logging.getLogger(flavour), logging.getLogger(f"{flavour}_toolsets")]
        self._paths = 0
        self._modules_dir: Path | None = None
        self._child_modules: list[str] = []

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

    def _manager(self) -> Any:
        caps = list(self.pool.skill_capabilities)
        if not caps:
            raise RuntimeError("the pool built no skill capability")
        return caps[0]

    # -- start ---------------------------------------------------------------------------------

    def _write_child_modules(self) -> list[str]:
        """Write the non-skill children's tool modules; their import paths."""
        children = [c for c in self._setup.children if isinstance(c, ToolsChild)]
        if not children:
            return []
        base = self._setup.workdir or self._setup.skills_dir.parent
        self._modules_dir = base / "agentpool-children"
        self._modules_dir.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(self._modules_dir))
        paths: list[str] = []
        for index, child in enumerate(children):
            module = f"skill_conformance_child_{id(self)}_{index}"
            (self._modules_dir / f"{module}.py").write_text(_child_module_source(child))
            self._child_modules.append(module)
            paths += [f"{module}:{tool}" for tool in child.tools]
        importlib.invalidate_caches()
        return paths

    def _manifest(self, tool_paths: list[str]) -> dict[str, Any]:
        servers = [
            {
                "type": "stdio",
                "name": child.label,
                "command": child.server.command,
                "args": list(child.server.args),
                **({"env": dict(child.server.env)} if child.server.env else {}),
            }
            for child in self._setup.children
            if isinstance(child, McpChild)
        ]
        return {
            "skills": {"paths": [str(self._setup.skills_dir)], "include_default": False},
            "mcp_servers": servers,
            "agents": {
                _AGENT: {
                    "type": "native",
                    "model": "test",
                    "system_prompt": "You are a test agent.",
                    "tools": tool_paths,
                }
            },
        }

    async def start(self) -> None:  # noqa: D102
        for logger in self._loggers:
            logger.addHandler(self._capture)
        await self._guard(self._start())

    async def _start(self) -> None:
        package = self._module("")
        manifest = package.AgentsManifest.model_validate(
            self._manifest(self._write_child_modules())
        )
        pool = package.AgentPool(manifest)
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
        return Agent(Script().model(), capabilities=[self._manager()], toolsets=toolsets)

    async def _run(self, agent: Any, script: Script, **keywords: Any) -> RunRecord:
        await agent.run(_PROMPT, model=script.model(), **keywords)
        return RunRecord(offered=script.offered or (), result=script.result)

    async def tool_names(self) -> Sequence[str]:  # noqa: D102
        record = await self._guard(self._run(self._manager_agent(), Script()))
        return record.offered

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:  # noqa: D102
        return await self._guard(self._run(self._manager_agent(), Script((name, arguments))))

    # -- load_skill / list_skills ----------------------------------------------------------------

    def _agent_context(self) -> Any:
        context = self._module(".agents.context").AgentContext
        return context(node=SimpleNamespace(name=_AGENT), pool=self.pool)

    async def _skill_tool(self, tool: str, arguments: Mapping[str, object]) -> object:
        """Call the real ``load_skill``/``list_skills`` as the version at hand offers them."""
        if builtin_skill_tools_in_manager(self._flavour):
            # Since 4.0 the tools are the skill manager's own; run them as an agent would.
            from pydantic_ai import Agent

            agent = Agent(Script().model(), capabilities=[self._manager()], deps_type=object)
            script = Script((tool, arguments))
            await agent.run(_PROMPT, model=script.model(), deps=self._agent_context())
            return script.result
        function = getattr(self._module("_toolsets.builtin.skills"), tool)
        return await function(self._agent_context(), **arguments)

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:  # noqa: D102
        call: dict[str, object] = {"skill_name": skill}
        if arguments is not None:
            call["arguments"] = arguments
        return str(await self._guard(self._skill_tool("load_skill", call)))

    async def list_skills(self) -> Sequence[SkillListing]:  # noqa: D102
        return parse_listing(str(await self._guard(self._skill_tool("list_skills", {}))))

    async def read_skill_file(self, skill: str, path: str) -> str:  # noqa: D102
        return await self.load_skill(skill_file_uri(skill, path))

    # -- registry, rebuild, lifecycle ------------------------------------------------------------

    async def resolve_uri(self, uri: str) -> ResolvedSkill:  # noqa: D102
        return await self._guard(self._resolve_uri(uri))

    async def _resolve_uri(self, uri: str) -> ResolvedSkill:
        resolver = self.pool.skill_resolver
        if resolver is None:
            raise RuntimeError("the pool has no skill_resolver")
        skill = await resolver.resolve(uri)
        return ResolvedSkill(name=str(skill.name), instructions=str(skill.instructions or ""))

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:  # noqa: D102
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

    async def rebuild(self) -> None:  # noqa: D102
        await self._guard(self._rebuild())

    async def _rebuild(self) -> None:
        await self.pool.skills.refresh()
        await self.pool._rebuild_skill_capabilities()

    async def enter(self) -> None:  # noqa: D102
        manager = self._manager()
        await self._guard(manager.__aenter__())
        self._entered = manager

    async def exit(self) -> None:  # noqa: D102
        manager, self._entered = self._entered, None
        if manager is not None:
            await self._guard(manager.__aexit__(None, None, None))

    # -- other agent creation paths ----------------------------------------------------------------

    async def _child_session_agent(self) -> tuple[Any, str]:
        """A child session's agent, created by the session controller and the factory."""
        sessions = self.pool.session_pool.sessions
        self._paths += 1
        parent, child = f"{_SESSION}-{self._paths}", f"{_SESSION}-{self._paths}-child"
        await sessions.get_or_create_session(parent, _AGENT)
        await sessions.get_or_create_session_agent(parent, _AGENT)
        await sessions.get_or_create_session(child, _AGENT, parent_session_id=parent)
        return await sessions.get_or_create_session_agent(child, _AGENT), child

    async def _standalone_agent(self) -> Any:
        """An agent built from its config, given the pool's providers by the factory."""
        agent_class = self._module(".agents.native_agent").Agent
        inject = self._module(".host.factory")._inject_pool_providers
        config = self.pool.manifest.agents[_AGENT]
        if config.name is None:
            config = config.model_copy(update={"name": _AGENT})
        agent = agent_class.from_config(config, agent_pool=self.pool)
        await agent.__aenter__()
        inject(agent, self.pool.get_context(), self.pool, include_aggregating=True)
        return agent

    async def _path_run(self, path: AgentPath, script: Script) -> RunRecord:
        owned: Any = None
        if path is AgentPath.CHILD_SESSION:
            agent, session_id = await self._child_session_agent()
            keywords: dict[str, Any] = {"session_id": session_id}
        else:
            agent = owned = await self._standalone_agent()
            keywords = {"session_id": f"{_SESSION}-standalone-{self._paths}", "_skip_pool": True}
        try:
            await agent.set_model(script.model())
            async for _event in agent.run_stream(_PROMPT, **keywords):
                pass
        finally:
            if owned is not None:
                await owned.__aexit__(None, None, None)
        return RunRecord(offered=script.offered or (), result=script.result)

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:  # noqa: D102
        return (await self._guard(self._path_run(path, Script()))).offered

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:  # noqa: D102
        script = Script(("load_skill", {"skill_name": skill}))
        return str((await self._guard(self._path_run(path, script))).result)

    # -- problems, close ---------------------------------------------------------------------------

    def problems(self) -> Sequence[str]:  # noqa: D102
        return list(self._capture.lines)

    async def close(self) -> None:  # noqa: D102
        try:
            await self.exit()
        finally:
            try:
                if self._pool is not None:
                    await self._guard(self._pool.__aexit__(None, None, None))
            finally:
                for logger in self._loggers:
                    logger.removeHandler(self._capture)
                if self._modules_dir is not None and str(self._modules_dir) in sys.path:
                    sys.path.remove(str(self._modules_dir))
                for module in self._child_modules:
                    sys.modules.pop(module, None)
