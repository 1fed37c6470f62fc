"""``load_skill`` and ``list_skills`` as real tools, called by the model in real agent runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.toolsets import FunctionToolset
from reference_helpers import called, offered

from skill_conformance.reference.capabilities import ToolsetCap
from skill_conformance.reference.errors import SecurityError, SkillNotFoundError
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import SkillPool

pytestmark = pytest.mark.anyio


async def started(skills_dir: Path, *children: Any) -> SkillPool:
    pool = SkillPool(skills_dir, children)
    await pool.start()
    return pool


async def load(pool: SkillPool, name: str, arguments: str | None = None) -> str:
    args: dict[str, Any] = {"skill_name": name}
    if arguments is not None:
        args["arguments"] = arguments
    result = await called([pool.skills_tools], "load_skill", args)
    assert isinstance(result, str)
    return result


async def test_offered_as_real_tools(skills_dir: Path) -> None:
    pool = await started(skills_dir)
    assert await offered([pool.skills_tools]) == ["load_skill", "list_skills"]


async def test_load_by_bare_name_or_uri(skills_dir: Path, make_skill: Any) -> None:
    make_skill(
        "ponytail",
        "Tie the hair back.",
        tools=[{"import_path": "json:loads"}],
        mcp_servers={"brush": {"command": "/bin/false"}},
        files={"references/b.md": "B-CONTENT", "references/a.md": "A-CONTENT"},
    )
    pool = await started(skills_dir)
    text = await load(pool, "ponytail")
    assert "Tie the hair back." in text
    assert "ponytail__tool__loads" in text
    assert "brush" in text
    assert text.index("A-CONTENT") < text.index("B-CONTENT")
    assert await load(pool, "skill://ponytail") == text
    assert await load(pool, "skill://ponytail/references/b.md") == "B-CONTENT"


async def test_the_text_of_a_skill_with_everything(
    skills_dir: Path, make_skill: Any, snapshot: Any
) -> None:
    """Instructions, Python tools, MCP servers, then each reference, one section each."""
    make_skill(
        "ponytail",
        "Tie the hair back with $1.",
        tools=[{"import_path": "json:loads"}, {"import_path": "json:dumps"}],
        mcp_servers={"brush": {"command": "/bin/false"}, "comb": {"command": "/bin/false"}},
        files={"references/b.md": "B-CONTENT", "references/a.md": "A-CONTENT"},
    )
    (skills_dir / "ponytail" / "references" / "out.md").symlink_to("../../../secret.md")
    (skills_dir.parent / "secret.md").write_text("TOPSECRET")
    pool = await started(skills_dir)
    assert await load(pool, "ponytail", "ribbon") == snapshot


async def test_arguments_fill_the_instructions_only(skills_dir: Path, make_skill: Any) -> None:
    make_skill("my-skill", "one=$1 ten=$10 all=[$@]", files={"references/r.md": "ref=$1"})
    pool = await started(skills_dir)
    text = await load(pool, "my-skill", "a b")
    assert "one=a ten=$10 all=[a b]" in text
    assert "ref=$1" in text
    assert "one=$1" in await load(pool, "my-skill")


async def test_not_found_names_the_skill(skills_dir: Path, make_skill: Any) -> None:
    make_skill("ponytail")
    pool = await started(skills_dir)
    for name in ("nonexistent", "skill://nonexistent"):
        with pytest.raises(SkillNotFoundError, match="nonexistent"):
            await load(pool, name)


@pytest.mark.parametrize(
    "name",
    [
        "skill://my-skill/../../secret.md",
        "skill://my-skill/%2e%2e/%2e%2e/secret.md",
        "skill://my-skill/%252e%252e/%252e%252e/secret.md",
        "skill://my-skill/references/link.md",
        "../secret.md",
    ],
)
async def test_traversal_is_refused_and_reads_nothing(
    skills_dir: Path, make_skill: Any, name: str
) -> None:
    (skills_dir.parent / "secret.md").write_text("TOPSECRET")
    make_skill("my-skill-evil", files={"secret.md": "TOPSECRET"})
    directory = make_skill("my-skill")
    (directory / "references").mkdir()
    (directory / "references" / "link.md").symlink_to("../../my-skill-evil/secret.md")
    pool = await started(skills_dir)
    with pytest.raises(SecurityError) as caught:
        await load(pool, name)
    assert "TOPSECRET" not in str(caught.value)
    text = await load(pool, "my-skill")
    assert "references/link.md" in text
    assert "TOPSECRET" not in text


async def test_list_skills_local_entries_and_non_skill_children(
    skills_dir: Path, make_skill: Any
) -> None:
    make_skill("one")
    make_skill("two", frontmatter={"description": "The second."})
    pool = await started(skills_dir, ToolsetCap(FunctionToolset()))
    assert await called([pool.skills_tools], "list_skills", {}) == [
        {"name": "one", "description": "Skill one.", "source": "local", "uri": "skill://one"},
        {"name": "two", "description": "The second.", "source": "local", "uri": "skill://two"},
    ]


async def test_remote_providers_are_searched_after_local_skills(
    skills_dir: Path, make_skill: Any
) -> None:
    from skill_conformance.reference.resources import SkillEntry
    from skill_conformance.reference.skill import Skill

    class Remote(ToolsetCap):
        async def list_skills(self) -> list[SkillEntry]:
            return [SkillEntry("shared", "Remote.", "hub"), SkillEntry("far", "Far.", "hub")]

        async def read_skill(self, name: str) -> Skill:
            return Skill(name, "Remote.", f"Remote {name}.", source="hub")

    make_skill("shared", "Local shared.")
    pool = await started(skills_dir, Remote(FunctionToolset()))
    assert "Local shared." in await load(pool, "shared")
    assert "Remote far." in await load(pool, "far")
    listed = await called([pool.skills_tools], "list_skills", {})
    assert isinstance(listed, list)
    assert [(e["name"], e["source"]) for e in listed] == [
        ("shared", "local"),
        ("shared", "hub"),
        ("far", "hub"),
    ]


async def test_what_the_registry_resolves_names_its_skill(
    skills_dir: Path, make_skill: Any
) -> None:
    make_skill("near", files={"references/r.md": "R"})
    (skills_dir / "near" / "references" / "out.md").symlink_to("../../../secret.md")
    (skills_dir.parent / "secret.md").write_text("TOPSECRET")
    pool = await started(skills_dir)
    with pytest.raises(SkillNotFoundError) as missing:
        await pool.manager.read_skill("nowhere")
    assert missing.value.name == "nowhere"
    resolved = await pool.registry.resolve_uri("skill://near/references/r.md")
    assert (resolved.skill.name, resolved.text) == ("near", "R")
    with pytest.raises(SecurityError, match=r"'references/out.md' of skill 'near' leads outside"):
        await pool.registry.resolve_uri("skill://near/references/out.md")


async def test_the_tools_follow_the_pool_across_rebuilds(skills_dir: Path, make_skill: Any) -> None:
    make_skill("old-skill")
    pool = await started(skills_dir)
    first = pool.manager
    (skills_dir / "old-skill" / "SKILL.md").unlink()
    (skills_dir / "old-skill").rmdir()
    make_skill("new-skill", "New.")
    await pool.rebuild()
    assert pool.manager is not first
    assert isinstance(pool.manager, SkillManagerCap)
    assert "New." in await load(pool, "new-skill")
    with pytest.raises(SkillNotFoundError):
        await load(pool, "skill://old-skill")
