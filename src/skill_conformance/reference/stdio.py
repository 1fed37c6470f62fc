"""The stdio connection to a skill's MCP server, reading what the server writes within bounds.

A drop-in for the ``mcp`` SDK's ``stdio_client`` (the same process start, environment, streams and
shutdown), whose reader the server cannot make hold its whole output: the SDK keeps a line until it
ends, so a server writing one endless line grows the host without bound (and, joining each chunk
to what it holds, spends time quadratic in the line, starving every other skill's calls). Here:

- a line is read up to :data:`MAX_LINE` bytes (anyio's buffered ``receive_until``, linear in the
  line); a longer one gives the server up;
- a line that is not a JSON-RPC message before the server's first message gives it up at once (it
  does not speak MCP on its stdout: a shell tool's usage text, say) instead of costing the whole
  handshake bound; after that, such a line is passed on as the SDK does (the session skips it).

Giving up answers every request still waiting with an error naming why (the caller reports it),
ends the connection and stops the server's process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

__all__ = ["MAX_LINE", "ReadStream", "WriteStream", "bounded_stdio_client"]

MAX_LINE = 16 * 1024 * 1024
"""Bytes of one line a server may write (one JSON-RPC message); a longer line gives it up."""

STOP_GRACE = 2.0
"""Seconds a server has to exit once its stdin is closed, then again once it is sent SIGTERM."""

GIVEN_UP = -32000
"""The JSON-RPC error code of the answer given to a request waiting when a server is given up."""

_QUOTED = 80
"""Characters of a line that is not MCP quoted in the reason."""

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]


def _adapter() -> Any:
    """The JSON-RPC message validator of mcp 2.x; ``None`` on 1.x (its message is a root model)."""
    try:
        import mcp_types  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return mcp_types.jsonrpc_message_adapter


_ADAPTER = _adapter()


def _parse(line: bytes | str) -> SessionMessage | Exception:
    """One line as the SDK parses it: a session message, or the error for the session to skip."""
    try:
        if _ADAPTER is not None:
            return SessionMessage(_ADAPTER.validate_json(line, by_name=False))
        from mcp.types import JSONRPCMessage

        return SessionMessage(JSONRPCMessage.model_validate_json(line))
    except ValueError as error:
        return error


def _dump(message: SessionMessage) -> bytes:
    """One line as the SDK writes it."""
    if _ADAPTER is not None:
        text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
    else:
        text = message.message.model_dump_json(by_alias=True, exclude_none=True)
    return (text + "\n").encode()


def _body(message: SessionMessage) -> Any:
    return getattr(message.message, "root", message.message)


@asynccontextmanager
async def bounded_stdio_client(
    command: str, args: Sequence[str], env: Mapping[str, str] | None
) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
    """Start ``command`` with ``args`` and yield the session's streams to it, as ``stdio_client``.

    ``env`` is added to the SDK's safe default environment. The server leads a process group of
    its own; on exit its stdin is closed, and the group is stopped if it does not exit.
    """
    process = await anyio.open_process(
        [command, *args],
        env={**get_default_environment(), **(env or {})},
        start_new_session=True,
    )
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    waiting: set[object] = set()

    async def give_up(why: str) -> None:
        for ident in sorted(waiting, key=str):
            error = {"code": GIVEN_UP, "message": f"the MCP server was given up: {why}"}
            answer = json.dumps({"jsonrpc": "2.0", "id": ident, "error": error})
            await to_session.send(_parse(answer))
        await to_session.aclose()
        _signal_group(process, signal.SIGKILL)

    async def read() -> None:
        assert process.stdout is not None
        lines = BufferedByteReceiveStream(process.stdout)
        spoken = False
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with to_session:
                while True:
                    try:
                        line = await lines.receive_until(b"\n", MAX_LINE)
                    except (anyio.EndOfStream, anyio.IncompleteRead):
                        return
                    except anyio.DelimiterNotFound:
                        await give_up(f"it wrote a line of over {MAX_LINE} bytes")
                        return
                    if not line.strip():
                        continue
                    message = _parse(line)
                    if isinstance(message, Exception) and not spoken:
                        text = line.decode(errors="replace")
                        quoted = text[:_QUOTED] + ("..." if len(text) > _QUOTED else "")
                        await give_up(f"it does not speak MCP on its stdout (it wrote {quoted!r})")
                        return
                    if not isinstance(message, Exception):
                        spoken = True
                        body = _body(message)
                        if getattr(body, "method", None) is None:  # an answer
                            waiting.discard(getattr(body, "id", None))
                    await to_session.send(message)

    async def write() -> None:
        assert process.stdin is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with from_session:
                async for message in from_session:
                    body = _body(message)
                    if getattr(body, "method", None) is not None and hasattr(body, "id"):
                        waiting.add(body.id)  # a request: answered, or answered on giving up
                    await process.stdin.send(_dump(message))

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    await _stop(process)
                    tasks.cancel_scope.cancel()
    finally:
        for stream in (read_stream, write_stream, to_session, from_session):
            await stream.aclose()


async def _stop(process: Process) -> None:
    """Close the server's stdin; SIGTERM then SIGKILL its group if it does not exit in time."""
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    for then in (signal.SIGTERM, signal.SIGKILL):
        with anyio.move_on_after(STOP_GRACE):
            await process.wait()
        if process.returncode is not None:
            break
        _signal_group(process, then)
    await process.wait()
    _signal_group(process, signal.SIGKILL)  # helpers it left in its group
    await process.aclose()


def _signal_group(process: Process, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)
