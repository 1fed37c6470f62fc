"""Reference paths built from traversal fragments never read outside the skill directory.

The world has a skill ``my-skill`` with reference files, and three secrets it must never read: a
file next to the skills directory, a file in the sibling skill directory ``my-skill-evil`` (whose
name merely starts with ``my-skill``), and the same files behind symbolic links placed inside the
skill. Paths are glued together from ``..``, its percent-encodings once and twice, absolute
paths, backslashes and the link names. Whatever the path, every way the port reads a skill
(``resolve_uri``, ``load_skill`` with a URI, ``load_skill`` with a bare name) either refuses with
not-found or security, or returns text containing no secret.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from property_helpers import budget, opened, temporary_world

from skill_conformance.port import ErrorKind, SkillSystemError
from skill_conformance.runtime.blocking import BlockingSkillSystem
from skill_conformance.runtime.world import World

SECRETS = ("SECRET-NEXT-TO-SKILLS", "SECRET-IN-SIBLING")
INSIDE = {"references/guide.md": "GUIDE-INSIDE", "notes.md": "NOTES-INSIDE"}

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def _build(world: World) -> None:
    """Write the world; the sibling is a plain directory (no SKILL.md), so no skill owns it."""
    outside = world.outside_file("secret.md", SECRETS[0])
    skill = world.skill("my-skill")
    skill.files.update(INSIDE)
    sibling = world.skills_dir / "my-skill-evil"
    skill.links.update(
        {
            "references/to-sibling": str(sibling),
            "references/to-sibling-file.md": str(sibling / "secret.md"),
            "references/to-outside.md": str(outside),
            "to-sibling-relative": "../my-skill-evil",
            "to-root": str(world.root),
        }
    )
    world.write()
    (sibling / "references").mkdir(parents=True)
    (sibling / "secret.md").write_text(SECRETS[1])
    (sibling / "references" / "secret.md").write_text(SECRETS[1])


_FRAGMENTS = st.sampled_from(
    [
        "..",
        "%2e%2e",
        "%2E%2E",
        ".%2e",
        "%2e.",
        "%252e%252e",
        "%25252e%25252e",
        ".",
        "",
        "%2f",
        "%252f",
        "%5c",
        "\\",
        "..\\..",
        "references",
        "guide.md",
        "notes.md",
        "secret.md",
        "my-skill-evil",
        "my-skill",
        "skills",
        "to-sibling",
        "to-sibling-file.md",
        "to-outside.md",
        "to-sibling-relative",
        "to-root",
        "ROOT",
    ]
)


_TARGETS = st.sampled_from(
    ["secret.md", "references/secret.md", "to-outside.md", "to-sibling-file.md", "guide.md"]
)

KNOWN_TRAPS = [
    "../../secret.md",
    "../my-skill-evil/secret.md",
    "%2e%2e/%2e%2e/secret.md",
    "%252e%252e/%252e%252e/secret.md",
    "..%2f..%2fsecret.md",
    "..\\..\\secret.md",
    "ROOT/secret.md",
    "/ROOT/secret.md",
    "to-sibling-relative/secret.md",
    "to-sibling-relative/references/secret.md",
    "references/to-sibling/secret.md",
    "references/to-sibling-file.md",
    "references/to-outside.md",
    "to-root/secret.md",
    "to-root/skills/my-skill-evil/secret.md",
]
"""The classic ways out, each tried on every run besides the generated ones."""


@st.composite
def traversal_paths(draw: st.DrawFn) -> str:
    """Fragments glued with ``/`` (sometimes ``\\`` or ``%2f``) towards a target, maybe absolute."""
    parts = [*draw(st.lists(_FRAGMENTS, max_size=5)), draw(_TARGETS)]
    joiner = draw(st.sampled_from(["/", "/", "/", "\\", "%2f", "%252f"]))
    path = joiner.join(parts)
    if draw(st.booleans()):
        path = draw(st.sampled_from(["/", "//", "%2f", "\\", "ROOT/", "/ROOT/"])) + path
    return path


def _reads(system: BlockingSkillSystem, path: str) -> Iterator[str | ErrorKind]:
    """Every read of ``path`` through the port: the text, or the kind of the refusal."""
    attempts = [
        lambda: system.resolve_uri(f"skill://my-skill/{path}").instructions,
        lambda: system.load_skill(f"skill://my-skill/{path}"),
        lambda: system.load_skill(path),
    ]
    for attempt in attempts:
        try:
            text = attempt()
        except SkillSystemError as error:
            yield error.kind
        else:
            yield text


@budget(20)
@given(paths=st.lists(traversal_paths(), min_size=1, max_size=8))
@example(paths=KNOWN_TRAPS)
def test_no_path_reads_outside_the_skill_directory(paths: list[str]) -> None:
    with temporary_world() as world:
        _build(world)
        with opened(world, write=False) as system:
            root = str(world.root)
            texts = {
                path: list(_reads(system, path.replace("ROOT", root.lstrip("/")))) for path in paths
            }
            whole = system.load_skill("my-skill")
    assert not any(secret in whole for secret in SECRETS), whole
    for path, read in texts.items():
        for text in read:
            assert text in (ErrorKind.NOT_FOUND, ErrorKind.SECURITY) or not any(
                secret in text for secret in SECRETS
            ), (path, text)


def test_the_world_really_has_the_secrets_within_reach() -> None:
    """The property can fail: the secrets are there, and plain paths do read inside files."""
    with temporary_world() as world:
        _build(world)
        with opened(world, write=False) as system:
            assert system.resolve_uri("skill://my-skill/notes.md").instructions == "NOTES-INSIDE"
            guide = system.load_skill("skill://my-skill/references/guide.md")
        target = world.skills_dir / "my-skill" / "to-sibling-relative" / "secret.md"
        assert target.read_text() == SECRETS[1]
        assert (world.skills_dir / "my-skill" / "references" / "to-outside.md").read_text() == (
            SECRETS[0]
        )
    assert guide == "GUIDE-INSIDE"
