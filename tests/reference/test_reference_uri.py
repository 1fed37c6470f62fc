from __future__ import annotations

import re

import pytest

from skill_conformance.reference.errors import SecurityError, SkillNotFoundError
from skill_conformance.reference.uri import (
    SkillURI,
    check_reference_path,
    check_skill_name,
    format_skill_uri,
    is_skill_uri,
    parse_skill_uri,
)


@pytest.mark.parametrize(
    ("uri", "parsed"),
    [
        ("skill://my-skill", SkillURI("my-skill")),
        ("skill://my-skill/", SkillURI("my-skill")),
        ("skill://my-skill/references/guide.md", SkillURI("my-skill", "references/guide.md")),
        ("skill://my-skill/references/a%20b.md", SkillURI("my-skill", "references/a b.md")),
        ("skill://my-skill/./references/x.md", SkillURI("my-skill", "./references/x.md")),
        ("skill://my%2Dskill", SkillURI("my-skill")),
    ],
)
def test_parse(uri: str, parsed: SkillURI) -> None:
    assert parse_skill_uri(uri) == parsed


@pytest.mark.parametrize(
    "uri",
    [
        "skill://my-skill/../../secret.md",
        "skill://my-skill/references/../../x.md",
        "skill://my-skill/%2e%2e/%2e%2e/secret.md",
        "skill://my-skill/%2E%2E/secret.md",
        "skill://my-skill/..%2f..%2fsecret.md",
        "skill://my-skill/%252e%252e/%252e%252e/secret.md",
        "skill://my-skill/%25252e%25252e/secret.md",
        "skill://my-skill//etc/passwd",
        "skill://my-skill/%2fetc/passwd",
        "skill://my-skill/..\\secret.md",
        "skill://my-skill/references%5c..%5csecret.md",
        "skill://my-skill/a%00b",
        "skill://../secret.md",
        "skill://%2e%2e/secret.md",
        "skill://a%2fb",
    ],
)
def test_traversal_is_a_security_error(uri: str) -> None:
    with pytest.raises(SecurityError):
        parse_skill_uri(uri)


@pytest.mark.parametrize("uri", ["skill://", "local:my-skill"])
def test_no_skill_named(uri: str) -> None:
    with pytest.raises(SkillNotFoundError):
        parse_skill_uri(uri)


def test_format_is_flat_and_round_trips() -> None:
    assert format_skill_uri("my-skill") == "skill://my-skill"
    assert (
        format_skill_uri("my-skill", "references/a b.md") == "skill://my-skill/references/a%20b.md"
    )
    for parsed in (SkillURI("one"), SkillURI("one", "references/a b.md")):
        assert parse_skill_uri(str(parsed)) == parsed


def test_is_skill_uri() -> None:
    assert is_skill_uri("skill://x")
    assert not is_skill_uri("x")


def test_a_plain_name_is_checked_for_path_characters_only() -> None:
    assert check_skill_name("X") == "X"
    assert check_skill_name("a.b") == "a.b"
    for name in ("a/b", "a\\b", "a\x00b", "..", "."):
        with pytest.raises(SecurityError, match=re.escape(repr(name))):
            check_skill_name(name)
    with pytest.raises(SkillNotFoundError) as empty:
        check_skill_name("")
    assert (str(empty.value), empty.value.name) == ("skill '' not found", "")


def test_security_errors_name_the_path() -> None:
    with pytest.raises(
        SecurityError, match=r"^reference path '/etc/passwd' is not a relative path$"
    ):
        check_reference_path("/etc/passwd")
    deep = "%2e%2e"
    for _ in range(9):
        deep = deep.replace("%", "%25")
    with pytest.raises(SecurityError, match=r"is encoded too many times$") as caught:
        check_reference_path(deep)
    assert repr(deep) in str(caught.value)


def test_what_is_not_a_skill_uri_is_not_found_naming_it() -> None:
    with pytest.raises(SkillNotFoundError) as caught:
        parse_skill_uri("file:///etc/passwd")
    assert caught.value.name == "file:///etc/passwd"
