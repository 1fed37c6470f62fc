from __future__ import annotations

from pathlib import Path

import pytest
from reference_helpers import SkillWriter

from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.skill import (
    McpServerSpec,
    PythonToolSpec,
    Skill,
    is_valid_skill_name,
)


def test_a_full_skill(skills_dir: Path, make_skill: SkillWriter) -> None:
    directory = make_skill(
        "my-skill",
        "Use $1.\n",
        allowed_tools=["read", "list"],
        tools=[{"type": "python", "import_path": "json:loads"}, {"import_path": "json:dumps"}],
        mcp_servers={"server1": {"command": "/bin/python", "args": ["-m", "x"], "env": {"A": "1"}}},
    )
    result = load_skills(skills_dir)
    assert result.problems == []
    assert result.skills == {
        "my-skill": Skill(
            name="my-skill",
            description="Skill my-skill.",
            instructions="Use $1.",
            directory=directory,
            allowed_tools=frozenset({"read", "list"}),
            tools=(PythonToolSpec("json:loads"), PythonToolSpec("json:dumps")),
            mcp_servers=(
                McpServerSpec("server1", command="/bin/python", args=("-m", "x"), env={"A": "1"}),
            ),
        )
    }


def test_allowed_tools_absent_empty_or_listed(skills_dir: Path, make_skill: SkillWriter) -> None:
    make_skill("absent")
    make_skill("empty", allowed_tools=[])
    make_skill("listed", allowed_tools=["read"])
    make_skill("spaced", allowed_tools="read, write list")
    skills = load_skills(skills_dir).skills
    assert skills["absent"].allowed_tools is None
    assert skills["empty"].allowed_tools == frozenset()
    assert skills["listed"].allowed_tools == frozenset({"read"})
    assert skills["spaced"].allowed_tools == frozenset({"read", "write", "list"})


def test_skills_load_in_directory_order(skills_dir: Path, make_skill: SkillWriter) -> None:
    for name in ("beta", "alpha", "gamma"):
        make_skill(name)
    (skills_dir / "notes.txt").write_text("not a skill")
    (skills_dir / ".hidden").mkdir()
    assert list(load_skills(skills_dir).skills) == ["alpha", "beta", "gamma"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"frontmatter": {"name": "Bad_Name"}}, "name"),
        ({"frontmatter": {"description": ""}}, "description"),
        ({"allowed_tools": {"read": True}}, "allowed-tools"),
        ({"tools": "json:loads"}, "tools"),
        ({"mcp_servers": ["server1"]}, "mcp-servers"),
        ({"raw": "---\nname: [unclosed\n---\nbody\n"}, "malformed YAML"),
        ({"raw": "no frontmatter here\n"}, "frontmatter"),
        ({"raw": "---\nname: bad\n"}, "not closed"),
        ({"raw": "---\n- a list\n---\n"}, "not a mapping"),
    ],
)
def test_a_bad_skill_is_skipped_with_one_problem(
    skills_dir: Path, make_skill: SkillWriter, kwargs: dict[str, object], field: str
) -> None:
    make_skill("bad", **kwargs)
    make_skill("good")
    result = load_skills(skills_dir)
    assert list(result.skills) == ["good"]
    [problem] = result.problems
    assert str(skills_dir / "bad" / "SKILL.md") in problem
    assert field in problem
    assert "\n" not in problem


@pytest.mark.parametrize(
    ("kwargs", "loads_as", "words"),
    [
        ({"frontmatter": {"name": "other"}}, "other", "name: 'other' differs from the directory"),
        ({"frontmatter": {"colour": "blue"}}, "bad", "colour: unknown frontmatter field, ignored"),
    ],
)
def test_a_skill_with_a_warning_loads_with_one_problem(
    skills_dir: Path,
    make_skill: SkillWriter,
    kwargs: dict[str, object],
    loads_as: str,
    words: str,
) -> None:
    make_skill("bad", **kwargs)
    make_skill("good")
    result = load_skills(skills_dir)
    assert sorted(result.skills) == sorted([loads_as, "good"])
    [problem] = result.problems
    assert problem.startswith(str(skills_dir / "bad" / "SKILL.md")), problem
    assert words in problem


