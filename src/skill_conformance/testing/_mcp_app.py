"""The test MCP server itself: tools and skills (resources) on the ``mcp`` SDK's low-level server.

:mod:`skill_conformance.testing.mcp_server` is the command that runs it (and documents it); this
module imports the ``mcp`` SDK, so only a process that serves imports it: the command when it
serves on its own, or the zygote (:mod:`skill_conformance.testing.zygote`) once for all.

It answers on the wire exactly as a ``FastMCP`` server offering the same functions would (the
same tool schemas, results, errors and resources; a snapshot test holds the transcript), without
what a ``FastMCP`` server costs each process that builds one: its settings read from the
environment and a ``.env`` file, a pydantic model per tool, the package version looked up at
each handshake. Built in the zygote's fork, that was most of a server's start.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from importlib.metadata import version
from types import FrameType
from typing import Any, cast

import mcp.types as types
import pydantic
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from pydantic import AnyUrl
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "build_server",
    "parser",
    "remote_skill_instructions",
    "serve",
    "serve_argv",
    "warm_up",
]


def remote_skill_instructions(name: str) -> str:
    """The content the server gives for the skill resource ``name``."""
    return f"Instructions of {name}."


def parser() -> argparse.ArgumentParser:
    """The server's command line (:mod:`skill_conformance.testing.mcp_server` documents it)."""
    parser = argparse.ArgumentParser(prog="skill_conformance.testing.mcp_server")
    parser.add_argument("--label", required=True)
    parser.add_argument("--tool", action="append", default=[])
    parser.add_argument("--skill", action="append", default=[])
    parser.add_argument("--binary-skill", action="append", default=[])
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--require-header", metavar="NAME=VALUE")
    parser.add_argument("--log")
    parser.add_argument("--mode", choices=["ok", "crash", "hang"], default="ok")
    parser.add_argument("--zygote", metavar="ADDRESS")
    return parser


_MCP_VERSION = version("mcp")
"""The version a ``FastMCP`` server gives in its handshake: the SDK's."""

_TEXT_ARGUMENT: dict[str, Any] = {"default": "", "title": "Text", "type": "string"}
_MIME = {False: "text/markdown", True: "application/octet-stream"}
"""The MIME type of a text skill resource, and of one served as bytes."""


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


def _answer(label: str, name: str, text: str) -> str:
    if name == "getenv":
        return f"{label}:{name}:{os.environ.get(text, '')}"
    return f"{label}:{name}:{text}" if text else f"{label}:{name}"


def _tool(label: str, name: str) -> types.Tool:
    """Tool ``name`` as ``FastMCP`` describes ``def name(text: str = "") -> str``."""
    return types.Tool(
        name=name,
        description=f"Tool {name} of the test server {label}.",
        inputSchema={
            "properties": {"text": dict(_TEXT_ARGUMENT)},
            "title": f"{name}Arguments",
            "type": "object",
        },
        outputSchema={
            "properties": {"result": {"title": "Result", "type": "string"}},
            "required": ["result"],
            "title": f"{name}Output",
            "type": "object",
        },
    )


def _text_argument(name: str, arguments: dict[str, Any]) -> str:
    """The ``text`` argument; any other value refused in pydantic's words, as by ``FastMCP``."""
    text = arguments.get("text", "")
    if isinstance(text, str):
        return text
    model = pydantic.create_model(f"{name}Arguments", text=(str, ""))
    try:
        return str(model.model_validate(arguments).text)  # type: ignore[attr-defined]
    except pydantic.ValidationError as error:
        raise ValueError(f"Error executing tool {name}: {error}") from None


class _Handlers:
    """What the server answers, whichever generation of the ``mcp`` SDK serves it."""

    def __init__(
        self, label: str, tools: Sequence[str], skills: Sequence[str], binary_skills: Sequence[str]
    ) -> None:
        self.label = label
        self.tools = {name: _tool(label, name) for name in tools}
        self.resources = {
            str(resource.uri): (resource, binary)
            for binary, names in ((False, skills), (True, binary_skills))
            for resource in (_skill_resource(label, name, binary=binary) for name in names)
        }

    def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """The tool's result; a refusal as the error result ``FastMCP`` 1.x makes of it."""
        try:
            if name not in self.tools:
                raise ValueError(f"Unknown tool: {name}")
            result = _answer(self.label, name, _text_argument(name, arguments))
        except ValueError as error:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(error))], isError=True
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result)],
            structuredContent={"result": result},
            isError=False,
        )

    def read_resource(self, uri: str) -> ReadResourceContents:
        if uri not in self.resources:
            raise ValueError(f"Unknown resource: {uri}")
        resource, binary = self.resources[uri]
        text = remote_skill_instructions(resource.name)
        content: str | bytes = text.encode() + b"\xff" if binary else text
        return ReadResourceContents(content=content, mime_type=_MIME[binary])


