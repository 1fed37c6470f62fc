"""Mutants of the pool, the extension registry, the skill tools and the agent factory."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import unquote

from pydantic_ai import Agent, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from skill_conformance.reference import mcp_client
from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    SecurityError,
    SkillNotFoundError,
)
from skill_conformance.reference.factory import AgentFactory
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.registry import (
    POOL_SCOPE,
    ExtensionRegistry,
    ResolvedURI,
    Scope,
    ScopeLevel,
)
from skill_conformance.reference.resources import SkillResource
from skill_conformance.reference.skill_tools import SkillToolsProvider, render_skill
from skill_conformance.reference.substitution import substitute_arguments
from skill_conformance.reference.uri import SCHEME, is_skill_uri, parse_skill_uri
from tests.mutants.base import mutant

_SESSION = Scope(ScopeLevel.SESSION, session_id="session-1")

# -- the pool and the registry -------------------------------------------------------------


class NeverRegisters(SkillPool):
    """RFC regression (a): the skill manager is built but never registered with the registry."""

    def _install(self, manager: SkillManagerCap) -> None:
        self._manager = manager


class RegistersAtSessionScope(ExtensionRegistry):
    """Puts what is registered at pool scope at one session's scope instead."""

    def register(self, capability: AbstractCapability[Any], scope: Scope = POOL_SCOPE) -> None:
        super().register(capability, _SESSION if scope == POOL_SCOPE else scope)

    def unregister(self, capability: AbstractCapability[Any], scope: Scope = POOL_SCOPE) -> bool:
        return super().unregister(capability, _SESSION if scope == POOL_SCOPE else scope)


class NeverUnregisters(ExtensionRegistry):
    """Keeps every registration: a rebuild leaves the old skill manager registered."""

    def unregister(self, capability: AbstractCapability[Any], scope: Scope = POOL_SCOPE) -> bool:
        return False


class RebuildDoesNotRegister(SkillPool):
    """Registers the skill manager at start-up only; a rebuilt one is never registered."""

    async def rebuild(self) -> None:
        await super().rebuild()
        self.registry.unregister(self.manager, POOL_SCOPE)


class RebuildKeepsOldManager(SkillPool):
    """Registers the rebuilt manager, but agents keep getting the one built at start-up."""

    async def rebuild(self) -> None:
        old = self.manager
        self.registry.unregister(old, POOL_SCOPE)
        self.registry.register(await self._build(), POOL_SCOPE)


class ClosesWithoutExiting(SkillPool):
    """Closing unregisters the manager but leaves an entered one (and its servers) running."""

    async def close(self) -> None:
        if self._manager is not None:
            self.registry.unregister(self._manager, POOL_SCOPE)
        self._manager = None


class StartsServerWhenBuilt(SkillPool):
    """Connects the first skill's first MCP server as soon as the manager is built."""

    _eager: list[McpServerCap]

    async def start(self) -> None:
        await super().start()
        self._eager = []
        for name in self.manager.skills:
            for server in self.manager.skill_mcp_children(name)[:1]:
                await server.__aenter__()
                self._eager.append(server)
                return

    async def close(self) -> None:
        try:
            for server in reversed(getattr(self, "_eager", [])):
                await server.__aexit__(None, None, None)
        finally:
            await super().close()


class PrefixContainment(ExtensionRegistry):
    """Checks a reference's resolved path by string prefix: `my-skill-evil` is inside `my-skill`."""

    async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
        parsed = parse_skill_uri(uri)
        skill = await self.find_skill(parsed.name, scope)
        if parsed.reference is None or skill.directory is None:
            return await super().resolve_uri(uri, scope)
        root = skill.directory.resolve()
        target = (root / parsed.reference).resolve()
        if not str(target).startswith(str(root)):
            raise SecurityError(f"reference {parsed.reference!r} leads outside its directory")
        if not target.is_file():
            raise ReferenceNotFoundError(skill.name, parsed.reference)
        return ResolvedURI(skill, parsed.reference, target.read_text())


