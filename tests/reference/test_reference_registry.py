from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skill_conformance.reference.capabilities import ToolsetCap
from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    SecurityError,
    SkillNotFoundError,
)
from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.registry import POOL_SCOPE, ExtensionRegistry, Scope, ScopeLevel
from skill_conformance.reference.resources import SkillEntry, SkillResource
from skill_conformance.reference.skill import Skill

pytestmark = pytest.mark.anyio

SESSION = Scope(ScopeLevel.SESSION, session_id="s1")
AGENT = Scope(ScopeLevel.AGENT, session_id="s1", agent_name="a1")
TURN = Scope(ScopeLevel.TURN, session_id="s1", agent_name="a1", turn_id="t1")
OTHER_SESSION = Scope(ScopeLevel.SESSION, session_id="s2")
ALL = [POOL_SCOPE, SESSION, AGENT, TURN, OTHER_SESSION]


class Remote:
    """A skill resource without skill directories."""

    async def list_skills(self) -> list[SkillEntry]:
        return [SkillEntry("remote-one", "Remote.", "hub")]

    async def read_skill(self, name: str) -> Skill:
        if name != "remote-one":
            raise SkillNotFoundError(name)
        return Skill(name, "Remote.", "Remote instructions.", source="hub")


def test_scope_chain() -> None:
    assert TURN.chain() == [POOL_SCOPE, SESSION, AGENT, TURN]
    assert POOL_SCOPE.chain() == [POOL_SCOPE]


def test_pool_registrations_are_visible_everywhere_others_below_their_scope() -> None:
    registry = ExtensionRegistry()
    pooled, session, turn = ToolsetCap(_empty()), ToolsetCap(_empty()), ToolsetCap(_empty())
    registry.register(pooled)
    registry.register(session, SESSION)
    registry.register(turn, TURN)
    assert all(registry.visible(scope)[0] is pooled for scope in ALL)
    assert registry.visible(POOL_SCOPE) == [pooled]
    assert registry.visible(AGENT) == [pooled, session]
    assert registry.visible(TURN) == [pooled, session, turn]
    assert registry.visible(OTHER_SESSION) == [pooled]


def test_registrations_are_told_apart_by_identity() -> None:
    registry = ExtensionRegistry()
    first, second = SkillManagerCap([]), SkillManagerCap([])
    registry.register(first)
    registry.register(first)
    registry.register(second)
    assert registry.visible() == [first, second]
    assert registry.unregister(first) is True
    assert registry.unregister(first) is False
    assert registry.visible() == [second]
    assert registry.unregister(second, SESSION) is False


async def test_listing_and_flat_resolution(skills_dir: Path, make_skill: Any) -> None:
    make_skill("my-skill", "Follow the checklist.", files={"references/guide.md": "GUIDE"})
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    registry = ExtensionRegistry()
    registry.register(manager)
    registry.register(Remote(), SESSION)  # type: ignore[arg-type]
    assert isinstance(manager, SkillResource)
    assert [e.name for e in await registry.list_skills(POOL_SCOPE)] == ["my-skill"]
    assert [e.name for e in await registry.list_skills(TURN)] == ["my-skill", "remote-one"]

    resolved = await registry.resolve_uri("skill://my-skill")
    assert (resolved.skill.name, resolved.reference, resolved.text) == (
        "my-skill",
        None,
        "Follow the checklist.",
    )
    reference = await registry.resolve_uri("skill://my-skill/references/guide.md")
    assert (reference.reference, reference.text) == ("references/guide.md", "GUIDE")
    assert (
        await registry.resolve_uri("skill://remote-one", SESSION)
    ).text == "Remote instructions."
    with pytest.raises(SkillNotFoundError, match="remote-one"):
        await registry.resolve_uri("skill://remote-one")
    with pytest.raises(ReferenceNotFoundError):
        await registry.resolve_uri("skill://remote-one/references/x.md", SESSION)
    with pytest.raises(ReferenceNotFoundError):
        await registry.resolve_uri("skill://my-skill/references/none.md")
    with pytest.raises(SecurityError):
        await registry.resolve_uri("skill://my-skill/../my-skill/SKILL.md")


async def test_a_skill_listed_twice_is_listed_twice(skills_dir: Path, make_skill: Any) -> None:
    make_skill("steady")
    registry = ExtensionRegistry()
    registry.register(SkillManagerCap(load_skills(skills_dir).skills.values()))
    registry.register(SkillManagerCap(load_skills(skills_dir).skills.values()))
    assert [e.name for e in await registry.list_skills()] == ["steady", "steady"]


def test_capabilities_compare_by_identity() -> None:
    a, b = ToolsetCap(_empty()), ToolsetCap(_empty())
    assert a == a
    assert a != b
    assert len({a, b}) == 2


def _empty() -> Any:
    from pydantic_ai.toolsets import FunctionToolset

    return FunctionToolset()
