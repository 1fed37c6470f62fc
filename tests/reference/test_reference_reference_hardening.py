"""Reference files: read through the descriptor that was checked, bounded, with port errors."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    ReferenceTooLargeError,
    SecurityError,
)
from skill_conformance.reference.references import MAX_REFERENCE_BYTES, read_reference
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.skill_tools import render_skill


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "skills" / "my-skill"
    (directory / "references").mkdir(parents=True)
    (directory / "references" / "guide.md").write_text("GUIDE-CONTENT")
    (tmp_path / "secret.md").write_text("TOPSECRET")
    return directory


def _host_path_free(error: BaseException, skill_dir: Path) -> None:
    text = str(error)
    assert str(skill_dir.parent.parent) not in text, text
    assert str(skill_dir.resolve().parent.parent) not in text, text


def test_a_sparse_gibibyte_is_refused_unread(skill_dir: Path) -> None:
    with (skill_dir / "references" / "huge.md").open("wb") as handle:
        handle.truncate(1024**3)
    started = time.monotonic()
    with pytest.raises(ReferenceTooLargeError, match=r"references/huge\.md") as error:
        read_reference("my-skill", skill_dir, "references/huge.md")
    assert time.monotonic() - started < 1
    _host_path_free(error.value, skill_dir)


def test_a_file_of_exactly_the_limit_is_read(skill_dir: Path) -> None:
    (skill_dir / "references" / "full.md").write_bytes(b"x" * MAX_REFERENCE_BYTES)
    assert len(read_reference("my-skill", skill_dir, "references/full.md")) == MAX_REFERENCE_BYTES


@pytest.mark.parametrize("target", ["loop.md", "../references/loop.md"])
def test_a_symlink_loop_is_not_found(skill_dir: Path, target: str) -> None:
    (skill_dir / "references" / "loop.md").symlink_to(target)
    with pytest.raises(ReferenceNotFoundError, match="loop") as error:
        read_reference("my-skill", skill_dir, "references/loop.md")
    _host_path_free(error.value, skill_dir)


def test_a_name_too_long_is_not_found_without_the_host_path(skill_dir: Path) -> None:
    path = "references/" + "a" * 300 + ".md"
    with pytest.raises(ReferenceNotFoundError, match="too long") as error:
        read_reference("my-skill", skill_dir, path)
    _host_path_free(error.value, skill_dir)


def test_a_fifo_is_not_found_and_never_blocks(skill_dir: Path) -> None:
    os.mkfifo(skill_dir / "references" / "pipe.md")
    with pytest.raises(ReferenceNotFoundError, match="not a regular file"):
        read_reference("my-skill", skill_dir, "references/pipe.md")


def test_a_directory_is_not_found(skill_dir: Path) -> None:
    (skill_dir / "references" / "dir.md").mkdir()
    with pytest.raises(ReferenceNotFoundError):
        read_reference("my-skill", skill_dir, "references/dir.md")


def test_a_file_that_may_not_be_read_is_a_security_error(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root every file is readable: the permission error is raised where the file is opened.
    real_open = os.open

    def refusing(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if path == "guide.md":
            raise PermissionError(13, "Permission denied", str(skill_dir / "references" / path))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing)
    with pytest.raises(SecurityError, match="may not be read") as error:
        read_reference("my-skill", skill_dir, "references/guide.md")
    _host_path_free(error.value, skill_dir)


def test_links_inside_the_skill_are_followed(skill_dir: Path) -> None:
    (skill_dir / "references" / "alias.md").symlink_to("guide.md")
    (skill_dir / "refs").symlink_to("references")
    (skill_dir / "references" / "absolute.md").symlink_to(skill_dir / "references" / "guide.md")
    for path in ("references/alias.md", "refs/guide.md", "refs/alias.md", "references/absolute.md"):
        assert read_reference("my-skill", skill_dir, path) == "GUIDE-CONTENT", path


@pytest.mark.parametrize("target", ["../../../secret.md", "/etc/hostname", "../.."])
def test_links_leading_outside_are_refused(skill_dir: Path, target: str) -> None:
    (skill_dir / "references" / "out.md").symlink_to(target)
    with pytest.raises(SecurityError):
        read_reference("my-skill", skill_dir, "references/out.md")


def test_a_bare_name_render_survives_unreadable_references(skill_dir: Path) -> None:
    (skill_dir / "references" / "loop.md").symlink_to("loop.md")
    os.mkfifo(skill_dir / "references" / "pipe.md")
    with (skill_dir / "references" / "huge.md").open("wb") as handle:
        handle.truncate(1024**3)
    skill = Skill(name="my-skill", description="d", instructions="Body.", directory=skill_dir)
    text = render_skill(skill, None, [])
    assert "Body." in text
    assert "GUIDE-CONTENT" in text
    for name in ("loop.md", "pipe.md", "huge.md"):
        assert f"## Reference: references/{name}\n(not read: " in text
    assert str(skill_dir.parent.parent) not in text


def test_a_directory_swapped_for_a_link_while_reading_never_leaks(
    skill_dir: Path, tmp_path: Path
) -> None:
    """A racing swapper flips ``references/`` between the real directory and a link outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "guide.md").write_text("TOPSECRET")
    references = skill_dir / "references"
    real = skill_dir / "references.real"
    link = skill_dir / "references.link"
    link.symlink_to(outside)
    references.rename(real)
    real.rename(references)
    stop = threading.Event()
    swaps = 0

    def swapper() -> None:
        nonlocal swaps
        while not stop.is_set():
            references.rename(real)
            link.rename(references)  # now a link to the outside
            references.rename(link)
            real.rename(references)
            swaps += 1

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    leaked, read, refused, crashed = 0, 0, 0, 0
    deadline = time.monotonic() + 2.0
    try:
        while time.monotonic() < deadline:
            try:
                text = read_reference("my-skill", skill_dir, "references/guide.md")
            except (SecurityError, ReferenceNotFoundError):
                refused += 1
                continue
            except Exception:  # counted: the port would see a crash
                crashed += 1
                continue
            read += 1
            leaked += text == "TOPSECRET"
    finally:
        stop.set()
        thread.join(5)
    calls = read + refused + crashed
    assert swaps > 100, swaps
    assert (leaked, crashed) == (0, 0), f"of {calls} calls {leaked} leaked, {crashed} crashed"
    assert read > 0, (read, refused)
    assert refused > 0, (read, refused)
