"""A skill MCP server that cannot be used costs only its own tools, once, and leaves no process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from reference_helpers import agent_run, write_skill

from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import SkillPool
from skill_conformance.runtime.servers import pid_alive

pytestmark = pytest.mark.anyio


def _starts(log: Path) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [r["label"] for r in map(json.loads, lines) if r["event"] == "start"]


def _pids(log: Path) -> set[int]:
    lines = log.read_text().splitlines() if log.exists() else []
    return {int(r["pid"]) for r in map(json.loads, lines)}


def _crashing(server_entry: Any, label: str) -> dict[str, Any]:
    entry = server_entry(label)
    return {**entry, "args": [*entry["args"], "--mode", "crash"]}


async def test_a_dead_server_fails_no_run_and_is_reported_once(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path
) -> None:
    make_skill("alpha", mcp_servers={"first": server_entry("first")})
    make_skill("broken", mcp_servers={"dead": _crashing(server_entry, "dead")})
    make_skill("gone", mcp_servers={"nowhere": {"command": str(skills_dir / "no-such-server")}})
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    with anyio.fail_after(30):
        async with manager:
            assert _starts(mcp_log) == ["first", "dead"]
            for _ in range(2):
                run = await agent_run([manager], ("alpha__mcp__echo", {"text": "hi"}))
                assert run.result == "first:echo:hi"
                assert run.offered[0] == ["alpha__mcp__echo", "healthy__tool__loads"]
    assert _starts(mcp_log) == ["first", "dead"], "a failed server was tried again"
    assert len(manager.problems) == 2, manager.problems
    dead, gone = manager.problems
    assert "'broken'" in dead
    assert "'dead'" in dead
    assert "its tools are not offered" in dead
    assert "'gone'" in gone
    assert "'nowhere'" in gone
    assert not any(pid_alive(pid) for pid in _pids(mcp_log))


async def test_a_silent_server_is_given_up_within_the_startup_timeout(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path, monkeypatch: Any
) -> None:
    import skill_conformance.reference.mcp_client as mcp_client

    monkeypatch.setattr(mcp_client, "STARTUP_TIMEOUT", 1.0)
    entry = server_entry("mute")
    make_skill(
        "silent", mcp_servers={"mute": {**entry, "args": [*entry["args"], "--mode", "hang"]}}
    )
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    with anyio.fail_after(20):
        run = await agent_run([manager], ("healthy__tool__loads", {"s": "[1]"}))
    assert run.result == [1]
    assert run.offered[0] == ["healthy__tool__loads"]
    assert any("'mute'" in problem for problem in manager.problems), manager.problems
    with anyio.fail_after(10):
        while any(pid_alive(pid) for pid in _pids(mcp_log)):
            await anyio.sleep(0.05)


async def test_a_silent_server_whose_caller_gives_up_first_is_given_up_once_and_reported(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path
) -> None:
    """The caller stops waiting before the startup bound: the server is not tried again."""
    entry = server_entry("mute")
    make_skill(
        "silent", mcp_servers={"mute": {**entry, "args": [*entry["args"], "--mode", "hang"]}}
    )
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    manager = SkillManagerCap(load_skills(skills_dir).skills.values(), startup_timeout=60.0)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as callers:
            callers.start_soon(agent_run, [manager], ("healthy__tool__loads", {"s": "[1]"}))
            while not _starts(mcp_log):  # the caller gives up once the server has started
                await anyio.sleep(0.02)
            callers.cancel_scope.cancel()
    assert [p for p in manager.problems if "'mute'" in p and "cancelled" in p], manager.problems
    with anyio.fail_after(5):  # not the 60 s the server was given to start
        run = await agent_run([manager], ("healthy__tool__loads", {"s": "[1]"}))
    assert run.result == [1]
    assert run.offered[0] == ["healthy__tool__loads"]
    assert _starts(mcp_log) == ["mute"], "the server was tried again"
    assert len(manager.problems) == 1, manager.problems
    with anyio.fail_after(10):
        while any(pid_alive(pid) for pid in _pids(mcp_log)):
            await anyio.sleep(0.05)


async def test_the_pool_reports_problems_found_after_it_was_built(
    skills_dir: Path, make_skill: Any, server_entry: Any
) -> None:
    make_skill("broken", mcp_servers={"dead": _crashing(server_entry, "dead")})
    pool = SkillPool(skills_dir)
    await pool.start()
    assert pool.problems == []
    with anyio.fail_after(20):
        async with pool.manager:
            pass
    assert [p for p in pool.problems if "'dead'" in p], pool.problems
    await pool.rebuild()
    assert pool.problems == [], "a rebuild starts the problems of its manager afresh"
    await pool.close()


async def test_an_import_that_hangs_does_not_stall_the_event_loop(
    skills_dir: Path, make_skill: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = tmp_path / "release"
    (tmp_path / "sc_iso_stall.py").write_text(
        f"import os, time\nwhile not os.path.exists({str(release)!r}):\n    time.sleep(0.02)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    make_skill("sleeper", tools=[{"import_path": "sc_iso_stall:tool"}])
    pool = SkillPool(skills_dir, import_timeout=1.0)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.05)
            ticks += 1

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(tick)
            with anyio.fail_after(10):
                await pool.start()
            group.cancel_scope.cancel()
    finally:
        release.write_text("released")
    assert ticks >= 10, f"the event loop ran {ticks} times while the import hung for 1 s"
    assert any("did not finish within 1 s" in p for p in pool.problems), pool.problems
    await pool.close()


_MISBEHAVES = Path(__file__).resolve().parents[1] / "misbehaving" / "mcp_misbehaves.py"


@pytest.mark.parametrize("do", ["mute-listing", "exits", "not-mcp"])
async def test_a_server_that_misbehaves_after_starting_is_given_up_once_and_reported(
    skills_dir: Path, make_skill: Any, server_entry: Any, mcp_log: Path, tmp_path: Path, do: str
) -> None:
    """Its listing never finishes (no answer), it exits at once, or it never speaks MCP.

    The first run pays at most the startup bound (10 s) for it, once; every later listing and
    the healthy skills' tools cost nothing more; one problem line names it; it is stopped.
    """
    pids = tmp_path / "pids"
    command = [str(_MISBEHAVES), "--do", do, "--pids", str(pids)]
    make_skill("odd", mcp_servers={"peer": {"command": sys.executable, "args": command}})
    make_skill("alpha", mcp_servers={"first": server_entry("first")})
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    with anyio.fail_after(60):
        async with manager:
            began = time.monotonic()
            run = await agent_run([manager], ("healthy__tool__loads", {"s": "[1]"}))
            first = time.monotonic() - began
            assert run.result == [1]
            began = time.monotonic()
            for _ in range(2):
                run = await agent_run([manager], ("alpha__mcp__echo", {"text": "hi"}))
                assert run.result == "first:echo:hi"
                assert run.offered[0] == ["alpha__mcp__echo", "healthy__tool__loads"]
            later = time.monotonic() - began
    assert first < 10 + 5, f"the first run waited {first:.1f} s for the server"
    assert later < 5, f"two later runs waited {later:.1f} s: the server was not given up"
    assert [p for p in manager.problems if "'peer'" in p], manager.problems
    assert len(manager.problems) == 1, manager.problems
    with anyio.fail_after(10):
        while any(pid_alive(int(pid)) for pid in pids.read_text().split()):
            await anyio.sleep(0.05)


@pytest.mark.parametrize(
    ("do", "why"),
    [("huge-line", "it wrote a line of over"), ("not-mcp", "it does not speak MCP on its stdout")],
)
async def test_a_server_writing_what_is_not_mcp_is_given_up_at_once_not_at_the_bound(
    skills_dir: Path, make_skill: Any, server_entry: Any, tmp_path: Path, do: str, why: str
) -> None:
    """One line of 300 MB, or text before any JSON-RPC message: given up when it is read.

    Not when the handshake's or the listing's bound (60 s here) runs out, and nothing of it is
    kept: the healthy skills' tools are offered and callable at once; one problem line says why;
    the server is stopped.
    """
    pids = tmp_path / "pids"
    command = [str(_MISBEHAVES), "--do", do, "--pids", str(pids)]
    make_skill("odd", mcp_servers={"peer": {"command": sys.executable, "args": command}})
    make_skill("alpha", mcp_servers={"first": server_entry("first")})
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    manager = SkillManagerCap(load_skills(skills_dir).skills.values(), startup_timeout=60.0)
    with anyio.fail_after(30):
        async with manager:
            for _ in range(2):
                run = await agent_run([manager], ("alpha__mcp__echo", {"text": "hi"}))
                assert run.result == "first:echo:hi"
                assert run.offered[0] == ["alpha__mcp__echo", "healthy__tool__loads"]
    assert len(manager.problems) == 1, manager.problems
    assert "'peer'" in manager.problems[0]
    assert why in manager.problems[0]
    with anyio.fail_after(10):
        while any(pid_alive(int(pid)) for pid in pids.read_text().split()):
            await anyio.sleep(0.05)


def _host_peak(skills_dir: Path) -> dict[str, Any]:
    script = Path(__file__).resolve().parents[1] / "misbehaving" / "mcp_host_peak.py"
    done = subprocess.run(
        [sys.executable, str(script), str(skills_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def test_a_server_writing_an_endless_line_costs_the_host_a_bounded_memory(
    tmp_path: Path,
) -> None:
    """The host's peak with a server writing one 300 MB line, against one that exits at once.

    What the host holds of the line is bounded by the longest line it reads (16 MiB), so the peak
    differs from the other host's by less than half as much again (the SDK's own reader held the
    line as it came, slowed only by joining each chunk to it, and read on after the server was
    given up: 45 MiB more over the two runs, at a load of 10 on 2 cores; now 18 MiB).
    """
    peaks = {}
    for do in ("exits", "huge-line"):
        skills = tmp_path / do
        command = [str(_MISBEHAVES), "--do", do]
        write_skill(
            skills, "odd", mcp_servers={"peer": {"command": sys.executable, "args": command}}
        )
        write_skill(skills, "healthy", tools=[{"import_path": "json:loads"}])
        hosted = _host_peak(skills)
        assert hosted["offered"] == [["healthy__tool__loads"]] * 2, hosted
        assert [p for p in hosted["problems"] if "'peer'" in p], hosted
        peaks[do] = hosted["peak_kib"]
    grown = (peaks["huge-line"] - peaks["exits"]) / 1024
    assert grown < 24, f"the host grew {grown:.0f} MiB more with the 300 MB line: {peaks}"


async def test_a_tool_module_closing_the_host_streams_costs_only_its_tool(
    skills_dir: Path, make_skill: Any, server_entry: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Its tool is reported and skipped; the healthy skill's tool and MCP tool are still offered."""
    (tmp_path / "sc_closes_streams.py").write_text(
        "import sys\nsys.stdin.close()\nsys.stdout.close()\nsys.stderr.close()\n"
        "def probe():\n    return 'probed'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    before = (sys.stdin, sys.stdout, sys.stderr)
    make_skill("closer", tools=[{"import_path": "sc_closes_streams:probe"}])
    make_skill("healthy", tools=[{"import_path": "json:loads"}])
    make_skill("alpha", mcp_servers={"first": server_entry("first")})
    try:
        manager = SkillManagerCap(load_skills(skills_dir).skills.values())
        with anyio.fail_after(30):
            async with manager:
                run = await agent_run([manager], ("alpha__mcp__echo", {"text": "hi"}))
        streams = (sys.stdin, sys.stdout, sys.stderr)
        closed = [stream for stream in streams if stream.closed]
    finally:
        sys.stdin, sys.stdout, sys.stderr = before  # on the old code: keep pytest going
        sys.modules.pop("sc_closes_streams", None)
    assert run.result == "first:echo:hi"
    assert run.offered[0] == ["alpha__mcp__echo", "healthy__tool__loads"]
    assert streams == before
    assert closed == []
    assert len(manager.problems) == 1, manager.problems
    assert "'closer'" in manager.problems[0]
    assert "closed or replaced sys.stdin" in manager.problems[0]
