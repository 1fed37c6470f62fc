"""Hostile and odd ``SKILL.md`` files: each one loads or is refused on one short line, quickly.

Every case writes one odd skill next to a healthy one and loads the directory in a thread with a
deadline, so a loader that blocks on a pipe or reads a device without end fails here instead of
hanging the run. The healthy skill must load in every case.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_conformance.reference.frontmatter import MAX_FILE_BYTES, MAX_FRONTMATTER_BYTES
from skill_conformance.reference.loader import MAX_PROBLEM_LENGTH, LoadResult, load_skills

_DEADLINE = 10.0
_LAUGHS = ", ".join(
    [
        "&a [x, x, x, x, x, x, x, x, x, x]",
        *(f"&{b} [{', '.join([f'*{a}'] * 10)}]" for a, b in zip("abcdefg", "bcdefgh", strict=True)),
        f"[{', '.join(['*h'] * 10)}]",
    ]
)
"""A YAML flow sequence whose aliases stand for 10**9 values."""


def _md(*lines: str, ending: str = "\n") -> bytes:
    return ending.join(lines).encode() + ending.encode()


def _load_within(skills_dir: Path) -> LoadResult:
    results: list[LoadResult] = []
    errors: list[BaseException] = []

    def load() -> None:
        try:
            results.append(load_skills(skills_dir))
        except BaseException as error:  # what escapes the loader is the finding
            errors.append(error)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(_DEADLINE)
    assert not thread.is_alive(), f"load_skills did not return within {_DEADLINE} s"
    assert not errors, f"load_skills raised {type(errors[0]).__name__}: {str(errors[0])[:200]}"
    return results[0]


@dataclass(frozen=True)
class Odd:
    """One odd skill: how to put it in place, and whether it must load (and as what)."""

    write: Callable[[Path], None]
    loads_as: str | None = None
    description: str | None = None


def _text(data: bytes) -> Callable[[Path], None]:
    def write(skill_md: Path) -> None:
        skill_md.write_bytes(data)

    return write


def _fifo(skill_md: Path) -> None:
    os.mkfifo(skill_md)


def _folder(skill_md: Path) -> None:
    skill_md.mkdir()


def _link_to(target: str) -> Callable[[Path], None]:
    def write(skill_md: Path) -> None:
        skill_md.symlink_to(target)

    return write


def _link_outside(skill_md: Path) -> None:
    outside = skill_md.parents[2] / "outside.md"
    outside.write_bytes(_md("---", "name: odd", "description: Outside.", "---", "OUTSIDE"))
    skill_md.symlink_to(outside)


def _frontmatter_of(size: int) -> bytes:
    head = "name: odd\ndescription: Padded.\n"
    padding = ("# " + "p" * 77 + "\n") * ((size - len(head)) // 80 + 1)
    return f"---\n{head}{padding}---\nBody.\n".encode()


CASES = {
    "bom": Odd(_text(b"\xef\xbb\xbf" + _md("---", "name: odd", "description: D.", "---")), "odd"),
    "crlf": Odd(
        _text(_md("---", "name: odd", "description: D.", "---", ending="\r\n")), "odd", "D."
    ),
    "cr": Odd(_text(_md("---", "name: odd", "description: D.", "---", ending="\r")), "odd", "D."),
    "inline-dashes": Odd(
        _text(_md("---", "name: odd", "description: a --- b", "---")), "odd", "a --- b"
    ),
    "unquoted-colon": Odd(
        _text(_md("---", "name: odd", "description: Use when: asked", "---")),
        "odd",
        "Use when: asked",
    ),
    "name-differs": Odd(_text(_md("---", "name: other", "description: D.", "---")), "other"),
    "optional-fields": Odd(
        _text(
            _md(
                "---",
                "name: odd",
                "description: D.",
                "license: MIT",
                "compatibility: Any.",
                "metadata: {author: me}",
                "---",
            )
        ),
        "odd",
    ),
    "unknown-field": Odd(_text(_md("---", "name: odd", "description: D.", "x-y: 1", "---")), "odd"),
    "description-1025": Odd(_text(_md("---", "name: odd", f"description: {'d' * 1025}", "---"))),
    "duplicate-key": Odd(
        _text(_md("---", "name: odd", "description: A.", "description: B.", "---"))
    ),
    "nested-1000": Odd(
        _text(_md("---", "name: odd", f"description: {'[' * 1000}{']' * 1000}", "---"))
    ),
    "laughs-in-name": Odd(_text(_md("---", f"name: [{_LAUGHS}]", "description: D.", "---"))),
    "laughs-in-import-path": Odd(
        _text(
            _md(
                "---",
                "name: odd",
                "description: D.",
                "tools:",
                f"  - import_path: [{_LAUGHS}]",
                "---",
            )
        )
    ),
    "frontmatter-over-limit": Odd(_text(_frontmatter_of(MAX_FRONTMATTER_BYTES + 1))),
    "frontmatter-10-mb": Odd(_text(_frontmatter_of(10_000_000))),
    "file-over-limit": Odd(
        _text(_md("---", "name: odd", "description: D.", "---", "b" * MAX_FILE_BYTES))
    ),
    "folder": Odd(_folder),
    "fifo": Odd(_fifo),
    "dev-zero": Odd(_link_to("/dev/zero")),
    "link-outside": Odd(_link_outside),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_odd_skill_loads_or_is_refused_on_one_short_line(skills_dir: Path, case: Odd) -> None:
    (skills_dir / "healthy").mkdir()
    (skills_dir / "healthy" / "SKILL.md").write_text(
        "---\nname: healthy\ndescription: H.\n---\nH.\n"
    )
    (skills_dir / "odd").mkdir()
    case.write(skills_dir / "odd" / "SKILL.md")
    result = _load_within(skills_dir)
    expected = sorted(["healthy", *([case.loads_as] if case.loads_as else [])])
    assert sorted(result.skills) == expected
    assert result.skills["healthy"].instructions == "H."
    if case.description is not None:
        assert result.skills["odd"].description == case.description
    for problem in result.problems:
        assert len(problem) <= MAX_PROBLEM_LENGTH, problem[:200]
        assert "\n" not in problem
    if case.loads_as is None:
        assert len(result.problems) == 1, result.problems
        assert str(skills_dir / "odd" / "SKILL.md") in result.problems[0]


def test_a_name_two_directories_declare_goes_to_the_one_named_like_it(skills_dir: Path) -> None:
    for folder, name, description in (
        ("a-copy", "tidy", "Stray."),
        ("tidy", "tidy", "Real."),
        ("one", "shared", "First."),
        ("two", "shared", "Second."),
    ):
        (skills_dir / folder).mkdir()
        text = f"---\nname: {name}\ndescription: {description}\n---\n"
        (skills_dir / folder / "SKILL.md").write_text(text)
    result = load_skills(skills_dir)
    described = {name: skill.description for name, skill in result.skills.items()}
    assert described == {"tidy": "Real.", "shared": "First."}
    for folder in ("a-copy", "two"):
        path = f"{skills_dir / folder / 'SKILL.md'}:"
        [problem] = [p for p in result.problems if p.startswith(path)]
        assert "is also declared by" in problem, problem


def test_the_limits_accept_a_skill_just_within_them(skills_dir: Path) -> None:
    (skills_dir / "ample").mkdir()
    body = "b" * (MAX_FILE_BYTES - MAX_FRONTMATTER_BYTES - 200)
    data = _frontmatter_of(MAX_FRONTMATTER_BYTES - 100)[: -len("Body.\n")] + body.encode()
    assert len(data) <= MAX_FILE_BYTES
    (skills_dir / "ample" / "SKILL.md").write_bytes(data.replace(b"name: odd", b"name: ample"))
    result = load_skills(skills_dir)
    assert list(result.skills) == ["ample"], result.problems


def test_a_refused_skill_is_one_problem_whatever_else_it_holds(skills_dir: Path) -> None:
    (skills_dir / "folder").mkdir()
    lines = ["---", "name: other", "description: D.", "x-field: 1"]
    lines += ["tools: [{import_path: 'no-colon'}]", "allowed-tools: 7", "---"]
    text = "\n".join(lines) + "\n"
    (skills_dir / "folder" / "SKILL.md").write_text(text)
    result = load_skills(skills_dir)
    assert result.skills == {}
    [problem] = result.problems
    assert "allowed-tools" in problem
