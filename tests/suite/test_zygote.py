"""The zygote forks real test MCP servers that live and die with the process the client started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skill_conformance.runtime.world import ServerLog, pid_alive
from skill_conformance.testing.zygote import Zygote

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
    address: str | None, log: Path, *extra: str, env: dict[str, str] | None = None, cwd: Path
) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "skill_conformance.testing.mcp_server", "--label", "z"]
    command += ["--log", str(log), *extra]
    if address is not None:
        command += ["--zygote", address]
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
    env = {**os.environ, "SC_ZYGOTE_PROBE": "from-the-launcher"}
    process = _launch(zygote.address, log, "--tool", "getenv", env=env, cwd=tmp_path)
    result = _handshake(process)
    assert isinstance(result, dict)
    assert result["serverInfo"]["name"] == "z"
    assert _getenv(process, "SC_ZYGOTE_PROBE") == "z:getenv:from-the-launcher"
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
    process = _launch(zygote.address, tmp_path / "mcp.log", "--mode", "crash", cwd=tmp_path)
    assert process.wait(10) == 3


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
    process = _launch(str(tmp_path / "nothing-listens"), log, "--tool", "getenv", cwd=tmp_path)
    _handshake(process)
    assert _getenv(process, "SC_UNSET_FOR_SURE") == "z:getenv:"
    pid, server_pid = _started(log)
    assert pid == server_pid == process.pid
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(20) == 0
