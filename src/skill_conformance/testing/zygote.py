"""A warm parent for the test MCP server: real server processes without importing ``mcp`` each time.

Importing the ``mcp`` SDK costs a server process most of its start. The *zygote* imports it once,
then forks one real process per server on demand. An implementation still starts a real process
of its own, the launcher (:mod:`skill_conformance.testing.launcher`, run as ``python -m
skill_conformance.testing.mcp_server --zygote ADDRESS``): the zygote forks a server that serves MCP
on exactly the launcher's stdio pipes, takes its environment and working directory, reports its
pid and then its exit status to the launcher, and stops it when the launcher's lifeline ends.

The world's server commands (:func:`launch_command`) run that launcher.

:class:`Zygote` is the zygote seen from the process that owns it (the pytest plugin, once per
run); when the owner stops it or dies, the zygote stops every server it still runs.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skill_conformance.testing.launcher import FORWARDED, HEADER
from skill_conformance.testing.mcp_server import COMMAND_ARGS

__all__ = ["Zygote", "launch_command"]

_STOP_GRACE = 2.0
"""Seconds the zygote gives its servers to stop on SIGTERM before it kills them."""

# -- the zygote ----------------------------------------------------------------------------------


@dataclass
class _Request:
    argv: list[str]
    env: dict[str, str]
    cwd: str
    pid: int
    fds: list[int] = field(default_factory=list)


def _receive(connection: socket.socket) -> _Request:
    message, fds, _flags, _address = socket.recv_fds(connection, HEADER.size, 4)
    try:
        return _read_request(connection, message, fds)
    except BaseException:
        for fd in fds:  # a launcher's stdout kept open here would keep its client waiting
            os.close(fd)
        raise


def _read_request(connection: socket.socket, message: bytes, fds: list[int]) -> _Request:
    while len(message) < HEADER.size:
        more = connection.recv(HEADER.size - len(message))
        if not more:
            raise EOFError("launcher hung up")
        message += more
    (size,) = HEADER.unpack(message)
    payload = b""
    while len(payload) < size:
        more = connection.recv(size - len(payload))
        if not more:
            raise EOFError("launcher hung up")
        payload += more
    data = marshal.loads(payload)
    return _Request(data["argv"], data["env"], data["cwd"], int(data["pid"]), list(fds))


ServeFunction = Callable[[Sequence[str], int], int]
"""Serves ``argv`` on fds 0, 1 and 2 for the launcher ``pid``; returns the exit status."""


class _Parent:
    """The zygote's loop: accept launchers, fork servers, report their exits, stop with pytest."""

    def __init__(
        self,
        listener: socket.socket,
        lifeline: int,
        serve: ServeFunction,
        owner: tuple[int, int | None],
    ) -> None:
        self.listener = listener
        self.lifeline = lifeline
        self.serve = serve
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, tuple[socket.socket, int]] = {}  # pid -> (connection, pidfd)
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.selector.register(lifeline, selectors.EVENT_READ, "lifeline")
        self.owner, self.owner_fd = owner
        if self.owner_fd is not None:
            self.selector.register(self.owner_fd, selectors.EVENT_READ, "owner")

    def run(self) -> None:
        while True:
            waited = _HAS_PIDFD and self.owner_fd is not None  # else some things are polled
            for key, _mask in self.selector.select(None if waited else 0.05):
                if key.data == "accept":
                    self._accept()
                elif key.data in ("lifeline", "owner"):
                    if key.data == "owner" or not os.read(self.lifeline, 512):
                        self._stop_all()
                        return
                else:
                    self._reap(int(key.data))
            if self.owner_gone():
                self._stop_all()
                return
            if not _HAS_PIDFD:
                for pid in list(self.children):
                    self._reap(pid, block=False)

    def owner_gone(self) -> bool:
        """Whether the owner died (polled where it has no pidfd), its lifeline maybe still held."""
        return self.owner_fd is None and os.getppid() != self.owner

    def _accept(self) -> None:
        connection, _ = self.listener.accept()
        try:
            connection.settimeout(5.0)
            request = _receive(connection)
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            connection.close()
            return
        if len(request.fds) != 4:
            for fd in request.fds:
                os.close(fd)
            connection.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._become_server(request)  # never returns
        for fd in request.fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid) if _HAS_PIDFD else -1
        self.children[pid] = (connection, pidfd)
        if pidfd >= 0:
            self.selector.register(pidfd, selectors.EVENT_READ, str(pid))
        with contextlib.suppress(OSError):
            connection.sendall(f"pid {pid}\n".encode())

    def _reap(self, pid: int, *, block: bool = True) -> None:
        waited, status = os.waitpid(pid, 0 if block else os.WNOHANG)
        if waited == 0:
            return
        connection, pidfd = self.children.pop(pid)
        if pidfd >= 0:
            self.selector.unregister(pidfd)
            os.close(pidfd)
        with contextlib.suppress(OSError), connection:
            connection.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())

    def _stop_all(self) -> None:
        """Terminate every server still running; kill those that outlast the grace."""
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + _STOP_GRACE
        while self.children and time.monotonic() < deadline:
            for pid in list(self.children):
                self._reap(pid, block=False)
            if self.children:
                time.sleep(0.02)
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._reap(pid)

    def _become_server(self, request: _Request) -> None:
        """In the forked child: take the launcher's stdio, environment and directory; serve."""
        status = 1
        try:
            self.selector.close()
            self.listener.close()
            os.close(self.lifeline)
            for connection, pidfd in self.children.values():
                connection.close()
                if pidfd >= 0:
                    os.close(pidfd)
            stdin, stdout, stderr, lifeline = request.fds
            for source, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
                os.dup2(source, target)
                os.close(source)
            # Fresh file objects: the zygote's own were opened on other files (/dev/null).
            sys.stdin = open(0, closefd=False)  # noqa: SIM115
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
            os.setsid()  # like the launcher's own session: a Ctrl-C on the terminal misses it
            for signum in (*FORWARDED, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            os.environ.clear()
            os.environ.update(request.env)
            os.chdir(request.cwd)
            threading.Thread(target=_die_with_launcher, args=(lifeline,), daemon=True).start()
            status = self.serve(request.argv, request.pid)
        except BaseException:
            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(status)


def _die_with_launcher(lifeline: int) -> None:
    """Wait until the launcher's end of the lifeline closes; then stop as on SIGTERM."""
    while os.read(lifeline, 512):
        pass
    os.kill(os.getpid(), signal.SIGTERM)


_HAS_PIDFD = hasattr(os, "pidfd_open")


def launch_command(address: str) -> list[str]:
    """How to serve a test MCP server through the zygote at ``address``, up to its own arguments."""
    return [sys.executable, *COMMAND_ARGS, "--zygote", address]


def _owner() -> tuple[int, int | None]:
    """The owner's pid, and a pidfd that becomes readable when it ends (where Linux has them).

    Its end stops the zygote as the lifeline's does: a copy of the lifeline kept by a process the
    owner forked (an implementation's helper, say) must not keep the zygote alive without it.
    """
    owner = os.getppid()
    if not _HAS_PIDFD:
        return owner, None
    try:
        pidfd = os.pidfd_open(owner)
    except OSError:
        return owner, None
    if os.getppid() != owner:  # ended before it could be watched: ``owner`` may be another's
        os._exit(0)
    return owner, pidfd


def _serve_forever(listen_fd: int) -> None:
    """The zygote's main: import the server once, then fork servers until stdin closes."""
    owner = _owner()
    listener = socket.socket(fileno=listen_fd)
    lifeline = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # pytest stops it by closing the lifeline
    from skill_conformance.testing._mcp_app import serve_argv, warm_up

    warm_up()
    import gc

    gc.freeze()  # keep the imported objects' pages shared with the forked servers
    _Parent(listener, lifeline, serve_argv, owner).run()
    with contextlib.suppress(OSError):  # the owner may have died without removing it
        address = Path(listener.getsockname())
        address.unlink()
        address.parent.rmdir()
    os._exit(0)  # its servers are stopped; tearing its heap down would only keep pytest waiting


# -- the zygote, seen from the process that owns it ------------------------------------------------


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Zygote:
    """A zygote process owned by this process; it stops when :meth:`stop` is called or we exit.

    The listening socket is bound before the zygote starts, so launchers that connect while it
    is still importing wait in the backlog rather than miss it. Only the process that started it
    stops it: a process forked from the owner (mutmut forks one per mutant) leaves it alone.
    """

    def __init__(self) -> None:
        self._owner = os.getpid()
        self._directory = tempfile.mkdtemp(prefix="sc-zygote-")
        self.address = str(Path(self._directory) / "socket")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.address)
        listener.listen(128)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", __name__, str(listener.fileno())],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                pass_fds=(listener.fileno(),),
                # Ignored from its first instruction, imports included (a terminal's Ctrl-C
                # reaches it too): pytest stops it by closing the lifeline.
                preexec_fn=_ignore_ctrl_c,
            )
        finally:
            listener.close()

    def leave(self) -> None:
        """In a process forked from the owner: close its copy of the lifeline.

        The zygote ends when the last copy closes; one kept by a fork would outlive the owner.
        """
        if os.getpid() != self._owner and self._process.stdin is not None:
            self._process.stdin.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the lifeline; wait for the zygote to stop its servers and exit (bounded)."""
        if os.getpid() != self._owner:
            return
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._directory, ignore_errors=True)  # the socket


if __name__ == "__main__":
    _serve_forever(int(sys.argv[1]))
