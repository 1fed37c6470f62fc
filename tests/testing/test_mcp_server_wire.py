"""What the suite's test MCP server says on the wire, request by request, held by a snapshot.

Implementations under test (the real codebase, outside ones) see the server only through these
messages, and their recorded verdicts depend on them: the transcript was first taken from the
``FastMCP`` server this one replaced, and must not move. It covers the handshake, tools (with and
without text, the environment tool, an unknown tool, a wrong argument), resources (text, bytes,
unknown), prompts and resource templates, over stdio and over streamable HTTP.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from skill_conformance.testing.mcp_server import COMMAND_ARGS

ARGS = ["--label", "lab", "--tool", "echo", "--tool", "getenv", "--skill", "sk"]
ARGS += ["--binary-skill", "bin"]
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
    ("tools/call", {"name": "echo", "arguments": {}}),
    ("tools/call", {"name": "getenv", "arguments": {"text": "SC_WIRE"}}),
    ("tools/call", {"name": "nosuch", "arguments": {}}),
    ("tools/call", {"name": "echo", "arguments": {"text": 3}}),
    ("resources/list", {}),
    ("resources/read", {"uri": "skill-resource://lab/sk"}),
    ("resources/read", {"uri": "skill-resource://lab/bin"}),
    ("resources/read", {"uri": "skill-resource://lab/none"}),
    ("prompts/list", {}),
    ("resources/templates/list", {}),
]
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "wire", "version": "1"},
}
ACCEPT = {"Accept": "application/json, text/event-stream"}
Exchange = Callable[[dict[str, Any]], dict[str, Any] | None]


def _transcript(exchange: Exchange) -> list[dict[str, Any]]:
    answers = [exchange({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE})]
    exchange({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number, (method, params) in enumerate(REQUESTS, start=1):
        answers.append(
            exchange({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        )
    shown = [answer for answer in answers if answer is not None]
    shown[0]["result"]["serverInfo"]["version"] = "<the mcp SDK's version>"
    return shown


@pytest.fixture
def environment() -> dict[str, str]:
    return {**os.environ, "SC_WIRE": "seen"}


def test_over_stdio(snapshot: SnapshotAssertion, environment: dict[str, str]) -> None:
    command = [sys.executable, *COMMAND_ARGS, *ARGS]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
    ) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        stdin, stdout = server.stdin, server.stdout

        def exchange(message: dict[str, Any]) -> dict[str, Any] | None:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()
            return json.loads(stdout.readline()) if "id" in message else None

        transcript = _transcript(exchange)
        stdin.close()
    assert transcript == snapshot


@pytest.fixture
def http_url(environment: dict[str, str]) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    command = [sys.executable, *COMMAND_ARGS, *ARGS, "--http", str(port)]
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, env=environment) as server:
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.terminate()


def test_over_streamable_http(snapshot: SnapshotAssertion, http_url: str) -> None:
    session: dict[str, str] = {}

    def exchange(message: dict[str, Any]) -> dict[str, Any] | None:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        headers.update(session)
        request = urllib.request.Request(http_url, json.dumps(message).encode(), headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            if "mcp-session-id" in response.headers:
                session["mcp-session-id"] = response.headers["mcp-session-id"]
            body = response.read().decode()
        data = [line[len("data: ") :] for line in body.splitlines() if line.startswith("data: ")]
        return json.loads(data[-1]) if "id" in message else None

    assert _transcript(exchange) == snapshot
