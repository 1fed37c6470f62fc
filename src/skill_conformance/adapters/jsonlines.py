"""A language-neutral adapter (``--impl jsonlines``): the implementation is a process on JSON lines.

The command comes from the environment variable ``SKILL_CONFORMANCE_JSONL_CMD`` (split as a shell
would, without a shell), for example ``SKILL_CONFORMANCE_JSONL_CMD="node impl.js"``. The protocol
is in docs/jsonlines-protocol.md: one JSON object per line on the process's stdin (requests) and
stdout (responses); its stderr is kept and its tail shown when it dies.

One process serves the scenarios of a run one after another, as Bowtie's harnesses do. When it
dies, hangs past the scenario timeout or breaks the protocol, that scenario ends *errored*, the
process (and its process group) is killed, and the next scenario starts a fresh one. The process
is stopped when the run ends; none is left behind.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from skill_conformance.port import (
    Ability,
    AgentPath,
    AsyncSkillSystem,
    ErrorKind,
    McpChild,
    ResolvedSkill,
    RunRecord,
    Scope,
    Setup,
    SkillListing,
    SkillSystemError,
)

__all__ = [
    "COMMAND_VARIABLE",
    "PROTOCOL_VERSION",
    "Channel",
    "JsonlinesImplementation",
    "JsonlinesSystem",
    "ProtocolError",
]

COMMAND_VARIABLE = "SKILL_CONFORMANCE_JSONL_CMD"
PROTOCOL_VERSION = 1
HANDSHAKE_TIMEOUT = 60.0
"""Seconds the process may take to start and answer ``hello``."""
_STOP_GRACE = 5.0
_POLL = 0.1
_REQUEST_LIMIT = 3600.0
"""An outer bound only: the suite's scenario timeout cancels a request long before."""


class ProtocolError(RuntimeError):
    """The process broke the protocol, died, or reported a crash; the scenario is errored."""


