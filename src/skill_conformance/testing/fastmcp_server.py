"""The test MCP server itself: a FastMCP server offering the tools and skills it is told to.

:mod:`skill_conformance.testing.mcp_server` is the command that runs it (and documents it); this
module imports the ``mcp`` SDK, so only a process that serves imports it: the command when it
serves on its own, or the zygote (:mod:`skill_conformance.testing.zygote`) once for all.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.resources import BinaryResource, Resource, TextResource
from starlette.types import ASGIApp, Receive, Scope, Send

from skill_conformance.testing.mcp_server import parser, remote_skill_instructions

__all__ = ["build_server", "serve", "serve_argv", "warm_up"]


def _record(log: str | None, event: str, label: str, pid: int) -> None:
    """Append ``event`` to the log: ``pid`` the client started, ``server_pid`` serves."""
    if log is None:
        return
    line = json.dumps(
        {"event": event, "label": label, "pid": pid, "server_pid": os.getpid(), "t": time.time()}
    )
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


def _stop_when_orphaned(interval: float = 0.2) -> None:
    """SIGTERM this process as soon as its parent is gone (checked on a daemon thread).

    An HTTP server has no stdin to lose, so without this it would outlive a run killed with
    SIGKILL.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def _serve_http(server: FastMCP, port: int, header: str | None) -> None:
    import uvicorn

    _stop_when_orphaned()

    app: ASGIApp = server.streamable_http_app()
    if header is not None:
        name, _, value = header.partition("=")
        app = _RequireHeader(app, name, value)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")


def serve(args: argparse.Namespace, pid: int | None = None) -> int:
    """Serve as ``args`` say, over stdio (until stdin closes) or HTTP; SIGTERM stops either.

    ``pid`` is the process the client started, logged with each event (default: this one).
    """
    client_pid = os.getpid() if pid is None else pid
    _record(args.log, "start", args.label, client_pid)
    if args.mode == "crash":
        _record(args.log, "stop", args.label, client_pid)
        return 3

    stopped = False

    def stop() -> None:
        nonlocal stopped
        if not stopped:
            stopped = True
            _record(args.log, "stop", args.label, client_pid)

    def on_term(signum: int, frame: FrameType | None) -> None:
        # Exit here, not by raising: the stdio transport reads stdin on a worker thread that no
        # cancellation reaches, so an unwinding event loop would wait for stdin to close.
        stop()
        sys.stdout.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        if args.mode == "hang":
            # Read every request and answer none, until the client closes stdin, as a stdio
            # server stuck in its handshake does (SIGTERM stops it sooner).
            while os.read(0, 65536):
                pass
            return 0
        server = build_server(args.label, args.tool, args.skill, args.binary_skill)
        if args.http is None:
            server.run("stdio")
        else:
            _serve_http(server, args.http, args.require_header)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        stop()
    return 0


def serve_argv(argv: Sequence[str], pid: int) -> int:
    """Serve the command line ``argv`` for the launcher ``pid`` (what the zygote forks to do)."""
    return serve(parser().parse_args(list(argv)), pid)


def warm_up() -> None:
    """Import and build, once, what every server needs; the zygote calls it before forking.

    It runs an event loop once (and closes it) so that anyio loads its backend; it starts no
    thread and leaves nothing open, so that forking afterwards is safe.
    """
    import anyio
    import mcp.server.stdio  # noqa: F401
    import uvicorn  # noqa: F401

    async def touch() -> None:
        async with anyio.create_task_group():
            await anyio.sleep(0)

    anyio.run(touch)
    server = build_server("warm-up", ["echo"], ["skill"], ["binary"])
    server.streamable_http_app()
    for module in (
        "uvicorn.protocols.http.h11_impl",
        "uvicorn.lifespan.on",
        "uvicorn.loops.asyncio",
    ):
        with contextlib.suppress(ImportError):  # what `uvicorn.run` loads, where it exists
            importlib.import_module(module)