class ChecksOnlyTheRawPath(ExtensionRegistry):
    """Refuses `..` as written, then percent-decodes and reads without checking again."""

    async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
        name, _, raw = uri[len(SCHEME) :].partition("/")
        if not raw:
            return await super().resolve_uri(uri, scope)
        if raw.startswith("/") or ".." in raw.split("/"):
            raise SecurityError(f"reference {raw!r} leads outside the skill directory")
        skill = await self.find_skill(unquote(name), scope)
        if skill.directory is None:
            raise ReferenceNotFoundError(skill.name, raw)
        target = skill.directory / unquote(raw)
        if not target.is_file():
            raise ReferenceNotFoundError(skill.name, raw)
        return ResolvedURI(skill, raw, target.read_text())


class ReadsUncheckedReferences(ExtensionRegistry):
    """Reads ``skill://{name}/{path}`` from the skill's directory with no check at all."""

    async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
        name, _, raw = uri[len(SCHEME) :].partition("/")
        if not raw:
            return await super().resolve_uri(uri, scope)
        skill = await self.find_skill(unquote(name), scope)
        target = (skill.directory or Path()) / unquote(raw)
        if not target.is_file():
            raise ReferenceNotFoundError(skill.name, raw)
        return ResolvedURI(skill, raw, target.read_text())


class NamesHostPaths(ExtensionRegistry):
    """Refuses what it must, but its message names the absolute paths it compared."""

    async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
        try:
            return await super().resolve_uri(uri, scope)
        except SecurityError:
            name, _, raw = uri[len(SCHEME) :].partition("/")
            root = ((await self.find_skill(unquote(name), scope)).directory or Path()).resolve()
            raise SecurityError(f"{root / unquote(raw)} is not inside {root}") from None


# -- load_skill and list_skills ------------------------------------------------------------


class NotFoundReturnsEmpty(SkillToolsProvider):
    """Answers a skill it cannot find with an empty text instead of a not-found error."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        try:
            return await super().load_skill(skill_name, arguments)
        except SkillNotFoundError:
            return ""


class IgnoresRemoteProviders(SkillToolsProvider):
    """Finds and lists local skills only, never asking the remote skill providers."""

    async def list_skills(self) -> list[dict[str, str | None]]:
        return [entry for entry in await super().list_skills() if entry["source"] == "local"]

    async def _find(self, name: str) -> Any:
        manager = self.host.manager
        if name in manager.skills:
            return manager.skills[name]
        raise SkillNotFoundError(name)


class AsksEveryChild(SkillToolsProvider):
    """Asks every non-skill child for skills, skill resource or not."""

    async def list_skills(self) -> list[dict[str, str | None]]:
        manager = self.host.manager
        entries = await manager.list_skills()
        for child in manager.children:
            resource: SkillResource = child  # type: ignore[assignment]
            entries.extend(await resource.list_skills())
        return [
            {"name": e.name, "description": e.description, "source": e.source, "uri": e.uri}
            for e in entries
        ]


_SINGLE_DIGIT = re.compile(r"\$(ARGUMENTS|@|[1-9])")


def _single_digit(text: str, arguments: str | None) -> str:
    if arguments is None:
        return text
    positional = arguments.split()

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in ("@", "ARGUMENTS"):
            return arguments
        index = int(key)
        return positional[index - 1] if index <= len(positional) else match.group(0)

    return _SINGLE_DIGIT.sub(replace, text)


class SingleDigitPlaceholders(SkillToolsProvider):
    """Reads `$10` as `$1` followed by `0`."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        return _single_digit(await super().load_skill(skill_name, None), arguments)


class SubstitutesTwice(SkillToolsProvider):
    """Substitutes again in the text the arguments brought in."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        text = await super().load_skill(skill_name, arguments)
        return substitute_arguments(text, arguments)


class LeavesOutReferences(SkillToolsProvider):
    """Returns a skill's text without the content of its reference files."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        text = await super().load_skill(skill_name, arguments)
        return text.split("\n\n## Reference: ")[0] + "\n"