class Channel:
    """One implementation process and the request/response lines exchanged with it."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
            )
        except OSError as error:
            self._stderr.close()
            raise ProtocolError(f"cannot start {shlex.join(self.command)}: {error}") from None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._next_id = 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="jsonlines-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The process id of the implementation process."""
        return self._process.pid

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self._process.poll() is None

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            self._lines.put(line)
        self._lines.put(None)

    def request(self, op: str, args: Mapping[str, object], timeout: float) -> dict[str, Any]:
        """Send one request and wait (at most ``timeout`` s) for the response with its id."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            line = json.dumps({"id": ident, "op": op, "args": args}) + "\n"
            stdin = self._process.stdin
            assert stdin is not None
            try:
                stdin.write(line.encode())
                stdin.flush()
            except OSError:
                raise self._died(op) from None
            deadline = time.monotonic() + timeout
            while True:
                raw = self._next_line(op, deadline)
                if raw is None:
                    raise self._died(op)
                response = self._parse(op, raw)
                if response.get("id") == ident:
                    return response

    def _next_line(self, op: str, deadline: float) -> bytes | None:
        """The next stdout line; ``None`` once the process is gone.

        A process that exits while a child of its own still holds its stdout gives no end of
        file, so its liveness is checked as well.
        """
        while True:
            try:
                return self._lines.get(timeout=_POLL)
            except queue.Empty:
                if self._process.poll() is not None:
                    try:
                        return self._lines.get(timeout=_POLL)
                    except queue.Empty:
                        return None
                if time.monotonic() > deadline:
                    raise ProtocolError(f"{op}: no response in time") from None

    def _parse(self, op: str, raw: bytes) -> dict[str, Any]:
        try:
            response = json.loads(raw)
        except ValueError:
            text = raw.decode(errors="replace").strip()[:200]
            raise ProtocolError(f"{op}: not a JSON line on stdout: {text!r}") from None
        if not isinstance(response, dict) or ("ok" not in response and "error" not in response):
            raise ProtocolError(f"{op}: a response needs 'id' and 'ok' or 'error': {response!r}")
        return response

    def _died(self, op: str) -> ProtocolError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_STOP_GRACE)
        code = self._process.poll()
        return ProtocolError(
            f"{op}: the implementation process exited (code {code}) without answering"
            f"{self._stderr_tail()}"
        )

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 400))
            tail = self._stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr ends: {' | '.join(tail.splitlines()[-3:])}" if tail else ""

    def stop(self) -> None:
        """End the process: close its stdin, wait a little, then kill its whole process group."""
        stdin = self._process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_STOP_GRACE)
        self.kill()

    def kill(self) -> None:
        """Kill the process group now (the implementation's own children with it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_STOP_GRACE)
        self._reader.join(timeout=_STOP_GRACE)
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(OSError):
            self._stderr.close()


def _command() -> list[str]:
    value = os.environ.get(COMMAND_VARIABLE, "").strip()
    if not value:
        raise ValueError(
            f"set {COMMAND_VARIABLE} to the command that starts the implementation, "
            f'e.g. {COMMAND_VARIABLE}="python impl.py"'
        )
    return shlex.split(value)


class JsonlinesImplementation:
    """An implementation in another process; ``name``, ``version`` and abilities from ``hello``.

    Args:
        command: The command to start; ``SKILL_CONFORMANCE_JSONL_CMD`` when None.

    """

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self.command = list(command) if command is not None else _command()
        self._channel: Channel | None = None
        hello = self._handshake()
        self.name = str(hello.get("name", "jsonlines"))
        self.version = str(hello.get("version", "?"))
        unsupported = hello.get("unsupported") or {}
        if not isinstance(unsupported, dict):
            raise ProtocolError(f"hello: 'unsupported' must be an object, not {unsupported!r}")
        self.unsupported: Mapping[Ability, str] = {
            Ability(ability): str(reason) for ability, reason in unsupported.items()
        }
        atexit.register(self.shutdown)

    def _handshake(self) -> dict[str, Any]:
        channel = Channel(self.command)
        try:
            hello = _value("hello", channel.request("hello", _HELLO, HANDSHAKE_TIMEOUT))
        except BaseException:
            channel.kill()
            raise
        if not isinstance(hello, dict):
            channel.kill()
            raise ProtocolError(f"hello: expected an object, got {hello!r}")
        self._channel = channel
        return hello

    def channel(self) -> Channel:
        """The live process, started (with its handshake) if the last one is gone."""
        if self._channel is None or not self._channel.alive():
            self.discard()
            self._handshake()
        assert self._channel is not None
        return self._channel

    def discard(self) -> None:
        """Kill the current process (after a hang or a broken protocol)."""
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.kill()

    def shutdown(self) -> None:
        """Stop the process at the end of the run."""
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.stop()

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; the process is asked to ``open`` it on ``start``."""
        return JsonlinesSystem(self, setup)


_HELLO = {"protocol": PROTOCOL_VERSION, "suite": "skill-conformance"}


def _value(op: str, response: Mapping[str, Any]) -> Any:
    if "error" in response:
        error = response["error"]
        if not isinstance(error, dict):
            raise ProtocolError(f"{op}: 'error' must be an object, not {error!r}")
        kind, message = str(error.get("kind", "crash")), str(error.get("message", ""))
        try:
            port_kind = ErrorKind(kind)
        except ValueError:
            raise ProtocolError(f"{op}: the implementation reported {kind}: {message}") from None
        raise SkillSystemError(port_kind, message)
    return response["ok"]


def _setup_json(setup: Setup) -> dict[str, object]:
    children: list[dict[str, object]] = []
    for child in setup.children:
        if isinstance(child, McpChild):
            server = child.server
            command = {"command": server.command, "args": list(server.args), "env": server.env}
            children.append({"kind": "mcp", "label": child.label, "server": command})
        else:
            children.append({"kind": "tools", "label": child.label, "tools": list(child.tools)})
    return {
        "skills_dir": str(setup.skills_dir),
        "children": children,
        "skills_tools_provider": setup.skills_tools_provider,
        "workdir": None if setup.workdir is None else str(setup.workdir),
        "python_path": [str(directory) for directory in setup.python_path],
    }


def _strings(op: str, value: object) -> list[str]:
    if not isinstance(value, list):
        raise ProtocolError(f"{op}: expected a list of strings, got {value!r}")
    return [str(item) for item in value]


def _object(op: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"{op}: expected an object, got {value!r}")
    return value


class JsonlinesSystem:
    """One scenario's system, living in the implementation process."""

    def __init__(self, implementation: JsonlinesImplementation, setup: Setup) -> None:
        self._implementation = implementation
        self._setup = setup
        self._channel: Channel | None = None
        self._problems: list[str] = []

    async def _call(self, op: str, **args: object) -> Any:
        channel = self._channel
        if channel is None:
            raise ProtocolError(f"{op}: the system was not opened (start() failed or not called)")
        try:
            response = await asyncio.to_thread(channel.request, op, args, _REQUEST_LIMIT)
        except asyncio.CancelledError:
            # The suite's timeout fired: the process is in an unknown state; end it.
            self._lose()
            raise
        except ProtocolError:
            self._lose()
            raise
        return _value(op, response)

    def _lose(self) -> None:
        if self._channel is not None:
            self._channel = None
            self._implementation.discard()

    async def _refresh_problems(self) -> None:
        self._problems = _strings("problems", await self._call("problems"))

    async def start(self) -> None:  # noqa: D102
        self._channel = await asyncio.to_thread(self._implementation.channel)
        await self._call("open", setup=_setup_json(self._setup))
        await self._call("start")
        await self._refresh_problems()

    async def tool_names(self) -> Sequence[str]:  # noqa: D102
        return _strings("tool_names", await self._call("tool_names"))

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:  # noqa: D102
        record = _object("run_tool", await self._call("run_tool", name=name, arguments=arguments))
        offered = tuple(_strings("run_tool", record.get("offered")))
        return RunRecord(offered=offered, result=record.get("result"))

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:  # noqa: D102
        return str(await self._call("load_skill", skill=skill, arguments=arguments))

    async def list_skills(self) -> Sequence[SkillListing]:  # noqa: D102
        entries = await self._call("list_skills")
        if not isinstance(entries, list):
            raise ProtocolError(f"list_skills: expected a list, got {entries!r}")
        listings = []
        for entry in entries:
            item = _object("list_skills", entry)
            uri = item.get("uri")
            listings.append(
                SkillListing(
                    name=str(item["name"]),
                    description=str(item.get("description", "")),
                    source=str(item.get("source", "")),
                    uri=None if uri is None else str(uri),
                )
            )
        return listings

    async def resolve_uri(self, uri: str) -> ResolvedSkill:  # noqa: D102
        resolved = _object("resolve_uri", await self._call("resolve_uri", uri=uri))
        return ResolvedSkill(name=str(resolved["name"]), instructions=str(resolved["instructions"]))

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:  # noqa: D102
        names = await self._call("registry_skill_names", scope=scope.value)
        return _strings("registry_skill_names", names)

    async def rebuild(self) -> None:  # noqa: D102
        await self._call("rebuild")
        await self._refresh_problems()

    async def enter(self) -> None:  # noqa: D102
        await self._call("enter")

    async def exit(self) -> None:  # noqa: D102
        await self._call("exit")

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:  # noqa: D102
        return _strings("agent_tool_names", await self._call("agent_tool_names", path=path.value))

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:  # noqa: D102
        return str(await self._call("agent_load_skill", path=path.value, skill=skill))

    def problems(self) -> Sequence[str]:  # noqa: D102
        return list(self._problems)

    async def close(self) -> None:  # noqa: D102
        if self._channel is None:
            return
        try:
            await self._call("close")
        finally:
            self._channel = None
