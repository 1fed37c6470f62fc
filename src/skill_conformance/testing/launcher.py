"""The launcher: the process an implementation starts for a test MCP server when a zygote serves.

It hands its stdin, stdout and stderr (and the read end of a *lifeline* pipe whose only writer it
keeps) to the zygote over a Unix socket, keeping no copy of them, learns the pid of the server the
zygote forked for it, forwards the signals it gets to that server, and exits with the server's
status. When the launcher dies, however it dies, the lifeline ends and the server stops.

It imports only built-in modules, and the C halves of ``socket``, ``signal`` and ``struct``
rather than the modules (whose enums alone took 5 ms): the point of a zygote is that a start is
cheap.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # no stub: signal.py without its enums
import _socket
import _struct
import marshal
import os

TYPE_CHECKING = False  # not typing's: importing typing would double the launcher's imports
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["FORWARDED", "HEADER", "Unavailable", "launch"]

HEADER = _struct.Struct("!I")
"""The request's length, before the request itself (a ``marshal``-ed dict)."""

FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)
"""The signals a launcher passes on to its server."""


class Unavailable(Exception):
    """No zygote answers at the address: the caller serves on its own."""


def launch(address: str, argv: Sequence[str]) -> int:
    """Have the zygote at ``address`` serve ``argv`` on this process's stdio; its exit status.

    Raises:
        Unavailable: Nothing listens at ``address`` (nothing was started then).

    """
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(address)
    except OSError as error:
        connection.close()
        raise Unavailable(f"no zygote at {address}: {error}") from None
    watched, held = os.pipe()  # the lifeline: the server reads `watched`; only we hold `held`
    request = {"argv": list(argv), "env": dict(os.environ), "cwd": os.getcwd(), "pid": os.getpid()}
    payload = marshal.dumps(request)
    try:
        fds = _struct.pack("4i", 0, 1, 2, watched)
        rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)]
        connection.sendmsg([HEADER.pack(len(payload))], rights)
        connection.sendall(payload)
        os.close(watched)
        _let_go_of_stdio()
        return _await_server(_lines(connection), held)
    finally:
        connection.close()


def _let_go_of_stdio() -> None:
    """Put ``/dev/null`` in place of this process's stdio, which the server now holds.

    The server's stdin and stdout then end when the server closes them or exits, as for a process
    the client started itself, not when this launcher exits once the zygote reports the exit.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)


def _lines(connection: _socket.socket) -> Iterator[str]:
    """The lines the zygote writes, as they come; an empty one once it hangs up."""
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = connection.recv(256)
            if not chunk:
                while True:
                    yield ""
            pending += chunk
        line, _, pending = pending.partition(b"\n")
        yield line.decode("ascii")


def _await_server(lines: Iterator[str], lifeline: int) -> int:
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
        _signal.signal(forwarded, forward)
    first = next(lines).split()
    if first[:1] != ["pid"]:
        return 1
    server.append(int(first[1]))
    for waiting in pending:
        forward(waiting, None)
    last = next(lines).split()
    os.close(lifeline)
    status = int(last[1]) if last[:1] == ["exit"] else 1
    if status < 0:  # the server was killed by a signal: die of the same one
        try:  # noqa: SIM105 (contextlib would be one more import)
            _signal.signal(-status, _signal.SIG_DFL)
        except OSError:  # SIGKILL and SIGSTOP: their action cannot be set, it is the default
            pass
        os.kill(os.getpid(), -status)
    return status
