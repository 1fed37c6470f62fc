"""The processes of a scenario's world: the suite's test MCP servers, and how to watch them.

A world's skills declare test MCP servers by command (:meth:`Servers.command`), which the
implementation starts; a few scenarios need a server the world starts itself, over HTTP
(:meth:`Servers.serve_over_http`). Every server records its start and stop in the world's
log, which :class:`ServerLog` reads.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.port import ServerCommand
from skill_conformance.testing.mcp_server import COMMAND_ARGS
from skill_conformance.testing.zygote import launch_command

__all__ = ["ServerLog", "Servers", "free_port", "pauses", "pid_alive"]


class Servers:
    """The test MCP servers of one world: their commands, and those the world runs itself.

    Args:
        log: Where the servers record their start and stop.
        zygote: The address of a zygote (:mod:`skill_conformance.testing.zygote`) that the
            commands ask to fork the servers, or ``None``: each server imports ``mcp``.

    """

    def __init__(self, log: Path, zygote: str | None = None) -> None:
        self.log = log
        self.zygote = zygote
        self.http: dict[str, str] = {}
        """The URL of each server :meth:`serve_over_http` started, by label."""
        self._processes: list[subprocess.Popen[bytes]] = []

    def command(
        self,
        label: str,
        *,
        tools: Sequence[str] = (),
        skills: Sequence[str] = (),
        binary_skills: Sequence[str] = (),
        logged: bool = True,
    ) -> ServerCommand:
        """The command starting the test MCP server ``label`` (``logged``: to :attr:`log`).

        ``binary_skills`` are served as bytes (blobs) ending in one byte that is not UTF-8. With
        a zygote, the command is its launcher (:func:`launch_command`); without one, the server
        itself.
        """
        if self.zygote is None:
            command = [sys.executable, *COMMAND_ARGS]
        else:
            command = launch_command(self.zygote)
        args = ["--label", label]
        if logged:
            args += ["--log", str(self.log)]
        for tool in tools:
            args += ["--tool", tool]
        for skill in skills:
            args += ["--skill", skill]
        for skill in binary_skills:
            args += ["--binary-skill", skill]
        return ServerCommand(command=command[0], args=(*command[1:], *args))

    def serve_over_http(
        self, label: str, tools: Sequence[str], header: tuple[str, str] | None = None
    ) -> str:
        """Start the test MCP server ``label`` over streamable HTTP now; return its URL.

        The server is the world's, not the implementation's: it is not in :attr:`log`, and it
        stops at :meth:`stop`. With ``header`` it refuses requests that lack it.
        """
        port = free_port()
        command = self.command(label, tools=tools, logged=False)
        args = [command.command, *command.args, "--http", str(port)]
        if header is not None:
            args += ["--require-header", "=".join(header)]
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        self._processes.append(process)
        _wait_for_port(port, process, timeout=20.0)
        url = f"http://127.0.0.1:{port}/mcp"
        self.http[label] = url
        return url

    def stop(self) -> None:
        """Stop the servers the world started itself."""
        for process in self._processes:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes.clear()


def free_port() -> int:
    """A local TCP port nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    for _ in pauses():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the HTTP test MCP server exited with {process.returncode}"
                ) from None
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the HTTP test MCP server is not listening on port {port}"
                ) from None


@dataclass(frozen=True)
class _Event:
    event: str
    label: str
    pid: int
    """The process the implementation started."""
    server_pid: int
    """The process that served: ``pid`` itself, or the one a zygote forked for it."""


class ServerLog:
    """What the test MCP servers of one world recorded about their own lives."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def events(self) -> list[_Event]:
        """Every start and stop, in the order they happened."""
        if not self.path.exists():
            return []
        events = []
        for line in self.path.read_text().splitlines():
            record = json.loads(line)
            pid = int(record["pid"])
            server_pid = int(record.get("server_pid", pid))
            events.append(_Event(record["event"], record["label"], pid, server_pid))
        return events

    def started(self) -> list[str]:
        """Labels of the servers that started, in order."""
        return [e.label for e in self.events() if e.event == "start"]

    def stopped(self) -> list[str]:
        """Labels of the servers that stopped, in order."""
        return [e.label for e in self.events() if e.event == "stop"]

    def running(self) -> list[str]:
        """Labels of the servers that started and have not stopped, and whose process lives."""
        alive: dict[int, _Event] = {}
        for event in self.events():
            if event.event == "start":
                alive[event.server_pid] = event
            else:
                alive.pop(event.server_pid, None)
        return [e.label for e in alive.values() if pid_alive(e.pid) or pid_alive(e.server_pid)]

    def running_pids(self) -> set[int]:
        """Process ids of the servers that started, have not stopped, and live."""
        alive: set[int] = set()
        for event in self.events():
            (alive.add if event.event == "start" else alive.discard)(event.pid)
        return {pid for pid in alive if pid_alive(pid)}

    def pids(self) -> set[int]:
        """Every process id a server of this world ever had (zygote-forked servers included)."""
        return {pid for e in self.events() for pid in (e.pid, e.server_pid)}


def pauses(first: float = 0.005, longest: float = 0.05) -> Iterator[None]:
    """Sleep at each step of a polling loop, a little longer each time (up to ``longest``).

    Short waits end soon; long ones cost little CPU.
    """
    pause = first
    while True:
        time.sleep(pause)
        pause = min(pause * 2, longest)
        yield


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers signal 0; look at its state where /proc exists.
    if not _PROCFS.exists():
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # reaped since the signal: gone
        return False
    for line in status.splitlines():
        if line.startswith("State:"):
            return "Z" not in line.split(":", 1)[1]
    return True


_PROCFS = Path("/proc/self/status")