class ListsLocalSkillsWithoutUri(SkillToolsProvider):
    """Lists local skills without their flat ``skill://`` URI."""

    async def list_skills(self) -> list[dict[str, str | None]]:
        return [{**entry, "uri": None} for entry in await super().list_skills()]


class ReadsTextResourcesOnly(SkillToolsProvider):
    """Reads only the text parts of a remote skill: content served as bytes comes back empty."""

    async def _find(self, name: str) -> Any:
        with mock.patch.object(mcp_client, "_binary_text", return_value=""):
            return await super()._find(name)


class DescribesRemoteSkillsByName(SkillToolsProvider):
    """Lists a remote skill with its name as its description, not the one its provider gives."""

    async def list_skills(self) -> list[dict[str, str | None]]:
        return [
            entry if entry["source"] == "local" else {**entry, "description": entry["name"]}
            for entry in await super().list_skills()
        ]


class RendersWholeSkillForReference(SkillToolsProvider):
    """Answers ``skill://{name}/{path}`` with the whole skill, references inlined, not the file."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        if not is_skill_uri(skill_name):
            return await super().load_skill(skill_name, arguments)
        skill = (await self.host.registry.resolve_uri(skill_name, self.scope)).skill
        return render_skill(skill, arguments, self.host.manager.python_tool_names(skill.name))


class OffersOnlyLoadSkill(SkillToolsProvider):
    """Offers `load_skill` but not `list_skills`."""

    def get_toolset(self) -> AbstractToolset[Any]:
        return FunctionToolset([Tool(self.load_skill, name="load_skill", takes_ctx=False)])


class BackslashAsSeparator(SkillToolsProvider):
    """Reads a bare name holding ``\\`` as a path under the skills directory, unchecked."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        if "\\" in skill_name and not skill_name.startswith(SCHEME):
            skills_dir = Path(getattr(self.host, "skills_dir"))  # noqa: B009 - not in SkillHost
            target = skills_dir / skill_name.replace("\\", "/")
            if target.is_file():
                return target.read_text()
        return await super().load_skill(skill_name, arguments)


# -- the reader of a skill's files ---------------------------------------------------------


def _reads_any_path(skill: str, directory: Path, path: str) -> str:
    """A reader that joins and reads, checking nothing."""
    target = directory / path
    if not target.is_file():
        raise ReferenceNotFoundError(skill, path)
    return target.read_text()


def _prefix_contained(skill: str, directory: Path, path: str) -> str:
    """A reader that resolves, then checks containment by string prefix."""
    root = directory.resolve()
    target = (root / path).resolve()
    if not str(target).startswith(str(root)):
        raise SecurityError(f"{path!r} leads outside the skill {skill!r}")
    if not target.is_file():
        raise ReferenceNotFoundError(skill, path)
    return target.read_text()


def _reads_unbounded(skill: str, directory: Path, path: str) -> str:
    """A reader that checks the path as written, then reads whatever it names to its end."""
    if Path(path).is_absolute() or ".." in Path(path).parts:
        raise SecurityError(f"{path!r} leads outside the skill {skill!r}")
    return (directory / path).read_text()


ReadsAnyPathMutant = mutant("ReadsAnyPathMutant", reader=_reads_any_path)
ReadsUnboundedMutant = mutant("ReadsUnboundedMutant", reader=_reads_unbounded)
PrefixContainedReaderMutant = mutant("PrefixContainedReaderMutant", reader=_prefix_contained)


# -- the agent factory ---------------------------------------------------------------------


class ChildSessionMissesSkillTools(AgentFactory):
    """RFC regression (c): the child-session path builds its agent without the pool's providers."""

    def create_child_session_agent(
        self, parent: str = "session-agent", name: str = "child-agent"
    ) -> Agent[None, str]:
        """A child session's agent with the skill manager only."""
        return Agent(self.model, name=f"{parent}/{name}", capabilities=[self.host.pool.manager])


