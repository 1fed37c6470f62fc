"""Mutants of the reference as a host of MCP's Skills Extension (host profile), one per clause."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, FilteredToolset

from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.errors import SkillNotFoundError
from skill_conformance.reference.manager import SkillManagerCap
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


class GrantsNestedAllowedTools(ServedSkillsCap):
    """mcpskills.host.nested: a nested skill is not offered, but its allowed-tools are kept."""

    granted: frozenset[str] = frozenset()

    async def _nested(self, session: ClientSession, uri: str, listed: set[str]) -> bool:
        nested = await super()._nested(session, uri, listed)
        if nested:
            entry = (await self._call(session, "skills/get", uri=uri)).get("skill") or {}
            allowed = (entry.get("frontmatter") or {}).get("allowed-tools") or []
            names = allowed.split() if isinstance(allowed, str) else [str(a) for a in allowed]
            self.granted = self.granted | frozenset(names)
        return nested


class AppliesGrantedTools(SkillManagerCap):
    """...and the skill manager narrows the model's tools to them, no approval asked."""

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        granted = frozenset().union(*(getattr(c, "granted", frozenset()) for c in self.children))
        if not granted:
            return super().get_wrapper_toolset(toolset)

        def keep(ctx: RunContext[Any], tool_def: ToolDefinition) -> bool:
            return tool_def.name in granted

        return FilteredToolset(toolset, keep)


TakesResourcesForSkillsMutant = mutant("takes-resources-for-skills", served=TakesResourcesForSkills)
LoadsListedSkillsOnlyMutant = mutant("loads-listed-skills-only", served=LoadsListedSkillsOnly)
ShadowsServedSkillsMutant = mutant("shadows-served-skills", provider=ShadowsServedSkills)
TrustsTheBytesMutant = mutant("trusts-the-bytes", served=TrustsTheBytes)
ActivatesNestedSkillsMutant = mutant("activates-nested-skills", served=ActivatesNestedSkills)
GrantsNestedAllowedToolsMutant = mutant(
    "grants-nested-allowed-tools", served=GrantsNestedAllowedTools, manager=AppliesGrantedTools
)