def build_server(
    label: str, tools: Sequence[str], skills: Sequence[str], binary_skills: Sequence[str] = ()
) -> Server[Any, Any]:
    """The server offering ``tools`` and the skill resources ``skills`` (``binary_skills``)."""
    handlers = _Handlers(label, tools, skills, binary_skills)
    if not hasattr(Server, "list_tools"):
        return cast("Server[Any, Any]", _constructed(handlers))
    server: Server[Any, Any] = Server(label, version=_MCP_VERSION)

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator, unused-ignore]
    async def list_tools() -> list[types.Tool]:
        return list(handlers.tools.values())

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator, unused-ignore]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return handlers.call_tool(name, arguments)

    @server.list_resources()  # type: ignore[no-untyped-call, untyped-decorator, unused-ignore]
    async def list_resources() -> list[types.Resource]:
        return [resource for resource, _ in handlers.resources.values()]

    @server.read_resource()  # type: ignore[no-untyped-call, untyped-decorator, unused-ignore]
    async def read_resource(uri: AnyUrl) -> Iterable[ReadResourceContents]:
        return [handlers.read_resource(str(uri))]

    @server.list_resource_templates()  # type: ignore[no-untyped-call, untyped-decorator, unused-ignore]
    async def list_resource_templates() -> list[types.ResourceTemplate]:
        return []

    @server.list_prompts()  # type: ignore[no-untyped-call, untyped-decorator, unused-ignore]
    async def list_prompts() -> list[types.Prompt]:
        return []

    return server


def _constructed(handlers: _Handlers) -> Any:
    """The same server on the ``mcp`` 2.x SDK, whose handlers are given to the constructor."""

    async def list_tools(ctx: object, params: object) -> Any:
        return types.ListToolsResult(tools=list(handlers.tools.values()))

    async def call_tool(ctx: object, params: Any) -> Any:
        return handlers.call_tool(params.name, dict(params.arguments or {}))

    async def list_resources(ctx: object, params: object) -> Any:
        return types.ListResourcesResult(
            resources=[resource for resource, _ in handlers.resources.values()]
        )

    async def read_resource(ctx: object, params: Any) -> Any:
        uri: Any = str(params.uri)  # a str in mcp 2.x, where 1.x wants an AnyUrl
        read = handlers.read_resource(uri)
        mime = read.mime_type
        contents: types.TextResourceContents | types.BlobResourceContents
        if isinstance(read.content, bytes):
            blob = base64.b64encode(read.content).decode()
            contents = types.BlobResourceContents(uri=uri, mimeType=mime, blob=blob)
        else:
            contents = types.TextResourceContents(uri=uri, mimeType=mime, text=read.content)
        return types.ReadResourceResult(contents=[contents])

    async def list_resource_templates(ctx: object, params: object) -> Any:
        return types.ListResourceTemplatesResult(resourceTemplates=[])

    async def list_prompts(ctx: object, params: object) -> Any:
        return types.ListPromptsResult(prompts=[])

    return Server(  # type: ignore[call-arg, unused-ignore]
        handlers.label,
        version=_MCP_VERSION,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_resource_templates=list_resource_templates,
        on_list_prompts=list_prompts,
    )


def _skill_resource(label: str, name: str, *, binary: bool) -> types.Resource:
    """The resource of skill ``name``: its text, or (``binary``) its bytes and a non-UTF-8 byte."""
    return types.Resource(
        uri=f"skill-resource://{label}/{name}",  # type: ignore[arg-type, unused-ignore]
        name=name,
        description=f"Remote skill {name}.",
        mimeType=_MIME[binary],
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


class _Endpoint:
    """The ASGI endpoint handing every request to the streamable HTTP session manager."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


def _http_app(server: Server[Any, Any]) -> ASGIApp:
    """``server`` over streamable HTTP at ``/mcp``, guarded as ``FastMCP`` guards a local host."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(
        app=server,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        ),
    )
    return Starlette(
        routes=[Route("/mcp", endpoint=_Endpoint(manager))], lifespan=lambda app: manager.run()
    )


def _serve_http(server: Server[Any, Any], port: int, header: str | None) -> None:
    import uvicorn

    _stop_when_orphaned()

    class Server(uvicorn.Server):
        """uvicorn, leaving SIGTERM to :func:`serve`'s handler: a test server stops at once.

        uvicorn's own handler shuts down gracefully, on a timer, which every scenario whose world
        stops its server would wait out. Older uvicorn names the hook
        ``install_signal_handlers``, newer ``capture_signals``: both are left out.
        """

        def install_signal_handlers(self) -> None:
            pass

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    app = _http_app(server)
    if header is not None:
        name, _, value = header.partition("=")
        app = _RequireHeader(app, name, value)
    Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error")).run()


def _serve_stdio(server: Server[Any, Any]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


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
        logging.getLogger().setLevel(logging.ERROR)  # as FastMCP(log_level="ERROR") leaves it
        server = build_server(args.label, args.tool, args.skill, args.binary_skill)
        if args.http is None:
            _serve_stdio(server)
        else:
            _serve_http(server, args.http, args.require_header)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        stop()
    return 0


def serve_argv(argv: Sequence[str], pid: int | None = None) -> int:
    """Serve the command line ``argv`` (for the launcher ``pid``, in a zygote's fork)."""
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
    _http_app(build_server("warm-up", ["echo"], ["skill"], ["binary"]))
    for module in (
        "uvicorn.protocols.http.h11_impl",
        "uvicorn.lifespan.on",
        "uvicorn.loops.asyncio",
    ):
        with contextlib.suppress(ImportError):  # what `uvicorn.run` loads, where it exists
            importlib.import_module(module)
