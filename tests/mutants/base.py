"""What every mutant is built from: the reference, given one broken part.

A mutant never edits ``reference/`` and copies none of it: it subclasses one reference class
(the pool, the skill manager, the registry, the skill tools provider, the agent factory) or
replaces one function (the loader of the skills directory, the reader of a skill's files),
overrides the one method that carries its defect, and is passed to the reference as that part
(:class:`~skill_conformance.adapters.reference.ReferenceParts`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

from pydantic_ai.models import Model

from skill_conformance.adapters.reference import (
    PoolFactory,
    ReferenceImplementation,
    ReferenceParts,
)
from skill_conformance.port import Ability
from skill_conformance.reference.factory import AgentFactory, HostContext
from skill_conformance.reference.loader import LoadResult, load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import ManagerFactory, SkillPool
from skill_conformance.reference.references import read_reference
from skill_conformance.reference.registry import ExtensionRegistry
from skill_conformance.reference.served_skills import ServedSkillsCap
from skill_conformance.reference.skill_tools import SkillToolsProvider


def mutant(
    name: str,
    *,
    pool: PoolFactory = SkillPool,
    manager: ManagerFactory = SkillManagerCap,
    registry: Callable[[], ExtensionRegistry] = ExtensionRegistry,
    provider: Callable[[SkillPool], SkillToolsProvider] = SkillToolsProvider,
    factory: Callable[[HostContext, Model], AgentFactory] = AgentFactory,
    loader: Callable[[Path], LoadResult] = load_skills,
    reader: Callable[[str, Path, str], str] = read_reference,
    served: type[ServedSkillsCap] = ServedSkillsCap,
) -> Callable[[], ReferenceImplementation]:
    """What ``--impl`` loads: the reference built from the given parts, named ``mutant:<name>``."""
    parts = ReferenceParts(
        pool=pool,
        manager=manager,
        registry=registry,
        provider=provider,
        factory=factory,
        loader=loader,
        reader=reader,
        served=served,
    )
    return functools.partial(ReferenceImplementation, parts, name=f"mutant:{name}")


def swapping(*swaps: tuple[object, str, object]) -> Callable[[Path], LoadResult]:
    """``load_skills`` with each ``(module or class, attribute, value)`` swapped during the call."""

    def load(skills_dir: Path) -> LoadResult:
        with ExitStack() as stack:
            for target, attribute, value in swaps:
                stack.enter_context(mock.patch.object(target, attribute, value))
            return load_skills(skills_dir)

    return load


def choosing_otherwise(
    factory: Callable[[], ReferenceImplementation], *choices: Ability
) -> Callable[[], ReferenceImplementation]:
    """``factory``'s mutant declaring ``choices`` unsupported, as the format allows it to.

    What it is then held to is what both choices owe, so its defect must be caught there.
    """

    def build() -> ReferenceImplementation:
        implementation = factory()
        implementation.unsupported = {
            choice: f"{implementation.name} chooses otherwise" for choice in choices
        }
        return implementation

    return build
