"""Read a skill's reference files without ever leaving its directory, and within bounds.

A reference path is walked one component at a time from an open descriptor of the skill's
directory: each component is opened with ``O_NOFOLLOW`` relative to the descriptor of its parent,
and the file is read from the descriptor that was opened, never looked up again by path. A
symbolic link met on the way is followed by hand: its target is taken apart the same way, ``..``
is applied to the path walked so far (never handed to the operating system), and a target that
climbs above the skill's directory, or an absolute target outside it, is refused. So a directory
or file swapped for a link while a reference is read cannot lead outside: the swap is either
seen and checked, or the open fails.

Every failure is one of the skill system's errors, and no message holds a host path: a link loop,
a name too long, a non-regular file (a FIFO is opened without blocking and never read) or a
missing one is not found; a file that cannot be read for lack of permission, or a path leading
outside, is a security error; a file larger than :data:`MAX_REFERENCE_BYTES` is refused unread.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    ReferenceTooLargeError,
    SecurityError,
)
from skill_conformance.reference.uri import check_reference_path

__all__ = ["MAX_REFERENCE_BYTES", "REFERENCES_DIR", "list_references", "read_reference"]

REFERENCES_DIR = "references"

MAX_REFERENCE_BYTES = 1024 * 1024
"""The largest reference file read (1 MiB); a larger one is refused, not cut."""

_MAX_LINKS = 40
"""Symbolic links followed for one path before it counts as a loop (Linux's own limit)."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_PERMISSION = (errno.EACCES, errno.EPERM)


def read_reference(skill: str, directory: Path, path: str) -> str:
    """The text of the file at ``path`` inside ``directory``, the directory of skill ``skill``.

    Raises:
        SecurityError: The path leads outside the skill directory, or the file may not be
            read; nothing was read.
        ReferenceNotFoundError: No regular file is there (or the path loops, or is too long).
        ReferenceTooLargeError: The file is larger than :data:`MAX_REFERENCE_BYTES`.

    """
    check_reference_path(path)
    try:
        root = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as error:
        raise ReferenceNotFoundError(skill, path, _reason(error)) from None
    try:
        fd = _open_inside(skill, directory, root, path)
    finally:
        os.close(root)
    try:
        return _read_bounded(skill, path, fd).decode("utf-8", errors="replace")
    finally:
        os.close(fd)


def _open_inside(skill: str, directory: Path, root: int, path: str) -> int:
    """A descriptor of the regular file ``path`` names inside the directory open as ``root``."""
    walked: list[str] = []  # the components below the root, as resolved so far
    pending = _components(path)
    links = 0
    fds: list[int] = []  # descriptors of the directories of ``walked``, deepest last
    try:
        while pending:
            name = pending.pop(0)
            if name == "..":
                if not walked:
                    raise _outside(skill, path)
                walked.pop()
                os.close(fds.pop())
                continue
            parent = fds[-1] if fds else root
            last = not pending
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_NONBLOCK if last else _DIRECTORY)
            try:
                fd = os.open(name, flags, dir_fd=parent)
            except OSError as error:
                target = _link_target(name, parent, error)
                if target is None:
                    raise _failure(skill, path, error) from None
                links += 1
                if links > _MAX_LINKS:
                    raise ReferenceNotFoundError(skill, path, "symbolic link loop") from None
                if os.path.isabs(target):
                    # From the root again: a target outside starts with "..", refused just below.
                    for fd in fds:
                        os.close(fd)
                    fds.clear()
                    walked.clear()
                    target = _from_root(directory, target)
                pending[:0] = _components(target)
                continue
            if last:
                return fd
            fds.append(fd)
            walked.append(name)
        raise ReferenceNotFoundError(skill, path, "not a file")
    finally:
        for fd in fds:
            os.close(fd)


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _link_target(name: str, parent: int, error: OSError) -> str | None:
    """The target of ``name`` if opening it failed because it is a symbolic link."""
    if error.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return None
    try:
        return os.readlink(name, dir_fd=parent)
    except OSError:
        return None


def _from_root(directory: Path, target: str) -> str:
    """``target``, an absolute path, relative to the skill's directory (``..`` if outside).

    The directory has two spellings when the skills directory is reached through a link (the
    path it was given, and its real path), and a link may be written with either. The relative
    path is walked from the directory's descriptor, component by component, like any other.
    """
    target = os.path.normpath(target)
    real = os.path.realpath(directory)
    for root in (os.path.normpath(os.path.abspath(directory)), real):
        relative = os.path.relpath(target, root)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative
    return os.path.relpath(target, real)


def _read_bounded(skill: str, path: str, fd: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise ReferenceNotFoundError(skill, path, "not a regular file")
    if info.st_size > MAX_REFERENCE_BYTES:
        raise ReferenceTooLargeError(skill, path, MAX_REFERENCE_BYTES)
    os.set_blocking(fd, True)
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_REFERENCE_BYTES:  # a file growing while read is cut off, then refused
        try:
            chunk = os.read(fd, MAX_REFERENCE_BYTES + 1 - size)
        except OSError as error:
            raise _failure(skill, path, error) from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    raise ReferenceTooLargeError(skill, path, MAX_REFERENCE_BYTES)


def _outside(skill: str, path: str) -> SecurityError:
    return SecurityError(f"reference {path!r} of skill {skill!r} leads outside its directory")


def _failure(skill: str, path: str, error: OSError) -> Exception:
    """The skill system's error for an ``OSError``, without the host path it carries."""
    if error.errno in _PERMISSION:
        return SecurityError(f"reference {path!r} of skill {skill!r} may not be read")
    return ReferenceNotFoundError(skill, path, _reason(error))


def _reason(error: OSError) -> str:
    """Why a file is not there, unless it simply does not exist; never the path."""
    if error.errno == errno.ENOENT:
        return ""
    return os.strerror(error.errno) if error.errno is not None else type(error).__name__


def list_references(directory: Path) -> list[str]:
    """Paths (relative to ``directory``, ``/``-separated, sorted) of files under ``references/``.

    Only folders inside the skill's directory are looked into: a ``references/`` that is a link
    leading out of it lists nothing, as what it leads to could not be read either (links below it
    are not followed at all). A file that is a link is listed under its own name, which is the
    skill's; reading it decides whether it may be read.
    """
    base = directory / REFERENCES_DIR
    inside = os.path.realpath(directory)
    found = []
    for folder, _, files in os.walk(base, followlinks=False):
        if not _within(os.path.realpath(folder), inside):
            continue
        for name in files:
            found.append((Path(folder) / name).relative_to(directory).as_posix())
    return sorted(found)


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
