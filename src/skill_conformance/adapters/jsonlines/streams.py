"""Reading the process's stdout and stderr with bounded memory, each on a thread of its own.

stdout becomes lines, each at most :data:`MAX_LINE` bytes, with at most :data:`MAX_PENDING` bytes
waiting to be read (the reader then stops reading, and a process that writes on blocks on its
full pipe). stderr is kept as its last :data:`TAIL` bytes. A reader never closes the pipe it reads
while another thread could still use its descriptor: it closes it itself when it ends.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from typing import IO

__all__ = ["MAX_LINE", "MAX_PENDING", "TAIL", "Lines", "Overlong", "Tail"]

MAX_LINE = 16 << 20
"""Bytes one response line may have (a line of its own, or the start of a line never ended)."""
MAX_PENDING = 32 << 20
"""Bytes of complete lines read ahead of the requests that wait for them."""
TAIL = 8 << 10
"""Bytes of stderr kept."""
_CHUNK = 1 << 16


class Overlong:
    """Stands for a line longer than :data:`MAX_LINE`; reading stopped there."""

    def __init__(self, limit: int) -> None:
        self.limit = limit


class Lines:
    """The lines of a stream, read by a daemon thread; ``None`` marks its end."""

    def __init__(self, stream: IO[bytes], name: str, limit: int = MAX_LINE) -> None:
        self._limit = limit
        self._ready: collections.deque[bytes | Overlong | None] = collections.deque()
        self._pending = 0
        self._discarded = False
        self.unterminated = b""
        """The start (at most 200 bytes) of a line begun and not yet ended."""
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), name=name, daemon=True)
        self._thread.start()

    def get(self, timeout: float) -> bytes | Overlong | None:
        """The next line (or the end, or an :class:`Overlong`); ``TimeoutError`` when none."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._ready:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self._changed.wait(left)
            item = self._ready.popleft()
            if isinstance(item, bytes):
                self._pending -= len(item)
                self._changed.notify_all()
            else:
                self._ready.appendleft(item)  # the end stays the end
            return item

    def discard(self) -> None:
        """Drop what is read from now on (the process is being killed): the reader never blocks."""
        with self._changed:
            self._discarded = True
            self._ready.clear()
            self._pending = 0
            self._changed.notify_all()

    def join(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the reader to reach the end of the stream."""
        self._thread.join(timeout)

    def _put(self, item: bytes | Overlong | None) -> None:
        with self._changed:
            if isinstance(item, bytes):
                while self._pending + len(item) > MAX_PENDING and self._pending:
                    self._changed.wait()
                if self._discarded:
                    return
                self._pending += len(item)
            self._ready.append(item)
            self._changed.notify_all()

    def _read(self, stream: IO[bytes]) -> None:
        partial = bytearray()
        scanned = 0  # bytes of ``partial`` known to hold no newline
        fd = stream.fileno()
        try:
            while chunk := os.read(fd, _CHUNK):
                partial += chunk
                while (end := partial.find(b"\n", scanned)) != -1:
                    line = bytes(partial[: end + 1])
                    del partial[: end + 1]
                    scanned = 0
                    if len(line) > self._limit:
                        self._put(Overlong(self._limit))
                        return
                    self._put(line)
                scanned = len(partial)
                self.unterminated = bytes(partial[:200])
                if scanned > self._limit:
                    self._put(Overlong(self._limit))
                    return
            if partial:
                self._put(bytes(partial))
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()
            self._put(None)


class Tail:
    """The last :data:`TAIL` bytes of a stream, read by a daemon thread."""

    def __init__(self, stream: IO[bytes], name: str, size: int = TAIL) -> None:
        self._size = size
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(stream,), name=name, daemon=True)
        self._thread.start()

    def text(self, settle: float = 0.0) -> str:
        """What was kept, decoded; wait up to ``settle`` s for the stream to end first."""
        self._thread.join(settle)
        with self._lock:
            return bytes(self._kept).decode(errors="replace")

    def _read(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            while chunk := os.read(fd, _CHUNK):
                with self._lock:
                    self._kept += chunk
                    del self._kept[: max(0, len(self._kept) - self._size)]
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()
