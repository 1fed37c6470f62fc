"""The pool's side of the skill system: building the skill manager, and rebuilding it.

Start-up builds a :class:`SkillManagerCap` from the skills directory and registers it with the
extension registry at pool scope. A rebuild unregisters the current manager, exits it if it is
entered, then builds and registers a new one from what the directory now holds, so the registry
always holds exactly one skill manager of this pool. Building starts no MCP server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic_ai.capabilities import AbstractCapability

from skill_conformance.reference.importer import IMPORT_TIMEOUT
from skill_conformance.reference.loader import LoadResult, load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.mcp_client import STARTUP_TIMEOUT
from skill_conformance.reference.registry import POOL_SCOPE, ExtensionRegistry
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.skill_tools import SkillToolsProvider

__all__ = ["ManagerFactory", "SkillPool"]


class ManagerFactory(Protocol):
    """Builds a skill manager; :class:`SkillManagerCap` itself is one."""

    def __call__(
        self,
        skills: Iterable[Skill],
        children: Sequence[AbstractCapability[Any]],
        *,
        name: str,
        import_timeout: float,
        startup_timeout: float,
    ) -> SkillManagerCap:
        """The skill manager of ``skills`` and the non-skill ``children``."""
        ...


class SkillPool:
    """The skills of one agent pool.

    Args:
        skills_dir: The directory of skill directories.
        children: The pool's non-skill capabilities that the skill manager holds as children
            (MCP servers, remote skill providers, plain toolsets).
        registry: The pool's extension registry; a new one if not given.
        import_timeout: Seconds each skill tool module may take to import.
        startup_timeout: Seconds each skill MCP server may take to answer its handshake.
        manager: What builds the skill manager, at start-up and on every rebuild.
        provider: What builds the pool's ``load_skill``/``list_skills`` provider, given the pool.
        loader: What reads the skills directory into skills and problems, on every build.

    """

    def __init__(
        self,
        skills_dir: Path,
        children: Sequence[AbstractCapability[Any]] = (),
        *,
        registry: ExtensionRegistry | None = None,
        import_timeout: float = IMPORT_TIMEOUT,
        startup_timeout: float = STARTUP_TIMEOUT,
        manager: ManagerFactory = SkillManagerCap,
        provider: Callable[[SkillPool], SkillToolsProvider] = SkillToolsProvider,
        loader: Callable[[Path], LoadResult] = load_skills,
    ) -> None:
        self.skills_dir = skills_dir
        self.children = tuple(children)
        self.import_timeout = import_timeout
        self.startup_timeout = startup_timeout
        self.registry = registry if registry is not None else ExtensionRegistry()
        self.skills_tools = provider(self)
        self._build_manager = manager
        self._load = loader
        self._manager: SkillManagerCap | None = None
        self._problems: list[str] = []

    @property
    def manager(self) -> SkillManagerCap:
        """The current skill manager."""
        if self._manager is None:
            raise RuntimeError("the skill pool has not started")
        return self._manager

    @property
    def problems(self) -> list[str]:
        """Problems of the current build, and of skill MCP servers found unusable since.

        Bad skill files and tools that did not import are found when building; a server that
        cannot be used, when the manager is entered or during a run.
        """
        found = list(self._problems)
        if self._manager is not None:
            found.extend(self._manager.problems)
        return found

    async def start(self) -> None:
        """Build the skill manager and register it at pool scope."""
        if self._manager is not None:
            raise RuntimeError("the skill pool has already started")
        self._install(await self._build())

    async def rebuild(self) -> None:
        """Replace the skill manager by one built from the skills directory as it is now."""
        old = self.manager
        # POOL_SCOPE is also the default, and _manager is set again below: no mutant differs.
        self.registry.unregister(old, POOL_SCOPE)  # pragma: no mutate
        self._manager = None  # pragma: no mutate
        if old.entered:
            await old.aclose()
        self._install(await self._build())

    async def close(self) -> None:
        """Unregister the skill manager and exit it if it is entered."""
        old, self._manager = self._manager, None
        if old is not None:
            self.registry.unregister(old, POOL_SCOPE)  # pragma: no mutate (the default scope)
            if old.entered:
                await old.aclose()

    async def _build(self) -> SkillManagerCap:
        # In a worker thread: a tool module slow to import does not stall the event loop.
        return await asyncio.to_thread(self._build_now)

    def _build_now(self) -> SkillManagerCap:
        loaded = self._load(self.skills_dir)
        manager = self._build_manager(
            loaded.skills.values(),
            self.children,
            name="pool-skills",  # pragma: no mutate (a name for messages)
            import_timeout=self.import_timeout,
            startup_timeout=self.startup_timeout,
        )
        self._problems = list(loaded.problems)
        return manager

    def _install(self, manager: SkillManagerCap) -> None:
        self._manager = manager
        self.registry.register(manager, POOL_SCOPE)  # pragma: no mutate (the default scope)
