"""Writing a file so that a reader sees the old content or the new, never half of it."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["write_atomic"]

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and :func:`os.replace`.

    An interrupt (Ctrl-C, or SIGTERM raised as one) at any point leaves no temp file behind: its
    name is chosen before it is created, so that one landing just after the creation, before the
    name is known to the caller (as within :func:`tempfile.mkstemp`), still finds it.
    """
    mode = path.stat().st_mode & 0o777 if path.exists() else _default_mode()
    temp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    ours = True
    try:
        try:
            fd = os.open(temp, _CREATE, 0o600)
        except FileExistsError:
            ours = False  # another's file: never removed here
            raise
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if ours:
            temp.unlink(missing_ok=True)
        raise


def _default_mode() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask
