"""The scenario world writes real skills and forgets them again."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from skill_conformance.adapters.import_path import ImportPath
from skill_conformance.runtime import world as world_module
from skill_conformance.runtime.servers import ServerLog, pid_alive
from skill_conformance.runtime.world import SkillDraft, World


def _frontmatter(path: Path) -> dict[str, object]:
    text = path.read_text()
    _, header, _ = text.split("---\n", 2)
    loaded = yaml.safe_load(header)
    assert isinstance(loaded, dict)
    return loaded


def test_skill_md_carries_what_the_steps_said(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.skill("restricted").allowed_tools = ["read"]
    path = world.add_python_tool("restricted", "read")
    world.add_python_tool("restricted", "json:loads")
    world.add_mcp_server("restricted", "server1", ["echo"])
    world.write()
    data = _frontmatter(tmp_path / "skills" / "restricted" / "SKILL.md")
    assert data["allowed-tools"] == ["read"]
    assert data["tools"] == [
        {"type": "python", "import_path": path},
        {"type": "python", "import_path": "json:loads"},
    ]
    servers = data["mcp-servers"]
    assert isinstance(servers, dict)
    assert "--label" in servers["server1"]["args"]
    module, _, function = path.rpartition(":")
    setup = world.setup()
    assert setup.python_path == (world.modules_dir,)
    assert str(world.modules_dir) not in sys.path  # the Setup carries it, no global path
    import_path = ImportPath(setup.python_path)
    import_path.add()
    try:
        assert getattr(importlib.import_module(module), function)() == "restricted:read"
    finally:
        import_path.remove()
    assert module not in sys.modules
    assert str(world.modules_dir) not in sys.path
    world.teardown()


@pytest.mark.parametrize(
    "draft",
    [
        SkillDraft("plain"),
        SkillDraft("wrapped", description="a word " * 40, allowed_tools=[]),
        SkillDraft("quoted", description="key: value # 'single' \"double\"\nnext line\n"),
        SkillDraft("unicode-\u00e9", description="\t tab \x85 nel \u2028 separator \u00fc"),
        SkillDraft("plain-looking", description="null", allowed_tools="3 - x"),
        SkillDraft(
            "full",
            allowed_tools=["read", "server1__echo"],
            tools=["tools_full:read", "json:loads"],
            mcp_servers={"server1": {"command": "/bin/python", "args": ["-S", "/a b/c.py"]}},
        ),
    ],
    ids=lambda draft: draft.name,
)
def test_the_frontmatter_is_the_text_pyyamls_own_emitter_writes(draft: SkillDraft) -> None:
    """libyaml's emitter, faster, is used where PyYAML has it: the SKILL.md text is the same."""
    data = draft.frontmatter()
    own = yaml.dump(data, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True)
    assert draft.render() == f"---\n{own}---\n{draft.body()}\n"
    assert world_module.DUMPER is getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def test_an_empty_allowed_list_is_written_as_empty(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.skill("blocked").allowed_tools = []
    world.skill("open")
    world.write()
    assert _frontmatter(tmp_path / "skills" / "blocked" / "SKILL.md")["allowed-tools"] == []
    assert "allowed-tools" not in _frontmatter(tmp_path / "skills" / "open" / "SKILL.md")
    world.teardown()


def test_removed_skills_leave_the_directory(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.skill("gone")
    world.skill("kept")
    world.write()
    world.remove_skill("gone")
    world.write()
    assert sorted(p.name for p in world.skills_dir.iterdir()) == ["kept"]
    world.teardown()


def test_server_log_orders_and_liveness(tmp_path: Path) -> None:
    log = tmp_path / "mcp.log"
    log.write_text(
        '{"event": "start", "label": "a", "pid": 999999991}\n'
        '{"event": "start", "label": "b", "pid": 999999992}\n'
        '{"event": "stop", "label": "b", "pid": 999999992}\n'
    )
    servers = ServerLog(log)
    assert servers.started() == ["a", "b"]
    assert servers.stopped() == ["b"]
    assert servers.running() == []  # a's pid does not exist


def test_a_skill_whose_name_prefixes_another_gets_its_own_tool_module(tmp_path: Path) -> None:
    world = World(tmp_path)
    longer = world.add_python_tool("data-extra", "read")
    shorter = world.add_python_tool("data", "read")
    assert longer.partition(":")[0] != shorter.partition(":")[0]
    assert world.add_python_tool("data", "write").partition(":")[0] == shorter.partition(":")[0]


def test_files_written_as_they_are_stay_through_write(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.skill("described")
    raw = world.skill_file_bytes("raw", b"\xef\xbb\xbf---\r\nname: raw\r\n---\r\n")
    nested = world.skill_file_bytes("described/assets/template", b"---\n---\n")
    folder = world.skill_file_folder("folder")
    pipe = world.skill_file_pipe("pipe")
    link = world.skill_file_link("link", "/dev/zero")
    stray = world.stray_file("README.md")
    empty = world.empty_folder("empty")
    world.write()
    assert raw.read_bytes() == b"\xef\xbb\xbf---\r\nname: raw\r\n---\r\n"
    assert nested.read_bytes() == b"---\n---\n"
    assert (tmp_path / "skills" / "described" / "SKILL.md").is_file()
    assert folder.is_dir()
    assert pipe.is_fifo()
    assert link.is_symlink()
    assert str(link.readlink()) == "/dev/zero"
    assert stray.is_file()
    assert empty.is_dir()
    world.teardown()


def test_a_string_allowed_tools_is_written_as_the_string(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.skill("restricted").allowed_tools = "read, list"
    world.write()
    assert _frontmatter(tmp_path / "skills" / "restricted" / "SKILL.md")["allowed-tools"] == (
        "read, list"
    )
    world.teardown()


def test_release_ends_a_read_stuck_on_a_pipe(tmp_path: Path) -> None:
    world = World(tmp_path)
    pipe = world.skill_file_pipe("piped")
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_bytes()), daemon=True)
    reader.start()
    reader.join(0.5)
    assert reader.is_alive()  # opening a pipe nobody writes to blocks
    world.release()
    reader.join(5.0)
    assert not reader.is_alive()
    assert read == [b""]
    world.teardown()


_PARENT = """
import sys, time
from pathlib import Path
from skill_conformance.runtime.world import World
world = World(Path(sys.argv[1]))
world.servers.serve_over_http("remote", ["echo"])
print(world.servers._processes[0].pid, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_the_http_server_stops_when_the_run_that_started_it_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert parent.stdout is not None
        server = int(parent.stdout.readline())
        assert pid_alive(server)
        parent.kill()  # SIGKILL: no clean-up of its own runs
        parent.wait()
        deadline = time.monotonic() + 10
        while pid_alive(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not pid_alive(server), "the HTTP test server outlived the run that started it"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_process_reaped_between_the_signal_and_its_status_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Signal 0 answered, then the process was reaped before /proc/PID/status was read (seen once
    # in a run, as a scenario errored with FileNotFoundError): it is gone, not an error.
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    monkeypatch.setattr(os, "kill", lambda pid, sig: None)
    assert not pid_alive(process.pid)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_liveness_of_the_living_and_of_a_zombie() -> None:
    assert pid_alive(os.getpid())
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while Path(f"/proc/{process.pid}/status").exists() and time.monotonic() < deadline:
        if "Z" in Path(f"/proc/{process.pid}/status").read_text().split("State:")[1][:4]:
            break
        time.sleep(0.01)
    assert not pid_alive(process.pid), "an exited, unreaped process counts as alive"
    process.wait()
    assert not pid_alive(process.pid)
