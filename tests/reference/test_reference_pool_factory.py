"""The pool's build and rebuild path, and the agent factory's paths."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel
from reference_helpers import Run

from skill_conformance.reference.factory import AgentFactory, HostContext
from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.registry import POOL_SCOPE, Scope, ScopeLevel

pytestmark = pytest.mark.anyio

TURN = Scope(ScopeLevel.TURN, session_id="s", agent_name="a", turn_id="t")


async def names(pool: SkillPool, scope: Scope = POOL_SCOPE) -> list[str]:
    return [entry.name for entry in await pool.registry.list_skills(scope)]


async def test_start_registers_the_manager_at_pool_scope(skills_dir: Path, make_skill: Any) -> None:
    make_skill("my-skill")
    pool = SkillPool(skills_dir)
    with pytest.raises(RuntimeError):
        _ = pool.manager
    await pool.start()
    assert pool.registry.visible() == [pool.manager]
    assert await names(pool, TURN) == ["my-skill"]
    with pytest.raises(RuntimeError):
        await pool.start()


async def test_rebuilds_leave_exactly_the_new_manager(skills_dir: Path, make_skill: Any) -> None:
    make_skill("old-skill")
    pool = SkillPool(skills_dir)
    await pool.start()
    old = pool.manager
    await old.__aenter__()
    shutil.rmtree(skills_dir / "old-skill")
    make_skill("new-skill")
    for _ in range(3):
        await pool.rebuild()
    assert not old.entered, "the entered manager was exited by the rebuild"
    assert pool.registry.visible() == [pool.manager]
    assert await names(pool, TURN) == ["new-skill"]
    await pool.close()
    assert pool.registry.visible() == []


async def test_problems_are_those_of_the_current_build(skills_dir: Path, make_skill: Any) -> None:
    make_skill("broken", tools=[{"import_path": "no_such_module_sc:missing"}])
    pool = SkillPool(skills_dir)
    await pool.start()
    assert len(pool.problems) == 1
    shutil.rmtree(skills_dir / "broken")
    await pool.rebuild()
    assert pool.problems == []


def idle(*_: object) -> ModelResponse:
    return ModelResponse(parts=[TextPart("done")])


@pytest.mark.parametrize("with_provider", [True, False])
async def test_every_path_gets_the_skill_tools_provider(
    skills_dir: Path, make_skill: Any, with_provider: bool
) -> None:
    make_skill("my-skill", "My instructions.", tools=[{"import_path": "json:loads"}])
    pool = SkillPool(skills_dir)
    await pool.start()
    provider = pool.skills_tools if with_provider else None
    factory = AgentFactory(HostContext(pool, provider), FunctionModel(idle))
    agents = [
        factory.create_session_agent(),
        factory.create_child_session_agent(),
        factory.create_standalone_agent(),
    ]
    expected = ["my-skill__tool__loads"] + (["load_skill", "list_skills"] if with_provider else [])
    for agent in agents:
        run = Run()
        await agent.run("go", model=FunctionModel(run.respond))
        assert run.offered[0] == expected
    if with_provider:
        run = Run(("load_skill", {"skill_name": "my-skill"}))
        await agents[1].run("go", model=FunctionModel(run.respond))
        assert "My instructions." in str(run.result)


async def test_the_provider_is_injected_once(skills_dir: Path) -> None:
    pool = SkillPool(skills_dir)
    await pool.start()
    factory = AgentFactory(HostContext(pool, pool.skills_tools), FunctionModel(idle))
    capabilities: list[Any] = [pool.manager, pool.skills_tools]
    factory._inject_pool_providers(capabilities)
    assert capabilities == [pool.manager, pool.skills_tools]


async def test_agents_are_named_by_path_and_run_on_the_factory_model(skills_dir: Path) -> None:
    pool = SkillPool(skills_dir)
    await pool.start()
    run = Run()
    factory = AgentFactory(HostContext(pool, pool.skills_tools), FunctionModel(run.respond))
    assert factory.create_session_agent().name == "session-agent"
    assert factory.create_session_agent("lead").name == "lead"
    assert factory.create_child_session_agent().name == "session-agent/child-agent"
    assert factory.create_child_session_agent("lead", "helper").name == "lead/helper"
    assert factory.create_standalone_agent().name == "standalone-agent"
    assert factory.create_standalone_agent("solo").name == "solo"
    await factory.create_standalone_agent().run("go")
    assert run.offered == [["load_skill", "list_skills"]]


async def test_a_pool_uses_the_registry_it_is_given_and_starts_once(
    skills_dir: Path, make_skill: Any
) -> None:
    from skill_conformance.reference.registry import ExtensionRegistry

    make_skill("my-skill")
    registry = ExtensionRegistry()
    pool = SkillPool(skills_dir, registry=registry)
    assert pool.problems == []
    await pool.start()
    assert [entry.name for entry in await registry.list_skills(POOL_SCOPE)] == ["my-skill"]
    assert pool.manager.name == "pool-skills"
    with pytest.raises(RuntimeError, match="the skill pool has already started"):
        await pool.start()
