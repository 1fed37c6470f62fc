"""The zygote forks real test MCP servers that live and die with the process the client started."""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from skill_conformance.runtime.servers import ServerLog, pid_alive
from skill_conformance.runtime.world import World
from skill_conformance.testing.launcher import HEADER
from skill_conformance.testing.zygote import Zygote, launch_command, native_launcher

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the zygote forks")


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    owned = Zygote()
    yield owned
    owned.stop()


@pytest.fixture(scope="module")
def compiled(zygote: Zygote) -> Path:
    """The launcher the zygote compiled (``launcher.c``), once it is in place."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler: the zygote builds no launcher, the Python one serves")
    launcher = native_launcher(zygote.address, wait=60)
    assert launcher is not None, "not built within 60 s"
    return launcher


@pytest.fixture(params=["python", "compiled"])
def launcher(request: pytest.FixtureRequest) -> Path | None:
    """Which launcher starts the servers: ``None`` for the Python one, else the compiled one."""
    return request.getfixturevalue("compiled") if request.param == "compiled" else None


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
    launcher: Path | None = None,
) -> subprocess.Popen[str]:
    """Start the test server as the world's commands do: through ``launcher`` when given."""
    command = [*launch_command(address, launcher), "--label", "z", "--log", str(log), *extra]
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
    zygote: Zygote, tmp_path: Path, launcher: Path | None
) -> None:
    log = tmp_path / "mcp.log"
    env = {**os.environ, "SC_ZYGOTE_PROBE": "from-the-launcher \u00e9"}
    process = _launch(
        zygote.address, log, "--tool", "getenv", env=env, cwd=tmp_path, launcher=launcher
    )
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
    zygote: Zygote, tmp_path: Path, how: signal.Signals, launcher: Path | None
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--tool", "echo", cwd=tmp_path, launcher=launcher)
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
    zygote: Zygote, tmp_path: Path, launcher: Path | None
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--mode", "crash", cwd=tmp_path, launcher=launcher)
    assert process.wait(10) == 3


def test_a_launcher_dies_of_the_signal_that_killed_its_server(
    zygote: Zygote, tmp_path: Path, launcher: Path | None
) -> None:
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--mode", "hang", cwd=tmp_path, launcher=launcher)
    _, server_pid = _started(log)
    os.kill(server_pid, signal.SIGKILL)
    assert process.wait(10) == -signal.SIGKILL


def test_an_environment_that_is_not_utf8_is_still_served(
    zygote: Zygote, tmp_path: Path, launcher: Path | None
) -> None:
    """marshal cannot carry bytes that are not UTF-8: the compiled launcher hands over to the
    Python one, which serves through the zygote all the same."""
    log = tmp_path / "mcp.log"
    env = {**os.environ, "SC_NOT_UTF8": b"caf\xe9", "SC_ZYGOTE_PROBE": "probe"}
    process = _launch(
        zygote.address, log, "--tool", "getenv", env=env, cwd=tmp_path, launcher=launcher
    )
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


def test_a_compiler_that_takes_its_time_holds_up_no_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servers are forked while the launcher is built; stopping the zygote stops the build."""
    marker = f"sc-slow-compiler-{os.getpid()}"
    sleeper = shlex.join([sys.executable, "-c", "import time; time.sleep(30)", marker])
    monkeypatch.setenv("CC", sleeper)
    owned = Zygote()
    try:
        log = tmp_path / "mcp.log"
        began = time.monotonic()
        process = _launch(owned.address, log, "--tool", "echo", cwd=tmp_path)
        _handshake(process)
        assert time.monotonic() - began < 10
        assert native_launcher(owned.address) is None
        assert any(marker in line for line in _command_lines())
    finally:
        began = time.monotonic()
        owned.stop()
    assert time.monotonic() - began < 5
    assert not any(marker in line for line in _command_lines())


def _command_lines() -> list[str]:
    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:
                continue
    return lines


def test_the_worlds_server_commands_run_the_compiled_launcher(
    zygote: Zygote, compiled: Path, tmp_path: Path
) -> None:
    world = World(tmp_path, zygote=zygote.address)
    command = world.servers.command("w", tools=["getenv"])
    assert command.command == str(compiled)
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


def test_the_compiled_launcher_refuses_a_command_line_it_cannot_read(compiled: Path) -> None:
    for arguments in ([], ["address"], ["address", "x", "python"], ["address", "2", "python"]):
        done = subprocess.run(
            [str(compiled), *arguments], capture_output=True, text=True, timeout=10, check=False
        )
        assert done.returncode == 2, arguments
        assert done.stderr == "usage: launcher ADDRESS SKIP COMMAND...\n"


def test_stopping_the_zygote_stops_the_servers_it_forked(
    tmp_path: Path, launcher: Path | None
) -> None:
    owned = Zygote()
    log = tmp_path / "mcp.log"
    process = _launch(owned.address, log, "--mode", "hang", cwd=tmp_path, launcher=launcher)
    _, server_pid = _started(log)
    owned.stop()
    assert not pid_alive(server_pid)
    assert process.wait(10) != 0 or ServerLog(log).stopped() == ["z"]


def test_without_a_zygote_the_command_serves_on_its_own(
    tmp_path: Path, launcher: Path | None
) -> None:
    log = tmp_path / "mcp.log"
    nothing = str(tmp_path / "nothing-listens")
    process = _launch(nothing, log, "--tool", "getenv", cwd=tmp_path, launcher=launcher)
    _handshake(process)
    assert _getenv(process, "SC_UNSET_FOR_SURE") == "z:getenv:"
    pid, server_pid = _started(log)
    assert pid == server_pid == process.pid
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(20) == 0


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the launcher's /proc")
def test_a_launcher_keeps_none_of_the_stdio_it_handed_over(
    zygote: Zygote, tmp_path: Path, launcher: Path | None
) -> None:
    """The server's pipes end with the server, as for a process the client started itself."""
    log = tmp_path / "mcp.log"
    process = _launch(zygote.address, log, "--tool", "echo", cwd=tmp_path, launcher=launcher)
    _handshake(process)
    held = {fd: os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in (0, 1, 2)}
    assert held == dict.fromkeys((0, 1, 2), os.devnull)
