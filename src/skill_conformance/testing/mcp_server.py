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

``--zygote ADDRESS`` has the warm parent at ``ADDRESS`` (:mod:`skill_conformance.testing.zygote`)
fork the server, which then serves this process's stdio; this process stays, forwards signals and
exits with the server's status. Without a zygote there, the command serves on its own. This module
imports only the standard library, so that the command is cheap when a zygote serves.
"""

from __future__ import annotations

import sys
<<<<<<< HEAD
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # The SDK is imported when serving: ``crash`` and ``hang`` start in no time.
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.resources import Resource
    from starlette.types import ASGIApp, Receive, Scope, Send
=======

TYPE_CHECKING = False  # not typing's: importing typing would double the launcher's imports
if TYPE_CHECKING:
    import argparse
>>>>>>> main

__all__ = ["main", "parser", "remote_skill_instructions"]


def remote_skill_instructions(name: str) -> str:
    """The content the server gives for the skill resource ``name``."""
    return f"Instructions of {name}."


def parser() -> argparse.ArgumentParser:
    """The server's command line."""
    import argparse

<<<<<<< HEAD

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
=======
>>>>>>> main
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


def main(argv: list[str] | None = None) -> int:
    """Serve, through the zygote when one answers at ``--zygote``, else in this process."""
    arguments = sys.argv[1:] if argv is None else argv
    address, rest = _split_zygote(arguments)
    if address is not None:
        from skill_conformance.testing.launcher import Unavailable, launch

        try:
            return launch(address, rest)
        except Unavailable:
            pass
    from skill_conformance.testing.fastmcp_server import serve

    return serve(parser().parse_args(rest))


def _split_zygote(arguments: list[str]) -> tuple[str | None, list[str]]:
    """The address of ``--zygote ADDRESS`` (or ``--zygote=ADDRESS``) and the other arguments."""
    address: str | None = None
    rest: list[str] = []
    taking = False
    for argument in arguments:
        if taking:
            address, taking = argument, False
        elif argument == "--zygote":
            taking = True
        elif argument.startswith("--zygote="):
            address = argument.partition("=")[2]
        else:
            rest.append(argument)
    return address, rest


if __name__ == "__main__":
    sys.exit(main())