def test_a_directory_without_skill_md_is_a_problem(skills_dir: Path) -> None:
    (skills_dir / "empty-dir").mkdir()
    [problem] = load_skills(skills_dir).problems
    assert problem == (
        f"{skills_dir / 'empty-dir' / 'SKILL.md'}: skill 'empty-dir': SKILL.md: cannot read "
        "(No such file or directory); skill skipped"
    )


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("json:loads", "must be a mapping"),
        ({"type": "python"}, "import_path None"),
        ({"import_path": "no-colon"}, "import_path 'no-colon'"),
        ({"import_path": "json:"}, "import_path 'json:'"),
        ({"import_path": ":loads"}, "import_path ':loads'"),
        ({"type": "js", "import_path": "x:y"}, "type 'js'"),
        ({"import_path": "json:dumps", "extra": 1}, "unknown field 'extra'"),
    ],
)
def test_a_bad_tools_entry_is_skipped_alone(
    skills_dir: Path, make_skill: SkillWriter, entry: object, words: str
) -> None:
    make_skill("tooled", tools=[entry, {"import_path": "json:loads"}])
    result = load_skills(skills_dir)
    assert result.skills["tooled"].tools == (PythonToolSpec("json:loads"),)
    [problem] = result.problems
    assert "tooled" in problem
    assert "tools[0]" in problem
    assert words in problem


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({}, "neither command nor url"),
        ({"args": ["x"]}, "neither command nor url"),
        ({"command": "a", "url": "http://b"}, "both command and url"),
        ({"command": "a", "args": "not a list"}, "args"),
        ({"command": "a", "env": ["x"]}, "env"),
        ({"command": "a", "cwd": "/"}, "unknown field 'cwd'"),
        ("python -m x", "must be a mapping"),
    ],
)
def test_a_bad_server_is_skipped_alone(
    skills_dir: Path, make_skill: SkillWriter, entry: object, words: str
) -> None:
    make_skill("misconfigured", mcp_servers={"ghost": entry, "fine": {"url": "http://x/mcp"}})
    result = load_skills(skills_dir)
    assert result.skills["misconfigured"].mcp_servers == (
        McpServerSpec("fine", url="http://x/mcp"),
    )
    [problem] = result.problems
    assert "misconfigured" in problem
    assert "mcp-servers.ghost" in problem
    assert words in problem


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("my-skill", True),
        ("a", True),
        ("skill2", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("", False),
        ("My-Skill", False),
        ("a--b", False),
        ("-a", False),
        ("a-", False),
        ("a_b", False),
        ("a b", False),
    ],
)
def test_skill_names(name: str, valid: bool) -> None:
    assert is_valid_skill_name(name) is valid


def test_a_missing_skills_directory_is_a_problem(tmp_path: Path) -> None:
    result = load_skills(tmp_path / "nowhere")
    assert result.skills == {}
    assert len(result.problems) == 1


def test_a_skill_md_that_is_not_utf8_is_a_problem(skills_dir: Path) -> None:
    (skills_dir / "latin").mkdir()
    (skills_dir / "latin" / "SKILL.md").write_bytes(
        b"---\nname: latin\ndescription: caf\xe9\n---\n"
    )
    [problem] = load_skills(skills_dir).problems
    assert problem == (
        f"{skills_dir / 'latin' / 'SKILL.md'}:3: skill 'latin': SKILL.md: not UTF-8 (byte 0xe9 at"
        " offset 32); skill skipped"
    )


def test_hidden_directories_and_stray_files_are_not_skills(
    skills_dir: Path, make_skill: SkillWriter
) -> None:
    make_skill("visible")
    hidden = skills_dir / ".hidden"
    hidden.mkdir()
    (hidden / "SKILL.md").write_text("---\nname: hidden\ndescription: x\n---\n")
    (skills_dir / "notes.txt").write_text("not a skill")
    result = load_skills(skills_dir)
    assert list(result.skills) == ["visible"]
    assert result.problems == []


def test_a_skills_path_that_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = load_skills(tmp_path / "file")
    assert result.problems == [f"{tmp_path / 'file'}: not a directory; no skills loaded"]
