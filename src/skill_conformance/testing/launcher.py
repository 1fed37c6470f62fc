"""The launcher: the process an implementation starts for a test MCP server when a zygote serves.

It hands its stdin, stdout and stderr (and the read end of a *lifeline* pipe whose only writer it
keeps) to the zygote over a Unix socket, learns the pid of the server the zygote forked for it,
forwards the signals it gets to that server, and exits with the server's status. When the launcher
dies, however it dies, the lifeline ends and the server stops.

It imports only a few built-in modules: the point of a zygote is that a start is cheap.
"""

from __future__ import annotations

import marshal
import os
import signal
import socket
import struct
from collections.abc import Callable, Sequence

__all__ = ["FORWARDED", "HEADER", "Unavailable", "launch"]

HEADER = struct.Struct("!I")
"""The request's length, before the request itself (a ``marshal``-ed dict)."""

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
"""The signals a launcher passes on to its server."""


class Unavailable(Exception):
    """No zygote answers at the address: the caller serves on its own."""


def launch(address: str, argv: Sequence[str]) -> int:
    """Have the zygote at ``address`` serve ``argv`` on this process's stdio; its exit status.

    Raises:
        Unavailable: Nothing listens at ``address`` (nothing was started then).

    """
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(address)
    except OSError as error:
        connection.close()
        raise Unavailable(f"no zygote at {address}: {error}") from None
    watched, held = os.pipe()  # the lifeline: the server reads `watched`; only we hold `held`
    request = {"argv": list(argv), "env": dict(os.environ), "cwd": os.getcwd(), "pid": os.getpid()}
    payload = marshal.dumps(request)
    with connection:
        socket.send_fds(connection, [HEADER.pack(len(payload))], [0, 1, 2, watched])
        connection.sendall(payload)
        os.close(watched)
        lines = connection.makefile("r", encoding="ascii")
        return _await_server(lines.readline, held)


def _await_server(readline: Callable[[], str], lifeline: int) -> int:
    """Forward signals to the server whose pid comes first, until its exit status comes."""
    pending: list[int] = []
    server: list[int] = []

    def forward(signum: int, frame: object) -> None:
        if not server:
            pending.append(signum)
            return
        try:  # noqa: SIM105 (contextlib would be one more import)
            os.kill(server[0], signum)
        except ProcessLookupError:
            pass

    for forwarded in FORWARDED:
        signal.signal(forwarded, forward)
    first = readline().split()
    if first[:1] != ["pid"]:
        return 1
    server.append(int(first[1]))
    for waiting in pending:
        forward(waiting, None)
    last = readline().split()
    os.close(lifeline)
    status = int(last[1]) if last[:1] == ["exit"] else 1
    if status < 0:  # the server was killed by a signal: die of the same one
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status
