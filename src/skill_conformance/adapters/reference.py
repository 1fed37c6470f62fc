"""The adapter of the reference implementation (``--impl reference``).

It drives the reference through the entry points production uses: the pool's start-up and
rebuild, the agent factory, and real pydantic-ai agents whose model is a ``FunctionModel``. What
"the agent is offered" means is exactly the tool names that model sees in a real ``agent.run``;
a tool call is the model answering with a ``ToolCallPart``, and its result is read from the
request that carries it back to the model, where the run is left (:meth:`Script.run`). Every run
therefore goes through the skill manager's ``for_run`` copy and its ``get_wrapper_toolset``
filter, as pydantic-ai calls them.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic_ai import Agent, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from typing_extensions import override

from skill_conformance.adapters.import_path import ImportPath
from skill_conformance.adapters.scripted_model import Script, idle
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
from skill_conformance.reference.capabilities import IdentityCapability, McpServerCap, ToolsetCap
from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    SecurityError,
    SkillError,
    SkillNotFoundError,
)
from skill_conformance.reference.factory import AgentFactory, HostContext
from skill_conformance.reference.importer import IMPORT_TIMEOUT
from skill_conformance.reference.loader import LoadResult, load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.mcp_client import STARTUP_TIMEOUT, stdio_server
from skill_conformance.reference.pool import ManagerFactory, SkillPool
from skill_conformance.reference.references import read_reference
from skill_conformance.reference.registry import ExtensionRegistry, ScopeLevel
from skill_conformance.reference.registry import Scope as RegistryScope
from skill_conformance.reference.served_skills import ServedSkillsCap
from skill_conformance.reference.skill_tools import SkillToolsProvider

__all__ = ["ReferenceImplementation", "ReferenceParts", "ReferenceSystem"]

_PROMPT = "Use the skills."


def _version() -> str:
    try:
        return importlib.metadata.version("skill-conformance")
    except importlib.metadata.PackageNotFoundError:
        from skill_conformance import __version__

        return __version__


class PoolFactory(Protocol):
    """Builds the pool; :class:`SkillPool` itself is one."""

    def __call__(
        self,
        skills_dir: Path,
        children: Sequence[AbstractCapability[Any]],
        *,
        registry: ExtensionRegistry,
        manager: ManagerFactory,
        provider: Callable[[SkillPool], SkillToolsProvider],
        loader: Callable[[Path], LoadResult],
        import_timeout: float,
        startup_timeout: float,
    ) -> SkillPool:
        """The pool of ``skills_dir``, its manager and provider built by those given."""
        ...


@dataclass(frozen=True)
class ReferenceParts:
    """What a reference system is built from; each part can be replaced (tests, mutants)."""

    pool: PoolFactory = SkillPool
    manager: ManagerFactory = SkillManagerCap
    registry: Callable[[], ExtensionRegistry] = ExtensionRegistry
    provider: Callable[[SkillPool], SkillToolsProvider] = SkillToolsProvider
    factory: Callable[[HostContext, Model], AgentFactory] = AgentFactory
    loader: Callable[[Path], LoadResult] = load_skills
    reader: Callable[[str, Path, str], str] = read_reference
    served: type[ServedSkillsCap] = ServedSkillsCap
    """The MCP server child, a host of the Skills Extension where the server declares it."""


class ReferenceImplementation:
    """The reference implementation, as ``--impl reference`` loads it.

    Args:
        parts: What each scenario's system is built from; the reference's own by default.
        name: The name shown in reports; the class's :attr:`name` if not given.

    """

    name = "reference"
    cannot_drive: str | None = None
    mcp_skills_host = True
    """A host of MCP's Skills Extension: the host profile's scenarios are its too."""

    def __init__(self, parts: ReferenceParts | None = None, *, name: str | None = None) -> None:
        if name is not None:
            self.name = name
        self.parts = parts if parts is not None else ReferenceParts()
        self.version = _version()
        self.unsupported: Mapping[Ability, str] = {}

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return ReferenceSystem(setup, self.parts)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""


@contextmanager
def _port_errors() -> Iterator[None]:
    """Map the reference's errors to the port's kinds."""
    try:
        yield
    except (SkillNotFoundError, ReferenceNotFoundError) as error:
        raise SkillSystemError(ErrorKind.NOT_FOUND, str(error)) from error
    except SecurityError as error:
        raise SkillSystemError(ErrorKind.SECURITY, str(error)) from error
    except SkillError as error:
        raise SkillSystemError(ErrorKind.INVALID_CONFIG, str(error)) from error


def _tools_child(child: ToolsChild) -> IdentityCapability:
    """The child as a capability: a toolset of its tools, or, offering none, no toolset at all."""
    if not child.tools:
        return IdentityCapability()

    def returning(text: str) -> Callable[[], str]:
        def tool() -> str:
            return text

        tool.__doc__ = f"Return {text!r}."
        return tool

    tools = [Tool(returning(f"{child.label}:{name}"), name=name) for name in child.tools]
    return ToolsetCap(FunctionToolset(tools, id=child.label))


def _mcp_child(
    child: McpChild, served: type[ServedSkillsCap], report: Callable[[str], None]
) -> McpServerCap:
    server = child.server
    return served(
        stdio_server(server.command, server.args, server.env, id=child.label, label=child.label),
        (server.command, server.args, server.env),
        report,
    )


_SCOPES: Mapping[Scope, RegistryScope] = {
    Scope.POOL: RegistryScope(ScopeLevel.POOL),
    Scope.SESSION: RegistryScope(ScopeLevel.SESSION, session_id="session-1"),
    Scope.AGENT: RegistryScope(ScopeLevel.AGENT, session_id="session-1", agent_name="agent-1"),
    Scope.TURN: RegistryScope(
        ScopeLevel.TURN, session_id="session-1", agent_name="agent-1", turn_id="turn-1"
    ),
}


class ReferenceSystem(AsyncSkillSystem):
    """The reference opened on one :class:`Setup` (see :class:`AsyncSkillSystem`)."""

    def __init__(self, setup: Setup, parts: ReferenceParts | None = None) -> None:
        self._setup = setup
        self._parts = parts if parts is not None else ReferenceParts()
        self._pool: SkillPool | None = None
        self._factory: AgentFactory | None = None
        self._entered: SkillManagerCap | None = None
        self._problems: list[str] = []
        self._import_path = ImportPath(setup.python_path)

    @property
    def pool(self) -> SkillPool:
        """The pool, once started."""
        assert self._pool is not None, "start() was not called"
        return self._pool

    @property
    def factory(self) -> AgentFactory:
        """The agent factory, once started."""
        assert self._factory is not None, "start() was not called"
        return self._factory

    @override
    async def start(self) -> None:
        parts = self._parts
        children: list[AbstractCapability[Any]] = [
            _tools_child(child)
            if isinstance(child, ToolsChild)
            else _mcp_child(child, parts.served, self._report)
            for child in self._setup.children
        ]
        self._import_path.add()
        bound = self._setup.give_up_after
        pool = parts.pool(
            self._setup.skills_dir,
            children,
            registry=parts.registry(),
            manager=parts.manager,
            provider=parts.provider,
            loader=parts.loader,
            import_timeout=IMPORT_TIMEOUT if bound is None else bound,
            startup_timeout=STARTUP_TIMEOUT if bound is None else bound,
        )
        with _port_errors():
            await pool.start()
        self._pool = pool
        self._note_problems()
        provider = pool.skills_tools if self._setup.skills_tools_provider else None
        self._factory = parts.factory(HostContext(pool, provider), FunctionModel(idle))

    # -- agent runs ----------------------------------------------------------------------------

    def _manager_agent(self) -> Agent[None, str]:
        """An agent with the pool's skill manager as its capability, and nothing else."""
        return Agent(FunctionModel(idle), capabilities=[self.pool.manager])

    def _skill_tools_agent(self) -> Agent[None, str]:
        """An agent with the pool's ``load_skill``/``list_skills`` provider and nothing else.

        Without the manager, a call starts no skill's MCP server; a remote skill provider is
        connected by the call itself (sharing the connection if the manager is entered).
        """
        return Agent(FunctionModel(idle), capabilities=[self.pool.skills_tools])

    def _agent(self, path: AgentPath) -> Agent[None, str]:
        if path is AgentPath.CHILD_SESSION:
            return self.factory.create_child_session_agent()
        return self.factory.create_standalone_agent()

    async def _run(self, agent: Agent[None, str], script: Script) -> RunRecord:
        with _port_errors():
            await script.run(agent, _PROMPT)
        return RunRecord(offered=script.offered or (), result=script.result)

    async def _call(
        self, agent: Agent[None, str], tool: str, arguments: Mapping[str, object]
    ) -> object:
        return (await self._run(agent, Script((tool, arguments)))).result

    @override
    async def tool_names(self) -> Sequence[str]:
        return (await self._run(self._manager_agent(), Script())).offered

    @override
    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        return await self._run(self._manager_agent(), Script((name, arguments)))

    @override
    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        call: dict[str, object] = {"skill_name": skill}
        if arguments is not None:
            call["arguments"] = arguments
        return str(await self._call(self._skill_tools_agent(), "load_skill", call))

    @override
    async def list_skills(self) -> Sequence[SkillListing]:
        entries = await self._call(self._skill_tools_agent(), "list_skills", {})
        if not isinstance(entries, list):
            raise TypeError(f"list_skills returned {entries!r}")
        return [
            SkillListing(
                name=str(entry["name"]),
                description=str(entry["description"]),
                source=str(entry["source"]),
                uri=None if entry.get("uri") is None else str(entry["uri"]),
            )
            for entry in entries
        ]

    @override
    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        return (await self._run(self._agent(path), Script())).offered

    @override
    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        return str(await self._call(self._agent(path), "load_skill", {"skill_name": skill}))

    @override
    async def read_skill_file(self, skill: str, path: str) -> str:
        with _port_errors():
            found = self.pool.manager.skills.get(skill)
            if found is None:
                raise SkillNotFoundError(skill)
            if found.directory is None:
                raise ReferenceNotFoundError(skill, path)
            return self._parts.reader(found.name, found.directory, path)

    # -- registry, rebuild, lifecycle ------------------------------------------------------------

    @override
    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        with _port_errors():
            resolved = await self.pool.registry.resolve_uri(uri)
        return ResolvedSkill(name=resolved.skill.name, instructions=resolved.text)

    @override
    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        return [entry.name for entry in await self.pool.registry.list_skills(_SCOPES[scope])]

    @override
    async def rebuild(self) -> None:
        with _port_errors():
            await self.pool.rebuild()
        self._note_problems()

    @override
    async def enter(self) -> None:
        manager = self.pool.manager
        await manager.__aenter__()
        self._entered = manager

    @override
    async def exit(self) -> None:
        manager, self._entered = self._entered, None
        if manager is not None and manager.entered:
            await manager.__aexit__(None, None, None)

    @override
    def problems(self) -> Sequence[str]:
        if self._pool is not None:
            self._note_problems()
        return list(self._problems)

    def _report(self, problem: str) -> None:
        """Keep a problem a served skill reported, once."""
        if problem not in self._problems:
            self._problems.append(problem)

    def _note_problems(self) -> None:
        """Keep the problems of every build so far, each once."""
        self._problems.extend(p for p in self.pool.problems if p not in self._problems)

    @override
    async def close(self) -> None:
        # The pool's own shutdown, entered manager or not (see the port's close).
        try:
            if self._pool is not None:
                await self._pool.close()
        finally:
            self._import_path.remove()
