from __future__ import annotations

from pathlib import Path

import pytest

from skill_conformance.reference.errors import ReferenceNotFoundError, SecurityError
from skill_conformance.reference.references import list_references, read_reference


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "skills" / "my-skill"
    (directory / "references" / "deep").mkdir(parents=True)
    (directory / "references" / "guide.md").write_text("GUIDE-CONTENT")
    (directory / "references" / "deep" / "b.md").write_text("B")
    (directory / "references" / "a.md").write_text("A")
    (tmp_path / "secret.md").write_text("TOPSECRET")
    evil = tmp_path / "skills" / "my-skill-evil"
    evil.mkdir()
    (evil / "secret.md").write_text("TOPSECRET")
    return directory


def test_reads_inside_the_skill(skill_dir: Path) -> None:
    assert read_reference("my-skill", skill_dir, "references/guide.md") == "GUIDE-CONTENT"
    assert read_reference("my-skill", skill_dir, "./references/deep/b.md") == "B"


def test_lists_reference_files_sorted(skill_dir: Path) -> None:
    assert list_references(skill_dir) == [
        "references/a.md",
        "references/deep/b.md",
        "references/guide.md",
    ]
    assert list_references(skill_dir / "references") == []


@pytest.mark.parametrize(
    "path", ["../../secret.md", "references/../../../secret.md", "/etc/passwd", "..\\secret.md"]
)
def test_lexical_traversal(skill_dir: Path, path: str) -> None:
    with pytest.raises(SecurityError) as caught:
        read_reference("my-skill", skill_dir, path)
    assert "TOPSECRET" not in str(caught.value)


def test_a_symlink_into_a_prefix_sharing_sibling_is_outside(skill_dir: Path) -> None:
    link = skill_dir / "references" / "link.md"
    link.symlink_to("../../my-skill-evil/secret.md")
    resolved, root = str(link.resolve()), str(skill_dir.resolve())
    assert resolved.startswith(root), "a string prefix check would let this through"
    with pytest.raises(SecurityError) as caught:
        read_reference("my-skill", skill_dir, "references/link.md")
    assert "TOPSECRET" not in str(caught.value)


def test_a_symlinked_directory_out_of_the_skill_is_outside(skill_dir: Path) -> None:
    (skill_dir / "references" / "out").symlink_to(skill_dir.parent.parent, target_is_directory=True)
    with pytest.raises(SecurityError):
        read_reference("my-skill", skill_dir, "references/out/secret.md")


def test_a_symlink_inside_the_skill_is_followed(skill_dir: Path) -> None:
    (skill_dir / "references" / "alias.md").symlink_to("guide.md")
    assert read_reference("my-skill", skill_dir, "references/alias.md") == "GUIDE-CONTENT"


@pytest.mark.parametrize("path", ["references/missing.md", "references", "references/deep"])
def test_no_file_there(skill_dir: Path, path: str) -> None:
    with pytest.raises(ReferenceNotFoundError, match="my-skill"):
        read_reference("my-skill", skill_dir, path)


def test_errors_name_the_skill_and_the_path(skill_dir: Path) -> None:
    with pytest.raises(ReferenceNotFoundError) as missing:
        read_reference("my-skill", skill_dir, "references/missing.md")
    assert (missing.value.skill, missing.value.path) == ("my-skill", "references/missing.md")
    assert str(missing.value) == "skill 'my-skill' has no reference 'references/missing.md'"
    with pytest.raises(SecurityError) as outside:
        read_reference("my-skill", skill_dir, "../../secret.md")
    assert "'../../secret.md'" in str(outside.value)


def test_bytes_that_are_not_utf8_are_replaced(skill_dir: Path) -> None:
    (skill_dir / "references" / "latin.md").write_bytes(b"caf\xe9 \xc3\xa9")
    assert read_reference("my-skill", skill_dir, "references/latin.md") == "caf\ufffd \u00e9"


def test_listing_does_not_descend_into_a_symlinked_directory(skill_dir: Path) -> None:
    (skill_dir / "references" / "out").symlink_to(skill_dir.parent.parent, target_is_directory=True)
    assert list_references(skill_dir) == [
        "references/a.md",
        "references/deep/b.md",
        "references/guide.md",
    ]


def test_a_references_folder_linked_out_of_the_skill_lists_nothing(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "outside-name.md").write_text("TOPSECRET")
    skill = tmp_path / "skills" / "linked-refs"
    skill.mkdir(parents=True)
    (skill / "references").symlink_to(elsewhere, target_is_directory=True)
    assert list_references(skill) == []
    with pytest.raises(SecurityError):
        read_reference("linked-refs", skill, "references/outside-name.md")


def test_a_references_folder_linked_inside_the_skill_is_listed_and_read(skill_dir: Path) -> None:
    docs = skill_dir / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("NOTE")
    (skill_dir / "references" / "deep" / "b.md").unlink()
    (skill_dir / "references" / "deep").rmdir()
    moved = skill_dir / "refs-before"
    (skill_dir / "references").rename(moved)
    (skill_dir / "references").symlink_to("docs", target_is_directory=True)
    assert list_references(skill_dir) == ["references/note.md"]
    assert read_reference("my-skill", skill_dir, "references/note.md") == "NOTE"


def test_a_hard_linked_reference_is_read_as_the_file_it_is(skill_dir: Path) -> None:
    """A hard link leads nowhere: it is the file, under one more name, in the skill's folder."""
    outside = skill_dir.parent.parent / "shared.md"
    outside.write_text("SHARED-CONTENT")
    (skill_dir / "references" / "shared.md").hardlink_to(outside)
    assert "references/shared.md" in list_references(skill_dir)
    assert read_reference("my-skill", skill_dir, "references/shared.md") == "SHARED-CONTENT"


def test_a_skill_folder_installed_by_a_link_is_confined_to_the_folder_it_leads_to(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store" / "linked"
    (store / "references").mkdir(parents=True)
    (store / "references" / "guide.md").write_text("LINKED-GUIDE")
    (store / "references" / "up.md").symlink_to("../../sibling.md")
    (tmp_path / "store" / "sibling.md").write_text("TOPSECRET")
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "linked").symlink_to(store, target_is_directory=True)
    linked = skills / "linked"
    assert list_references(linked) == ["references/guide.md", "references/up.md"]
    assert read_reference("linked", linked, "references/guide.md") == "LINKED-GUIDE"
    with pytest.raises(SecurityError):
        read_reference("linked", linked, "references/up.md")
