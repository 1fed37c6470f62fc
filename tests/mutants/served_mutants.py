"""Mutants of the reference as a host of MCP's Skills Extension (host profile), one per clause."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession

from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.errors import SkillNotFoundError
from skill_conformance.reference.resources import LOCAL_SOURCE
from skill_conformance.reference.served_skills import ServedSkillsCap
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.skill_tools import SkillToolsProvider
from tests.mutants.base import mutant


class TakesResourcesForSkills(ServedSkillsCap):
    """mcpskills.host.discovery: every resource the server lists is a skill, extension or not."""

    async def list_skills(self) -> Any:
        await self.declares_extension()
        return await McpServerCap.list_skills(self)


class LoadsListedSkillsOnly(ServedSkillsCap):
    """mcpskills.host.uri-alone: a URI the listing does not give is no skill (a partial listing)."""

    async def load_uri(self, uri: str) -> Skill:
        if uri not in {entry.uri for entry in await self.list_skills()}:
            raise SkillNotFoundError(uri)
        return await super().load_uri(uri)


class ShadowsServedSkills(SkillToolsProvider):
    """mcpskills.host.origin-names: a served skill with a local skill's name is dropped unsaid."""

    async def list_skills(self) -> list[dict[str, str | None]]:
        local = set(self.host.manager.skills)
        return [
            entry
            for entry in await super().list_skills()
            if entry["source"] == LOCAL_SOURCE or str(entry["name"]).split("/")[-1] not in local
        ]


class TrustsTheBytes(ServedSkillsCap):
    """mcpskills.host.digest: the bytes read are never checked against the entry's digest."""

    def _verify(self, uri: str, entry: Any, data: bytes) -> None:
        return None


class ActivatesNestedSkills(ServedSkillsCap):
    """mcpskills.host.nested: a nested skill is a skill of its own, no approval asked."""

    async def _nested(self, session: ClientSession, uri: str, listed: set[str]) -> bool:
        return False


TakesResourcesForSkillsMutant = mutant("takes-resources-for-skills", served=TakesResourcesForSkills)
LoadsListedSkillsOnlyMutant = mutant("loads-listed-skills-only", served=LoadsListedSkillsOnly)
ShadowsServedSkillsMutant = mutant("shadows-served-skills", provider=ShadowsServedSkills)
TrustsTheBytesMutant = mutant("trusts-the-bytes", served=TrustsTheBytes)
ActivatesNestedSkillsMutant = mutant("activates-nested-skills", served=ActivatesNestedSkills)