class StandaloneMissesSkillTools(AgentFactory):
    """The standalone path builds its agent without the pool's providers."""

    def create_standalone_agent(self, name: str = "standalone-agent") -> Agent[None, str]:
        """A standalone agent with the skill manager only."""
        return Agent(self.model, name=name, capabilities=[self.host.pool.manager])


class InjectsWithoutAHostProvider(AgentFactory):
    """Injects the pool's skill tools even when the host has no skill tools provider."""

    def _inject_pool_providers(self, capabilities: list[AbstractCapability[Any]]) -> None:
        capabilities.append(self.host.skills_tools_provider or self.host.pool.skills_tools)


NeverRegistersMutant = mutant("NeverRegistersMutant", pool=NeverRegisters)
RegistersAtSessionScopeMutant = mutant(
    "RegistersAtSessionScopeMutant", registry=RegistersAtSessionScope
)
NeverUnregistersMutant = mutant("NeverUnregistersMutant", registry=NeverUnregisters)
RebuildDoesNotRegisterMutant = mutant("RebuildDoesNotRegisterMutant", pool=RebuildDoesNotRegister)
RebuildKeepsOldManagerMutant = mutant("RebuildKeepsOldManagerMutant", pool=RebuildKeepsOldManager)
StartsServerWhenBuiltMutant = mutant("StartsServerWhenBuiltMutant", pool=StartsServerWhenBuilt)
ClosesWithoutExitingMutant = mutant("ClosesWithoutExitingMutant", pool=ClosesWithoutExiting)
PrefixContainmentMutant = mutant("PrefixContainmentMutant", registry=PrefixContainment)
ChecksOnlyTheRawPathMutant = mutant("ChecksOnlyTheRawPathMutant", registry=ChecksOnlyTheRawPath)
ReadsUncheckedReferencesMutant = mutant(
    "ReadsUncheckedReferencesMutant", registry=ReadsUncheckedReferences
)
NamesHostPathsMutant = mutant("NamesHostPathsMutant", registry=NamesHostPaths)
BackslashAsSeparatorMutant = mutant("BackslashAsSeparatorMutant", provider=BackslashAsSeparator)
NotFoundReturnsEmptyMutant = mutant("NotFoundReturnsEmptyMutant", provider=NotFoundReturnsEmpty)
IgnoresRemoteProvidersMutant = mutant(
    "IgnoresRemoteProvidersMutant", provider=IgnoresRemoteProviders
)
AsksEveryChildMutant = mutant("AsksEveryChildMutant", provider=AsksEveryChild)
SingleDigitPlaceholdersMutant = mutant(
    "SingleDigitPlaceholdersMutant", provider=SingleDigitPlaceholders
)
SubstitutesTwiceMutant = mutant("SubstitutesTwiceMutant", provider=SubstitutesTwice)
LeavesOutReferencesMutant = mutant("LeavesOutReferencesMutant", provider=LeavesOutReferences)
ListsLocalSkillsWithoutUriMutant = mutant(
    "ListsLocalSkillsWithoutUriMutant", provider=ListsLocalSkillsWithoutUri
)
ReadsTextResourcesOnlyMutant = mutant(
    "ReadsTextResourcesOnlyMutant", provider=ReadsTextResourcesOnly
)
DescribesRemoteSkillsByNameMutant = mutant(
    "DescribesRemoteSkillsByNameMutant", provider=DescribesRemoteSkillsByName
)
RendersWholeSkillForReferenceMutant = mutant(
    "RendersWholeSkillForReferenceMutant", provider=RendersWholeSkillForReference
)
OffersOnlyLoadSkillMutant = mutant("OffersOnlyLoadSkillMutant", provider=OffersOnlyLoadSkill)
ChildSessionMissesSkillToolsMutant = mutant(
    "ChildSessionMissesSkillToolsMutant", factory=ChildSessionMissesSkillTools
)
StandaloneMissesSkillToolsMutant = mutant(
    "StandaloneMissesSkillToolsMutant", factory=StandaloneMissesSkillTools
)
InjectsWithoutAHostProviderMutant = mutant(
    "InjectsWithoutAHostProviderMutant", factory=InjectsWithoutAHostProvider
)
