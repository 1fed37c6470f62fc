"""A real MCP server for the conformance suite (stdio, or streamable HTTP), written with ``mcp``.

It offers the tools and skills (as MCP resources) named on its command line and records its own
start and stop as JSON lines in a log, so that scenarios can observe lifecycle and order on real
processes::

    python -m skill_conformance.testing.mcp_server --label server1 --tool echo --log mcp.log

Every tool takes an optional ``text`` and returns ``"{label}:{tool}:{text}"`` (``"{label}:{tool}"``
without text), except a tool named ``getenv``: it returns ``"{label}:getenv:{value}"``, the value of
the environment variable named by ``text`` (empty when unset). Each ``--skill NAME`` is a resource
named ``NAME`` with the description ``"Remote skill NAME."`` and the content
``"Instructions of NAME."``.

Each ``--binary-skill NAME`` is such a resource served as bytes (a blob): the same text in UTF-8,
then one byte that is not UTF-8 (``0xff``).

``--http PORT`` serves streamable HTTP on ``http://127.0.0.1:PORT/mcp`` instead of stdio; with
``--require-header NAME=VALUE`` every request lacking that header is refused with status 401.

``--mode`` makes it misbehave on purpose: ``crash`` exits before serving, ``hang`` never answers.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # The SDK is imported when serving: ``crash`` and ``hang`` start in no time.
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.resources import Resource
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["main", "remote_skill_instructions"]


def remote_skill_instructions(name: str) -> str:
    """The content the server gives for the skill resource ``name``."""
    return f"Instructions of {name}."


def _record(log: Path | None, event: str, label: str) -> None:
    if log is None:
        return
    line = json.dumps({"event": event, "label": label, "pid": os.getpid(), "t": time.time()})
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def _tool(label: str, name: str) -> Callable[[str], str]:
    def tool(text: str = "") -> str:
        if name == "getenv":
            return f"{label}:{name}:{os.environ.get(text, '')}"
        return f"{label}:{name}:{text}" if text else f"{label}:{name}"

    tool.__name__ = name
    tool.__doc__ = f"Tool {name} of the test server {label}."
    return tool


def build_server(
    label: str, tools: Sequence[str], skills: Sequence[str], binary_skills: Sequence[str] = ()
) -> FastMCP:
    """The FastMCP server offering ``tools`` and the skill resources ``skills``."""
    from mcp.server.fastmcp import FastMCP

    server = FastMCP(name=label, log_level="ERROR")
    for name in tools:
        server.add_tool(_tool(label, name), name=name)
    for name in skills:
        server.add_resource(_skill_resource(label, name, binary=False))
    for name in binary_skills:
        server.add_resource(_skill_resource(label, name, binary=True))
    return server


def _skill_resource(label: str, name: str, *, binary: bool) -> Resource:
    """The resource of skill ``name``: its text, or (``binary``) its bytes and a non-UTF-8 byte."""
    from mcp.server.fastmcp.resources import BinaryResource, TextResource

    uri = f"skill-resource://{label}/{name}"
    description = f"Remote skill {name}."
    text = remote_skill_instructions(name)
    if binary:
        return BinaryResource(
            uri=uri,  # type: ignore[arg-type]
            name=name,
            description=description,
            mime_type="application/octet-stream",
            data=text.encode() + b"\xff",
        )
    return TextResource(
        uri=uri,  # type: ignore[arg-type]
        name=name,
        description=description,
        mime_type="text/markdown",
        text=text,
    )


class _RequireHeader:
    """ASGI middleware refusing, with 401, every HTTP request without ``name: value``."""

    def __init__(self, app: ASGIApp, name: str, value: str) -> None:
        self.app, self.name, self.value = app, name.lower().encode(), value.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (self.name, self.value) not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"missing header"})
            return
        await self.app(scope, receive, send)


def _serve_http(server: FastMCP, port: int, header: str | None) -> None:
    import uvicorn

    app: ASGIApp = server.streamable_http_app()
    if header is not None:
        name, _, value = header.partition("=")
        app = _RequireHeader(app, name, value)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")


def main(argv: list[str] | None = None) -> int:
    """Serve over stdio (until stdin closes) or HTTP (``--http``); SIGTERM stops either."""
    parser = argparse.ArgumentParser(prog="skill_conformance.testing.mcp_server")
    parser.add_argument("--label", required=True)
    parser.add_argument("--tool", action="append", default=[])
    parser.add_argument("--skill", action="append", default=[])
    parser.add_argument("--binary-skill", action="append", default=[])
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--require-header", metavar="NAME=VALUE")
    parser.add_argument("--log", type=Path)
    parser.add_argument("--mode", choices=["ok", "crash", "hang"], default="ok")
    args = parser.parse_args(argv)

    _record(args.log, "start", args.label)
    if args.mode == "crash":
        _record(args.log, "stop", args.label)
        return 3

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        if args.mode == "hang":
            while True:
                time.sleep(3600)
        server = build_server(args.label, args.tool, args.skill, args.binary_skill)
        if args.http is None:
            server.run("stdio")
        else:
            _serve_http(server, args.http, args.require_header)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        _record(args.log, "stop", args.label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
