"""The reference skills server's cues for the host profile: each misbehaves as it says, alone."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from skill_conformance.testing.skills_server import (
    TAMPERED,
    Cues,
    SkillsFolder,
    _log,
    decoy_text,
)


def _skill(root: Path, path: str) -> None:
    folder = root / path
    folder.mkdir(parents=True)
    name = path.rsplit("/", 1)[-1]
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: D.\n---\nBody of {name}.\n")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    _skill(tmp_path, "alpha")
    _skill(tmp_path, "acme/beta")
    return tmp_path


def _listed(folder: SkillsFolder) -> list[str]:
    return sorted(entry["uri"] for entry in folder.listing()["skills"])


def test_without_cues_every_skill_is_listed_and_read_as_written(root: Path) -> None:
    folder = SkillsFolder(root)
    assert _listed(folder) == ["skill://acme/beta/SKILL.md", "skill://alpha/SKILL.md"]
    text = folder.read("skill://alpha/SKILL.md")["contents"][0]["text"]
    assert text.encode() == (root / "alpha" / "SKILL.md").read_bytes()


def test_unlisted_leaves_the_skill_out_of_the_listing_only(root: Path) -> None:
    folder = SkillsFolder(root, Cues(unlisted=frozenset({"acme/beta"})))
    assert _listed(folder) == ["skill://alpha/SKILL.md"]
    assert folder.answer("skills/get", {"uri": "skill://acme/beta/SKILL.md"})["skill"]


def test_tamper_serves_bytes_the_listed_digest_does_not_cover(root: Path) -> None:
    folder = SkillsFolder(root, Cues(tamper=frozenset({"alpha"})))
    entry = folder.entry("skill://alpha/SKILL.md")
    (listed,) = [r for r in entry["resources"] if r["uri"] == "skill://alpha/SKILL.md"]
    served = folder.read("skill://alpha/SKILL.md")["contents"][0]["text"].encode()
    written = (root / "alpha" / "SKILL.md").read_bytes()
    assert served == written + TAMPERED
    assert listed["digest"] == "sha256:" + hashlib.sha256(written).hexdigest()
    beta = folder.read("skill://acme/beta/SKILL.md")["contents"][0]["text"].encode()
    assert beta == (root / "acme" / "beta" / "SKILL.md").read_bytes()


def test_decoy_is_a_resource_and_no_skill(root: Path) -> None:
    folder = SkillsFolder(root, Cues(decoys=("decoy",)))
    uris = [r["uri"] for r in folder.resources()["resources"]]
    assert "skill://decoy/SKILL.md" in uris
    assert "skill://decoy/SKILL.md" not in _listed(folder)
    assert folder.read("skill://decoy/SKILL.md")["contents"][0]["text"] == decoy_text("decoy")
    with pytest.raises(Exception, match="No skill"):
        folder.answer("skills/get", {"uri": "skill://decoy/SKILL.md"})


def test_the_log_holds_each_request_as_a_json_line(tmp_path: Path) -> None:
    log = tmp_path / "requests.log"
    _log(log, "skills/list", {})
    _log(log, "skills/get", {"uri": "skill://alpha/SKILL.md"})
    _log(None, "skills/list", {})
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines == [
        {"method": "skills/list", "params": {}},
        {"method": "skills/get", "params": {"uri": "skill://alpha/SKILL.md"}},
    ]
