"""Reading what a user or an implementation gives, within bounds: files and folder trees.

The suite reads a ``SKILL.md`` only from a regular file, up to a size, without blocking
(:mod:`skill_conformance.reference.frontmatter`); results files, expectations files, spec trees
and features are read here the same way. A named pipe nobody writes, a link to ``/dev/zero``, a
file larger than its limit or a tree nested deeper than its limit is refused with an
:class:`OSError` whose ``strerror`` says why in a few words; the reader's caller names the file.
Folders are walked without recursion, so the depth of a tree cannot exhaust the interpreter's
stack.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_DEPTH", "MAX_FOLDERS", "MAX_SPEC_BYTES", "read_regular", "walk"]

MAX_DEPTH = 32
"""The deepest folder below the root of a tree read (specs are one or two folders deep)."""
MAX_FOLDERS = 10_000
"""The most folders of one tree visited."""
MAX_SPEC_BYTES = 1024 * 1024
"""The largest ``spec.md`` or feature file read, in bytes (the suite's largest is some 60 KB)."""

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (links followed).

    It is opened without blocking (a FIFO would block a plain open) and checked on the open
    descriptor, so what is read is what was checked; a file that grows past ``limit`` while it is
    read is refused too.

    Raises:
        OSError: ``path`` cannot be opened, is not a regular file, or is larger than ``limit``.

    """
    descriptor = os.open(path, _OPEN_FLAGS)
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for is_kind, name in _KINDS if is_kind(mode)), "not a regular file")
            raise OSError(errno.EINVAL, f"{kind}, not a regular file", str(path))
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than the limit of {limit:,} bytes", str(path))
    return data


def walk(root: Path, max_depth: int = MAX_DEPTH) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk(root)`` top-down without following links, iterative, and bounded.

    Yields each folder, the names of its subfolders (sorted; the caller may remove some, as from
    ``os.walk``'s, to skip them) and the names of everything else in it (sorted).

    Raises:
        OSError: A folder cannot be listed, or the tree is deeper than ``max_depth`` below
            ``root`` or has more than :data:`MAX_FOLDERS` folders (``filename`` names where).

    """
    pending: list[tuple[Path, int]] = [(root, 0)]
    visited = 0
    while pending:
        folder, depth = pending.pop()
        visited += 1
        if visited > MAX_FOLDERS:
            raise OSError(errno.E2BIG, f"more than {MAX_FOLDERS:,} folders", str(root))
        folders: list[str] = []
        files: list[str] = []
        with os.scandir(folder) as entries:
            for entry in entries:
                is_folder = entry.is_dir(follow_symlinks=False)
                (folders if is_folder else files).append(entry.name)
        folders.sort()
        files.sort()
        yield folder, folders, files
        if folders and depth >= max_depth:
            raise OSError(
                errno.ELOOP, f"folders nested deeper than {max_depth}", str(folder / folders[0])
            )
        pending.extend((folder / name, depth + 1) for name in reversed(folders))
