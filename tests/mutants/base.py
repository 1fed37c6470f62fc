"""What every mutant is built from: the reference adapter, with one piece swapped for a broken one.

A mutant never edits ``reference/``: it subclasses a reference class and overrides the one method
that carries its defect. :class:`MutantSystem` is the reference adapter's system with its pieces
(the pool, the skill manager, the registry, the skill tools provider, the agent factory) chosen by
class attributes, so a mutant names the broken class and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from skill_conformance.adapters.reference import (
    ReferenceImplementation,
    ReferenceSystem,
    _mcp_child,
    _port_errors,
    _tools_child,
)
from skill_conformance.port import AsyncSkillSystem, Setup, ToolsChild
from skill_conformance.reference.factory import AgentFactory, HostContext
from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.registry import ExtensionRegistry
from skill_conformance.reference.skill_tools import SkillToolsProvider


def _idle(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("Done.")])


class MutantPool(SkillPool):
    """The reference pool, building its manager, registry and skill tools from swappable classes."""

    manager_class: ClassVar[type[SkillManagerCap]] = SkillManagerCap
    registry_class: ClassVar[type[ExtensionRegistry]] = ExtensionRegistry
    provider_class: ClassVar[type[SkillToolsProvider]] = SkillToolsProvider

    def __init__(self, skills_dir: Path, children: Sequence[AbstractCapability[Any]] = ()) -> None:
        super().__init__(skills_dir, children, registry=self.registry_class())
        self.skills_tools = self.provider_class(self)

    def _build(self) -> SkillManagerCap:
        # SkillPool._build, with the manager's class swapped (building twice would import twice).
        loaded = load_skills(self.skills_dir)
        manager = self.manager_class(loaded.skills.values(), self.children, name="pool-skills")
        self._problems = loaded.problems + manager.problems
        return manager


class MutantSystem(ReferenceSystem):
    """The reference adapter's system, on a :class:`MutantPool` and a swappable factory."""

    pool_class: ClassVar[type[SkillPool]] = MutantPool
    factory_class: ClassVar[type[AgentFactory]] = AgentFactory

    async def start(self) -> None:
        children: list[AbstractCapability[Any]] = [
            _tools_child(child) if isinstance(child, ToolsChild) else _mcp_child(child)
            for child in self._setup.children
        ]
        pool = self.pool_class(self._setup.skills_dir, children)
        with _port_errors():
            await pool.start()
        self._pool = pool
        self._note_problems()
        provider = pool.skills_tools if self._setup.skills_tools_provider else None
        self._factory = self.factory_class(HostContext(pool, provider), FunctionModel(_idle))


class MutantImplementation(ReferenceImplementation):
    """An implementation whose systems are :attr:`system_class`; its name is ``mutant:<class>``."""

    system_class: ClassVar[type[MutantSystem]] = MutantSystem

    def __init__(self) -> None:
        super().__init__()
        self.name = f"mutant:{type(self).__name__}"

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return self.system_class(setup)


def mutant(
    name: str,
    *,
    manager: type[SkillManagerCap] | None = None,
    registry: type[ExtensionRegistry] | None = None,
    provider: type[SkillToolsProvider] | None = None,
    pool: type[MutantPool] | None = None,
    factory: type[AgentFactory] | None = None,
) -> type[MutantImplementation]:
    """An implementation class: the reference with the given pieces swapped."""
    pool_base = pool or MutantPool
    pool_attrs: dict[str, object] = {}
    if manager is not None:
        pool_attrs["manager_class"] = manager
    if registry is not None:
        pool_attrs["registry_class"] = registry
    if provider is not None:
        pool_attrs["provider_class"] = provider
    pool_class = type(f"{name}Pool", (pool_base,), pool_attrs) if pool_attrs else pool_base
    system_attrs: dict[str, object] = {"pool_class": pool_class}
    if factory is not None:
        system_attrs["factory_class"] = factory
    system = type(f"{name}System", (MutantSystem,), system_attrs)
    return type(name, (MutantImplementation,), {"system_class": system})
