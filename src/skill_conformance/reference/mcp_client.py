"""The MCP client, as a pydantic-ai toolset, on every supported pydantic-ai version.

pydantic-ai 1.x has ``MCPServerStdio`` / ``MCPServerStreamableHTTP`` (on the ``mcp`` SDK);
pydantic-ai 2.x removed them for ``MCPToolset`` over a FastMCP transport. This is the only module
that knows which one exists. Either way the result is an ordinary toolset whose connection is
reference-counted: the first ``__aenter__`` starts the server process (or connects) and the last
``__aexit__`` stops it. Nothing starts before that. The client library itself is imported with
this module: loading the implementation pays for it, once, rather than its first server.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, cast

import pydantic_ai.mcp
from pydantic_ai.toolsets import AbstractToolset

from skill_conformance.reference.stdio import ReadStream, WriteStream, bounded_stdio_client

__all__ = ["STARTUP_TIMEOUT", "McpResourceInfo", "McpServer", "http_server", "stdio_server"]

STARTUP_TIMEOUT = 10.0
"""Seconds a server may take to start and answer the handshake (pydantic-ai's default is 5), and
to answer any request after it (pydantic-ai 2.x: its ``read_timeout``, 5 minutes by default): a
server that answers its handshake and never its ``tools/list`` is given up as one that never starts.

A server still silent after that is given up (see ``reference.isolation``): twice pydantic-ai's
default, as the suite's test server takes 2 to 3 s to answer on a loaded 2-core machine.
"""


@dataclass(frozen=True)
class McpResourceInfo:
    """One resource an MCP server lists."""

    name: str
    description: str
    uri: str


class _ResourceClient(Protocol):
    """What both generations of the pydantic-ai MCP toolset offer besides tools."""

    @property
    def is_running(self) -> bool: ...

    async def list_resources(self) -> Sequence[Any]: ...

    async def read_resource(self, uri: str) -> Any: ...


class McpServer:
    """One MCP server: its pydantic-ai toolset, plus its resources.

    Entering it connects (starting the process of a stdio server) unless it is already connected;
    exiting it as many times as it was entered disconnects (stopping the process).
    """

    def __init__(
        self, toolset: AbstractToolset[Any], label: str, client: object | None = None
    ) -> None:
        self.toolset = toolset
        self.label = label
        self._client = cast(_ResourceClient, toolset if client is None else client)

    def wrapped(self, toolset: AbstractToolset[Any]) -> McpServer:
        """The same server (its connection and resources) offering its tools through ``toolset``.

        ``toolset`` wraps :attr:`toolset`; entering the result enters ``toolset``.
        """
        return McpServer(toolset, self.label, self._client)

    @property
    def is_running(self) -> bool:
        """Whether the connection is open."""
        return bool(self._client.is_running)

    async def __aenter__(self) -> McpServer:
        await self.toolset.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # The MCP clients ignore the exception details: passing them on is courtesy.
        await self.toolset.__aexit__(exc_type, exc, traceback)  # pragma: no mutate

    def extensions(self) -> dict[str, Any] | None:
        """The extensions the connected server declared; None if not connected or not told.

        pydantic-ai 2.x keeps them from the handshake; 1.x does not, and a caller then asks the
        server on a connection of its own.
        """
        try:
            capabilities = getattr(self._client, "capabilities", None)
        except AttributeError:  # not connected yet
            return None
        if capabilities is None or not hasattr(capabilities, "extensions"):
            return None
        declared = capabilities.extensions
        return dict(declared) if isinstance(declared, Mapping) else {}

    async def resources(self) -> list[McpResourceInfo]:
        """The resources the server lists (connecting for the call if it is not connected)."""
        listed = await self._client.list_resources()
        return [
            McpResourceInfo(
                name=str(resource.name),
                description=str(getattr(resource, "description", None) or ""),
                uri=str(resource.uri),
            )
            for resource in listed
        ]

    async def read_text(self, uri: str) -> str:
        """The text content of resource ``uri``; parts are joined by newlines."""
        content = await self._client.read_resource(uri)
        parts = content if isinstance(content, list) else [content]
        return "\n".join(part if isinstance(part, str) else _binary_text(part) for part in parts)


def _binary_text(part: object) -> str:
    data = getattr(part, "data", b"")
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(part)


def stdio_server(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    *,
    id: str,
    label: str,
    timeout: float = STARTUP_TIMEOUT,
) -> McpServer:
    """An MCP server run as a subprocess speaking stdio; nothing starts until it is entered.

    Args:
        command: The program to run.
        args: Its arguments.
        env: Extra environment variables (the MCP SDK's safe defaults are kept).
        id: The toolset id, unique within an agent.
        label: A name for messages.
        timeout: Seconds the server may take to answer its handshake before it is given up.

    """
    environment = dict(env) if env else None
    legacy = _legacy("MCPServerStdio")
    if legacy is not None:  # pragma: no mutate (1.x: `make conformance-oldest` runs it)
        toolset = _quietly(
            _bounded_legacy(legacy), command, list(args), env=environment, id=id, timeout=timeout
        )
    else:
        from pydantic_ai.mcp import MCPToolset

        transport = _bounded_transport()(command, list(args), environment)
        toolset = MCPToolset(transport, id=id, init_timeout=timeout, read_timeout=timeout)
    return McpServer(toolset, label)


def http_server(
    url: str,
    headers: Mapping[str, str],
    *,
    id: str,
    label: str,
    timeout: float = STARTUP_TIMEOUT,
) -> McpServer:
    """An MCP server reached over streamable HTTP; nothing connects until it is entered.

    ``timeout``: seconds it may take to answer its handshake before it is given up.
    """
    # pragma: no mutate start
    toolset = _legacy_toolset(
        "MCPServerStreamableHTTP", url, headers=dict(headers) or None, id=id, timeout=timeout
    )
    # pragma: no mutate end
    if toolset is None:
        from pydantic_ai.mcp import MCPToolset

        toolset = MCPToolset(
            url, headers=dict(headers) or None, id=id, init_timeout=timeout, read_timeout=timeout
        )
    return McpServer(toolset, label)


def _legacy_toolset(class_name: str, *args: Any, **kwargs: Any) -> AbstractToolset[Any] | None:
    """pydantic-ai 1.x's toolset ``class_name(*args, **kwargs)``, or ``None`` on 2.x.

    Under the lock's 2.x it returns None whatever it is given, so no mutant of it (or of its calls
    above) can be killed there; `make conformance-oldest` runs the suite on 1.x, where it is the
    code path.
    """
    # pragma: no mutate block
    legacy = _legacy(class_name)
    if legacy is None:
        return None
    return _quietly(legacy, *args, **kwargs)


def _quietly(legacy: Any, *args: Any, **kwargs: Any) -> AbstractToolset[Any]:
    """``legacy(*args, **kwargs)``, without the deprecation warning 1.x's late releases give."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return cast(AbstractToolset[Any], legacy(*args, **kwargs))


@functools.cache
def _bounded_legacy(base: type[Any]) -> type[Any]:  # pragma: no cover - 1.x only
    """pydantic-ai 1.x's ``MCPServerStdio`` reading its server through the bounded stdio client."""

    class BoundedMCPServerStdio(base):  # type: ignore[misc]
        @asynccontextmanager
        async def client_streams(self) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
            async with bounded_stdio_client(self.command, self.args, self.env) as streams:
                yield streams

    return BoundedMCPServerStdio


@functools.cache
def _bounded_transport() -> type[Any]:
    """A FastMCP client transport (pydantic-ai 2.x) over the bounded stdio client."""
    from fastmcp.client.transports import ClientTransport
    from mcp import ClientSession

    class BoundedStdioTransport(ClientTransport):
        def __init__(self, command: str, args: list[str], env: dict[str, str] | None) -> None:
            self.command, self.args, self.env = command, args, env

        @asynccontextmanager
        async def connect_session(self, **session_kwargs: Any) -> AsyncIterator[ClientSession]:
            async with (
                bounded_stdio_client(self.command, self.args, self.env) as (read, write),
                ClientSession(read, write, **session_kwargs) as session,
            ):
                yield session

        def __repr__(self) -> str:
            return f"<BoundedStdioTransport(command={self.command!r}, args={self.args!r})>"

    return BoundedStdioTransport


def _legacy(name: str) -> Any:
    """pydantic-ai 1.x's MCP server class ``name``, or ``None`` on 2.x, where it was removed."""
    try:
        return getattr(pydantic_ai.mcp, name)
    except (AttributeError, ImportError):
        return None
