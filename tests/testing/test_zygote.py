"""The zygote forks real test MCP servers that live and die with the process the client started."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from skill_conformance.runtime.servers import ServerLog, pid_alive
from skill_conformance.runtime.world import World
from skill_conformance.testing.launcher import HEADER
from skill_conformance.testing.zygote import Zygote, launch_command

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the zygote forks")


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    owned = Zygote()
    yield owned
    owned.stop()


_LAUNCHED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _reap() -> Iterator[None]:
    yield
    while _LAUNCHED:
        process = _LAUNCHED.pop()
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


def _launch(
    address: str,
    log: Path,
    *extra: str,
    env: Mapping[str, str | bytes] | None = None,
    cwd: Path,
) -> subprocess.Popen[str]:
    """Start the test server as the world's commands do."""
    command = [*launch_command(address), "--label", "z", "--log", str(log), *extra]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    _LAUNCHED.append(process)
    return process


def _ask(process: subprocess.Popen[str], id_: int, method: str, params: object) -> object:
    assert process.stdin is not None
    assert process.stdout is not None
    message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    assert answer.get("id") == id_, answer
    return answer["result"]


def _handshake(process: subprocess.Popen[str]) -> object:
    info = {"name": "test", "version": "0"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}
    result = _ask(process, 1, "initialize", params)
    assert process.stdin is not None
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    process.stdin.write("\n")
    process.stdin.flush()
    return result


def _getenv(process: subprocess.Popen[str], name: str) -> str:
    result = _ask(process, 2, "tools/call", {"name": "getenv", "arguments": {"text": name}})
    assert isinstance(result, dict)
    return str(result["content"][0]["text"])


def _until(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.02)
    assert condition(), f"not within {timeout} s"  # type: ignore[operator]


def _started(log: Path) -> tuple[int, int]:
    _until(lambda: ServerLog(log).started())
    event = ServerLog(log).events()[0]
    return event.pid, event.server_pid


def test_a_forked_server_serves_the_launchers_stdio_with_its_environment(
    zygote: Zygote, tmp_path: Path
) -> None:
    log = tmp_path / "mcp.log"
    env = {**os.environ, "SC_ZYGOTE_PROBE": "from-the-launcher \u00e9"}
    process = _launch(zygote.address, log, "--tool", "getenv", env=env, cwd=tmp_path)
    result = _handshake(process)
    assert isinstance(result, dict)
    assert result["serverInfo"]["name"] == "z"
    assert _getenv(process, "SC_ZYGOTE_PROBE") == "z:getenv:from-the-launcher \u00e9"
    pid, server_pid = _started(log)
    assert pid == process.pid
    assert server_pid != process.pid
    assert pid_alive(server_pid)
    assert process.stdin is not None
    process.stdin.close()  # end of stdio: the server stops, then the launcher, with status 0
    assert process.wait(10) == 0
    _until(lambda: not pid_alive(server_pid))
    assert ServerLog(log).stopped() == ["z"]


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_server_stops_with_its_launcher(
    zygote: Zygote, tmp_path: Path, how: signal.Signals
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--tool", "echo", cwd=tmp_path)
    _handshake(process)
    _, server_pid = _started(log)
    process.send_signal(how)
    status = process.wait(10)
    _until(lambda: not pid_alive(server_pid))
    assert ServerLog(log).running() == []
    if how == signal.SIGTERM:  # passed on: the server stops as it does on SIGTERM, status 0
        assert status == 0
        assert ServerLog(log).stopped() == ["z"]


def test_a_server_that_exits_at_once_gives_its_status_to_the_launcher(
    zygote: Zygote, tmp_path: Path
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--mode", "crash", cwd=tmp_path)
    assert process.wait(10) == 3


def test_a_launcher_dies_of_the_signal_that_killed_its_server(
    zygote: Zygote, tmp_path: Path
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--mode", "hang", cwd=tmp_path)
    _, server_pid = _started(log)
    os.kill(server_pid, signal.SIGKILL)
    assert process.wait(10) == -signal.SIGKILL


def test_an_environment_that_is_not_utf8_is_still_served(zygote: Zygote, tmp_path: Path) -> None:
    """The launcher carries an environment that marshal could not: bytes that are not UTF-8."""
    log = tmp_path / "mcp.log"
    env = {**os.environ, "SC_NOT_UTF8": b"caf\xe9", "SC_ZYGOTE_PROBE": "probe"}
    process = _launch(zygote.address, log, "--tool", "getenv", env=env, cwd=tmp_path)
    _handshake(process)
    assert _getenv(process, "SC_ZYGOTE_PROBE") == "z:getenv:probe"
    pid, server_pid = _started(log)
    assert pid == process.pid
    assert server_pid != pid  # forked by the zygote
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(10) == 0


def test_a_request_the_zygote_cannot_read_leaves_it_no_descriptor(zygote: Zygote) -> None:
    """The zygote drops a malformed request, and with it the descriptors that came along."""
    read_end, write_end = os.pipe()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(zygote.address)
        payload = b"not marshal"
        socket.send_fds(connection, [HEADER.pack(len(payload))], [write_end] * 4)
        connection.sendall(payload)
        os.close(write_end)
        assert connection.recv(64) == b""  # hung up on
    try:
        ready, _, _ = select.select([read_end], [], [], 10)
        assert ready, "the zygote still holds the pipe's write end"
        assert os.read(read_end, 1) == b""
    finally:
        os.close(read_end)


def test_the_worlds_server_commands_go_through_the_zygote(zygote: Zygote, tmp_path: Path) -> None:
    world = World(tmp_path, zygote=zygote.address)
    command = world.servers.command("w", tools=["getenv"])
    assert [command.command, *command.args][: len(launch_command(zygote.address))] == (
        launch_command(zygote.address)
    )
    process = subprocess.Popen(
        [command.command, *command.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    _LAUNCHED.append(process)
    result = _handshake(process)
    assert isinstance(result, dict)
    assert result["serverInfo"]["name"] == "w"
    pid, server_pid = _started(world.mcp_log)
    assert pid == process.pid != server_pid


def test_stopping_the_zygote_stops_the_servers_it_forked(tmp_path: Path) -> None:
    owned = Zygote()
    log = tmp_path / "mcp.log"
    process = _launch(owned.address, log, "--mode", "hang", cwd=tmp_path)
    _, server_pid = _started(log)
    owned.stop()
    assert not pid_alive(server_pid)
    assert process.wait(10) != 0 or ServerLog(log).stopped() == ["z"]


def test_without_a_zygote_the_command_serves_on_its_own(tmp_path: Path) -> None:
    log = tmp_path / "mcp.log"
    nothing = str(tmp_path / "nothing-listens")
    process = _launch(nothing, log, "--tool", "getenv", cwd=tmp_path)
    _handshake(process)
    assert _getenv(process, "SC_UNSET_FOR_SURE") == "z:getenv:"
    pid, server_pid = _started(log)
    assert pid == server_pid == process.pid
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(20) == 0


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the launcher's /proc")
def test_a_launcher_keeps_none_of_the_stdio_it_handed_over(zygote: Zygote, tmp_path: Path) -> None:
    """The server's pipes end with the server, as for a process the client started itself."""
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--tool", "echo", cwd=tmp_path)
    _handshake(process)
    held = {fd: os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in (0, 1, 2)}
    assert held == dict.fromkeys((0, 1, 2), os.devnull)
