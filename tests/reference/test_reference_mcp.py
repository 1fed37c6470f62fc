"""The MCP path with real processes: lifecycle, order, shared connections, HTTP, the shim."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from reference_helpers import agent_run

from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.errors import SkillNotFoundError
from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.mcp_client import http_server, stdio_server
from skill_conformance.runtime.servers import pid_alive
from skill_conformance.runtime.world import World

pytestmark = pytest.mark.anyio


def events(log: Path) -> list[tuple[str, str, int]]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [(r["event"], r["label"], r["pid"]) for r in map(json.loads, lines)]


async def test_entering_and_exiting_the_manager(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path
) -> None:
    make_skill("alpha", mcp_servers={"first": server_entry("first", ["echo", "get__item"])})
    make_skill("beta", mcp_servers={"second": server_entry("second")})
    third = server_entry("third", ["ping"])
    child = McpServerCap(
        stdio_server(third["command"], third["args"], None, id="third", label="third")
    )
    manager = SkillManagerCap(load_skills(skills_dir).skills.values(), [child])
    assert events(mcp_log) == []

    with anyio.fail_after(20):
        async with manager:
            assert [(e, label) for e, label, _ in events(mcp_log)] == [
                ("start", "first"),
                ("start", "second"),
                ("start", "third"),
            ]
            run = await agent_run([manager], ("alpha__mcp__get__item", {"text": "hi"}))
            assert run.offered[0] == [
                "alpha__mcp__echo",
                "alpha__mcp__get__item",
                "beta__mcp__echo",
                "ping",
            ]
            assert run.result == "first:get__item:hi"
            assert len(events(mcp_log)) == 3, "the run shared the manager's connections"
    log = events(mcp_log)
    assert [label for e, label, _ in log if e == "stop"] == ["third", "second", "first"]
    assert not [pid for _, _, pid in log if pid_alive(pid)]


async def test_a_run_connects_lazily_and_disconnects(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path
) -> None:
    make_skill(
        "hybrid",
        tools=[{"import_path": "json:loads"}],
        mcp_servers={"server1": server_entry("server1")},
    )
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    with anyio.fail_after(20):
        run = await agent_run([manager], ("hybrid__mcp__echo", {"text": "hi"}))
    assert run.offered[0] == ["hybrid__tool__loads", "hybrid__mcp__echo"]
    assert run.result == "server1:echo:hi"
    assert [e for e, _, _ in events(mcp_log)] == ["start", "stop"]
    assert not any(pid_alive(pid) for _, _, pid in events(mcp_log))


def test_the_shim_builds_the_client_of_this_pydantic_ai() -> None:
    server = stdio_server(sys.executable, ["-c", "pass"], {"A": "1"}, id="s", label="s")
    remote = http_server("http://127.0.0.1:9/mcp", {}, id="h", label="h")
    assert not server.is_running
    assert not remote.is_running
    try:
        from pydantic_ai.mcp import MCPServerStdio
    except ImportError:
        from fastmcp.client.transports import ClientTransport
        from pydantic_ai.mcp import MCPToolset

        assert isinstance(server.toolset, MCPToolset)
        transport = server.toolset.client.transport
        assert isinstance(transport, ClientTransport)
        assert type(transport).__name__ == "BoundedStdioTransport"  # reads within bounds
        assert transport.env == {"A": "1"}
    else:
        assert isinstance(server.toolset, MCPServerStdio)
        assert type(server.toolset).__name__ == "BoundedMCPServerStdio"
        assert server.toolset.env == {"A": "1"}
    assert server.toolset.id == "s"


@pytest.fixture
def http_server_url(tmp_path: Path) -> Iterator[str]:
    """A real test MCP server over streamable HTTP that requires ``X-Token: s3cret``."""
    world = World(tmp_path / "http-world")
    try:
        yield world.servers.serve_over_http("remote", ["echo"], header=("X-Token", "s3cret"))
    finally:
        world.teardown()


async def test_a_server_by_url_gets_its_headers(
    skills_dir: Path, make_skill: Any, http_server_url: str
) -> None:
    make_skill(
        "web",
        mcp_servers={"remote": {"url": http_server_url, "headers": {"X-Token": "s3cret"}}},
    )
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    with anyio.fail_after(20):
        run = await agent_run([manager], ("web__mcp__echo", {"text": "hi"}))
    assert run.offered[0] == ["web__mcp__echo"]
    assert run.result == "remote:echo:hi"


async def test_a_server_by_url_without_its_headers_is_refused(http_server_url: str) -> None:
    remote = http_server(http_server_url, {}, id="remote", label="remote")
    with anyio.fail_after(20), pytest.raises(BaseException, match="401"):
        async with remote:
            pass


async def test_a_binary_resource_is_read_as_text(server_entry: Any) -> None:
    entry = server_entry("hub", ())
    entry["args"] += ["--binary-skill", "blob"]
    server = stdio_server(entry["command"], entry["args"], None, id="hub", label="hub")
    with anyio.fail_after(20):
        async with server:
            [resource] = await server.resources()
            text = await server.read_text(resource.uri)
    assert (resource.name, resource.description) == ("blob", "Remote skill blob.")
    assert text == "Instructions of blob.\ufffd"


async def test_a_remote_skill_read_from_its_resource(server_entry: Any) -> None:
    entry = server_entry("hub", (), ("remote-one",))
    hub = McpServerCap(stdio_server(entry["command"], entry["args"], None, id="hub", label="hub"))
    with anyio.fail_after(20):
        skill = await hub.read_skill("remote-one")
    assert (skill.name, skill.description, skill.source) == (
        "remote-one",
        "Remote skill remote-one.",
        "hub",
    )
    assert skill.instructions == "Instructions of remote-one."
    assert skill.directory is None
    with anyio.fail_after(20), pytest.raises(SkillNotFoundError) as missing:
        await hub.read_skill("nope")
    assert missing.value.name == "nope"


async def test_a_remote_skill_has_no_reference_files(server_entry: Any) -> None:
    from skill_conformance.reference.errors import ReferenceNotFoundError
    from skill_conformance.reference.registry import ExtensionRegistry

    entry = server_entry("hub", (), ("remote-one",))
    registry = ExtensionRegistry()
    registry.register(
        McpServerCap(stdio_server(entry["command"], entry["args"], None, id="hub", label="hub"))
    )
    with anyio.fail_after(20):
        resolved = await registry.resolve_uri("skill://remote-one")
        with pytest.raises(ReferenceNotFoundError) as missing:
            await registry.resolve_uri("skill://remote-one/references/x.md")
    assert (resolved.skill.name, resolved.text) == ("remote-one", "Instructions of remote-one.")
    assert (missing.value.skill, missing.value.path) == ("remote-one", "references/x.md")
