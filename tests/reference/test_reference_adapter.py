"""The adapter opened on a Setup, end to end, with real stdio MCP servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import (
    AgentPath,
    ErrorKind,
    Implementation,
    McpChild,
    Scope,
    ServerCommand,
    Setup,
    SkillListing,
    SkillSystemError,
    ToolsChild,
)
from skill_conformance.runtime.servers import pid_alive

pytestmark = pytest.mark.anyio


def test_it_is_an_implementation() -> None:
    implementation = ReferenceImplementation()
    assert isinstance(implementation, Implementation)
    assert implementation.name == "reference"
    assert implementation.version
    assert dict(implementation.unsupported) == {}


async def test_a_setup_end_to_end(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path, tmp_path: Path
) -> None:
    make_skill(
        "my-skill",
        "first=$1",
        tools=[{"type": "python", "import_path": "json:loads"}],
        mcp_servers={"server1": server_entry("server1", ["echo"])},
    )
    make_skill("broken", tools=[{"import_path": "no_such_module_sc:missing"}])
    hub = server_entry("hub", tools=[], skills=["remote-one"])
    setup = Setup(
        skills_dir=skills_dir,
        children=(
            ToolsChild(label="child-0", tools=("ping",)),
            McpChild(label="hub", server=ServerCommand(hub["command"], tuple(hub["args"]))),
        ),
        workdir=tmp_path,
    )
    system = ReferenceImplementation().open(setup)
    with anyio.fail_after(30):
        await system.start()
        assert not mcp_log.exists(), "starting the pool starts no MCP server"
        assert any("no_such_module_sc:missing" in p for p in system.problems())
        await system.enter()
        try:
            assert list(await system.tool_names()) == [
                "my-skill__tool__loads",
                "my-skill__mcp__echo",
                "ping",
            ]
            assert (await system.run_tool("my-skill__mcp__echo", {"text": "hi"})).result == (
                "server1:echo:hi"
            )
            record = await system.run_tool("my-skill__tool__loads", {"s": "[1, 2]"})
            assert record.result == [1, 2]
            assert "my-skill__tool__loads" in record.offered
            assert (await system.run_tool("ping", {})).result == "child-0:ping"
            assert "first=alpha" in await system.load_skill("my-skill", "alpha")
            assert "Instructions of remote-one." in await system.load_skill("remote-one")
            listed = {entry.name: entry for entry in await system.list_skills()}
            assert listed["my-skill"] == SkillListing(
                "my-skill", "Skill my-skill.", "local", "skill://my-skill"
            )
            assert listed["remote-one"] == SkillListing(
                "remote-one", "Remote skill remote-one.", "hub", None
            )
            for path in AgentPath:
                offered = await system.agent_tool_names(path)
                assert {"load_skill", "list_skills"} <= set(offered)
                assert "first=$1" in await system.agent_load_skill(path, "my-skill")
            for scope in Scope:
                assert list(await system.registry_skill_names(scope)) == ["broken", "my-skill"]
            resolved = await system.resolve_uri("skill://my-skill")
            assert (resolved.name, resolved.instructions) == ("my-skill", "first=$1")
            with pytest.raises(SkillSystemError) as not_found:
                await system.load_skill("nonexistent")
            assert not_found.value.kind is ErrorKind.NOT_FOUND
            assert "nonexistent" in not_found.value.message
            with pytest.raises(SkillSystemError) as traversal:
                await system.load_skill("skill://my-skill/%2e%2e/%2e%2e/x")
            assert traversal.value.kind is ErrorKind.SECURITY
            with pytest.raises(SkillSystemError) as unresolved:
                await system.resolve_uri("skill://remote-one")
            assert unresolved.value.kind is ErrorKind.NOT_FOUND
        finally:
            await system.close()
    log = [json.loads(line) for line in mcp_log.read_text().splitlines()]
    assert [(r["event"], r["label"]) for r in log] == [
        ("start", "server1"),
        ("start", "hub"),
        ("stop", "hub"),
        ("stop", "server1"),
    ], "every run shared the connections opened by enter()"
    assert not [r["pid"] for r in log if pid_alive(r["pid"])]


async def test_rebuild_exit_and_close_without_enter(skills_dir: Path, make_skill: Any) -> None:
    make_skill("keep", tools=[{"import_path": "json:loads"}])
    make_skill("drop", tools=[{"import_path": "json:dumps"}])
    system = ReferenceImplementation().open(
        Setup(skills_dir=skills_dir, skills_tools_provider=False)
    )
    with anyio.fail_after(10):
        await system.start()
        await system.enter()
        (skills_dir / "drop" / "SKILL.md").unlink()
        await system.rebuild()
        assert list(await system.tool_names()) == ["keep__tool__loads"]
        await system.exit()
        await system.exit()
        offered = await system.agent_tool_names(AgentPath.CHILD_SESSION)
        assert "load_skill" not in offered
        assert "list_skills" not in offered
        await system.close()
