"""One implementation process and the request/response lines exchanged with it."""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from skill_conformance.adapters.jsonlines import processes
from skill_conformance.adapters.jsonlines.protocol import ProtocolError, shown
from skill_conformance.adapters.jsonlines.streams import Lines, Overlong, Tail

__all__ = ["Channel"]

_POLL = 0.1
_EXIT_GRACE = 1.0
"""Seconds a process whose stdout ended may take to exit before it is reported as it is."""
_STOP_GRACE = 5.0
"""Seconds the process may take to exit on end of input when the run ends."""


class Channel:
    """One implementation process and the request/response lines exchanged with it."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        try:
            self._process, self._mark = processes.start(self.command)
        except OSError as error:
            raise ProtocolError(f"cannot start {shlex.join(self.command)}: {error}") from None
        stdout, stderr = self._process.stdout, self._process.stderr
        assert stdout is not None
        assert stderr is not None
        self._lines = Lines(stdout, "jsonlines-stdout")
        self._stderr = Tail(stderr, "jsonlines-stderr")
        self._next_id = 0
        self._lock = threading.Lock()

    @property
    def pid(self) -> int:
        """The process id of the implementation process."""
        return self._process.pid

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self._process.poll() is None

    def request(self, op: str, args: Mapping[str, object], timeout: float) -> dict[str, Any]:
        """Send one request and wait (at most ``timeout`` s) for the response with its id."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            line = json.dumps({"id": ident, "op": op, "args": args}) + "\n"
            stdin = self._process.stdin
            assert stdin is not None
            try:
                stdin.write(line.encode())
                stdin.flush()
            except (OSError, ValueError):
                raise self._died(op) from None
            deadline = time.monotonic() + timeout
            while True:
                raw = self._next_line(op, deadline)
                if raw is None:
                    begun = self._lines.unterminated  # a process of its own holds its stdout
                    if begun:
                        text = begun.decode(errors="replace").strip()
                        raise self._died(op, f"in the middle of an answer: {text!r}")
                    raise self._died(op)
                response = self._parse(op, raw)
                if response.get("id") == ident:
                    return response

    def _next_line(self, op: str, deadline: float) -> bytes | None:
        """The next stdout line; ``None`` once the process is gone.

        A process that exits while a process of its own still holds its stdout gives no end of
        file, so its liveness is checked as well.
        """
        while True:
            try:
                item = self._lines.get(timeout=_POLL)
            except TimeoutError:
                if self._process.poll() is not None:
                    try:
                        item = self._lines.get(timeout=_POLL)
                    except TimeoutError:
                        return None
                elif time.monotonic() > deadline:
                    raise ProtocolError(f"{op}: no response in time") from None
                else:
                    continue
            if isinstance(item, Overlong):
                raise ProtocolError(f"{op}: a line longer than {item.limit >> 20} MiB on stdout")
            return item

    def _parse(self, op: str, raw: bytes) -> dict[str, Any]:
        try:
            response = json.loads(raw)
        except ValueError:
            text = raw.decode(errors="replace").strip()[:200]
            if not raw.endswith(b"\n"):  # the last bytes before its stdout ended
                raise self._died(op, f"in the middle of an answer: {text!r}") from None
            raise ProtocolError(f"{op}: not a JSON line on stdout: {text!r}") from None
        if not isinstance(response, dict) or ("ok" not in response and "error" not in response):
            raise ProtocolError(
                f"{op}: a response needs 'id' and 'ok' or 'error': {shown(response)}"
            )
        return response

    def _died(self, op: str, how: str = "without answering") -> ProtocolError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_EXIT_GRACE)
        code = self._process.poll()
        state = f"exited (code {code})" if code is not None else "closed its stdout"
        return ProtocolError(f"{op}: the implementation process {state} {how}{self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        tail = self._stderr.text(settle=_POLL).strip()
        return f"; its stderr ends: {' | '.join(tail.splitlines()[-3:])[-400:]}" if tail else ""

    def stop(self) -> None:
        """End the process: close its stdin, wait a little, then kill everything it started."""
        stdin = self._process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_STOP_GRACE)
        self.kill()

    def kill(self) -> None:
        """Kill the process, its group and every process it started, now; wait for none."""
        self._lines.discard()
        processes.kill_tree(self._process, self._mark)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_EXIT_GRACE)
        stdin = self._process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()
