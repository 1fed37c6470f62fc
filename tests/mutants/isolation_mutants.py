"""Mutants of failure isolation, rebuilds while entered, precedence and reference reading.

Each is a bug class seen in skill systems: an import that lets ``SystemExit`` through, one dead
MCP server failing every run, a rebuild that forgets the entered manager, a remote skill
shadowing a local one, a bare name checked for one separator only, reference files read by path
after a check, or errors quoting the host's paths.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from pydantic_ai import Tool
from pydantic_ai.toolsets import FunctionToolset

from skill_conformance.reference import skill_tools
from skill_conformance.reference.errors import (
    ReferenceNotFoundError,
    SecurityError,
    ToolImportError,
)
from skill_conformance.reference.isolation import IsolatedToolset, ServerHealth
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.mcp_client import McpServer
from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.references import list_references, read_reference
from skill_conformance.reference.registry import POOL_SCOPE, ExtensionRegistry, ResolvedURI, Scope
from skill_conformance.reference.skill import McpServerSpec, Skill
from skill_conformance.reference.skill_tools import SkillToolsProvider
from skill_conformance.reference.uri import SCHEME, is_skill_uri, parse_skill_uri
from tests.mutants.base import mutant

# -- a skill whose tools fail SHALL take no other skill's tools away ----------------------------


class ImportsInPlace(SkillManagerCap):
    """Imports tool modules in the host's own thread, catching ``Exception`` only."""

    def _import(self, import_path: str) -> Callable[..., Any]:
        module_name, _, attribute = import_path.rpartition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as error:
            raise ToolImportError(f"{import_path}: {error}") from error
        function: Callable[..., Any] = getattr(module, attribute)
        return function


class ImportsWithoutTimeout(SkillManagerCap):
    """Contains whatever a tool module raises, but waits for its import without a bound."""

    def _import(self, import_path: str) -> Callable[..., Any]:
        module_name, _, attribute = import_path.rpartition(":")
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["module"] = importlib.import_module(module_name)
            except BaseException as error:
                outcome["error"] = error

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join()
        if "error" in outcome:
            raise ToolImportError(f"{import_path}: {outcome['error']!r}")
        function: Callable[..., Any] = getattr(outcome["module"], attribute)
        return function


class DeadServerFailsEveryRun(SkillManagerCap):
    """Offers each skill MCP server's toolset as it is: one that cannot start fails every run."""

    def _isolated(self, skill: Skill, spec: McpServerSpec, server: McpServer) -> McpServer:
        return server


class _Retrying(IsolatedToolset):
    async def __aenter__(self) -> IsolatedToolset:
        self.health.failure = None
        return await super().__aenter__()


class RetriesDeadServers(SkillManagerCap):
    """Isolates a dead MCP server but tries to start it again on every enter and every run."""

    def _isolated(self, skill: Skill, spec: McpServerSpec, server: McpServer) -> McpServer:
        health = ServerHealth(
            f"skill {skill.name!r}: MCP server {spec.name!r}", self.problems.append
        )
        return server.wrapped(_Retrying(server.toolset, health=health))


# -- a pool rebuild SHALL stop the MCP servers of the skill manager it replaces ------------------


class RebuildForgetsEnteredManager(SkillPool):
    """Replaces the manager on a rebuild without exiting the old one: its servers keep running."""

    async def rebuild(self) -> None:
        old = self.manager
        self.registry.unregister(old, POOL_SCOPE)
        self._manager = None
        self._install(await self._build())


# -- skill tool registration SHALL survive pool rebuild ----------------------------------------


class RebuildStrandsKeptTools(SkillPool):
    """After a rebuild, the tools of skills that were already there dispatch to the old manager,
    which was closed: they are listed, but calling one fails."""

    async def rebuild(self) -> None:
        before = set(self.manager.skills)
        await super().rebuild()
        manager = self.manager
        for name in before & set(manager.skills):
            kept = manager._skill_tools.get(name)
            if kept is not None:
                manager._skill_tools[name] = FunctionToolset(
                    [Tool(_stranded(tool), name=tool) for tool in kept.tools]
                )


def _stranded(name: str) -> Callable[[], str]:
    def tool() -> str:
        raise RuntimeError(f"tool {name!r} belongs to a skill manager that was closed")

    tool.__name__ = name
    return tool


# -- load_skill: names, precedence ------------------------------------------------------------


class RemoteSkillsFirst(SkillToolsProvider):
    """Looks a bare name up in the remote skill providers before the local skills."""

    async def _find(self, name: str) -> Skill:
        for provider in self.host.manager.remote_skill_resources():
            if any(entry.name == name for entry in await provider.list_skills()):
                return await provider.read_skill(name)
        return await super()._find(name)


def _backslashes_only(name: str) -> str:
    if "\\" in name:
        raise SecurityError(f"skill name {name!r} is not a plain name")
    return name


class ChecksOnlyBackslashes(SkillToolsProvider):
    """Refuses a bare name holding a backslash, and lets `/` and dot-only names through.

    The check is the one ``_find`` makes of every bare name it looks up (a served skill's
    per-origin name too): overriding ``load_skill`` alone left it in place.
    """

    async def _find(self, name: str) -> Skill:
        with mock.patch.object(skill_tools, "check_skill_name", _backslashes_only):
            return await super()._find(name)


# -- reading a reference file ------------------------------------------------------------------


def _read_by_path(skill: str, directory: Path, path: str) -> str:
    """Resolve, check containment, then read by path again: the reading before this change."""
    root = directory.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise SecurityError(f"reference {path!r} of skill {skill!r} leads outside its directory")
    if not target.is_file():
        raise ReferenceNotFoundError(skill, path)
    return target.read_text(encoding="utf-8", errors="replace")


def _read_quoting_host_paths(skill: str, directory: Path, path: str) -> str:
    """Reads within the skill, but every failure quotes the absolute paths it compared."""
    target = directory / path
    try:
        resolved = target.resolve()
        if not resolved.is_relative_to(directory.resolve()):
            raise SecurityError(f"{target} resolves to {resolved}, outside the skill directory")
        if target.stat().st_size > 1024 * 1024:
            raise ReferenceNotFoundError(skill, f"{target} is too large")
        return target.read_text(encoding="utf-8", errors="replace")
    except (OSError, RuntimeError) as error:
        raise ReferenceNotFoundError(skill, f"{target}: {error}") from None


def _read_following_final_link(skill: str, directory: Path, path: str) -> str:
    """Checks that the file's directory lies inside the skill, then opens the file by name."""
    target = directory / path
    if not target.parent.resolve().is_relative_to(directory.resolve()):
        raise SecurityError(f"reference {path!r} of skill {skill!r} leads outside its directory")
    try:
        return target.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ReferenceNotFoundError(skill, path) from None


def _read_opening_blocking(skill: str, directory: Path, path: str) -> str:
    """Checks containment and that the reference exists, then opens it for a bounded read."""
    root = directory.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise SecurityError(f"reference {path!r} of skill {skill!r} leads outside its directory")
    if not target.exists() or target.is_dir():
        raise ReferenceNotFoundError(skill, path)
    with target.open("rb") as handle:  # a named pipe blocks here until someone writes
        data = handle.read(16 * 1024 * 1024 + 1)
    if len(data) > 16 * 1024 * 1024:
        raise ReferenceNotFoundError(skill, path)
    return data.decode("utf-8", errors="replace")


def _refusing_absolute_links(skill: str, directory: Path, path: str) -> str:
    """Refuses a reference reached through a link with an absolute target, even one inside."""
    current = directory
    for part in path.split("/"):
        current = current / part
        if current.is_symlink() and os.path.isabs(os.readlink(current)):
            raise SecurityError(f"reference {path!r} of skill {skill!r} links by absolute path")
    return read_reference(skill, directory, path)


def _refusing_links_upward(skill: str, directory: Path, path: str) -> str:
    """Refuses a reference reached through a link whose target climbs with ``..``, even inside."""
    current = directory
    for part in path.split("/"):
        current = current / part
        if current.is_symlink() and ".." in os.readlink(current).split("/"):
            raise SecurityError(f"reference {path!r} of skill {skill!r} links upward")
    return read_reference(skill, directory, path)


def reading(read: Callable[[str, Path, str], str], doc: str) -> dict[str, Any]:
    """A mutant's parts reading a skill's files with ``read``: by URI and by its file reader."""
    registry = _reading_registry(read, absolute=False)
    registry.__doc__ = doc
    return {"registry": registry, "reader": read}


def _reading_registry(
    read: Callable[[str, Path, str], str], *, absolute: bool
) -> type[ExtensionRegistry]:
    class Registry(ExtensionRegistry):
        async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
            name, _, raw = uri[len(SCHEME) :].partition("/")
            if not raw or (raw.startswith("/") and not absolute):
                return await super().resolve_uri(uri, scope)
            if raw.startswith("/"):  # read as it is, the way `directory / raw` would
                skill = await self.find_skill(name, scope)
                return ResolvedURI(skill, raw, Path(raw).read_text())
            parsed = parse_skill_uri(uri)
            skill = await self.find_skill(parsed.name, scope)
            if parsed.reference is None or skill.directory is None:
                return await super().resolve_uri(uri, scope)
            text = read(skill.name, skill.directory, parsed.reference)
            return ResolvedURI(skill, parsed.reference, text)

    return Registry


ReadsReferencesByPath = _reading_registry(_read_by_path, absolute=False)
ReadsReferencesByPath.__doc__ = (
    "Checks a reference's resolved path, then reads it by path, unbounded."
)
QuotesHostPaths = _reading_registry(_read_quoting_host_paths, absolute=False)
QuotesHostPaths.__doc__ = "Reads references within bounds, but its errors quote absolute paths."
FollowsFinalLink = _reading_registry(_read_following_final_link, absolute=False)
FollowsFinalLink.__doc__ = "Checks the reference's directory only, then follows a final link."
OpensPipesBlocking = _reading_registry(_read_opening_blocking, absolute=False)
OpensPipesBlocking.__doc__ = "Reads any reference that exists and is no folder, opened blocking."
ReadsAbsolutePaths = _reading_registry(_read_by_path, absolute=True)
ReadsAbsolutePaths.__doc__ = "Reads an absolute reference path as it is, unchecked."


class InlinesReferencesByPath(SkillToolsProvider):
    """A bare-name load reads every reference by path, and one that fails fails the load."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        text = await super().load_skill(skill_name, arguments)
        if is_skill_uri(skill_name):
            return text
        skill = await self._find(skill_name)
        if skill.directory is None:
            return text
        head = text.split("\n\n## Reference: ")[0]
        sections = [head]
        for path in list_references(skill.directory):
            content = _read_by_path(skill.name, skill.directory, path)
            sections.append(f"## Reference: {path}\n{content}")
        return "\n\n".join(sections) + "\n"


class InlinesPipesBlocking(SkillToolsProvider):
    """A bare-name load inlines each reference, opened blocking; one that fails is left out."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        text = await super().load_skill(skill_name, arguments)
        if is_skill_uri(skill_name):
            return text
        skill = await self._find(skill_name)
        if skill.directory is None:
            return text
        sections = [text.split("\n\n## Reference: ")[0]]
        for path in list_references(skill.directory):
            try:
                content = _read_opening_blocking(skill.name, skill.directory, path)
            except (ReferenceNotFoundError, SecurityError):
                continue
            sections.append(f"## Reference: {path}\n{content}")
        return "\n\n".join(sections) + "\n"


ImportsInPlaceMutant = mutant("ImportsInPlaceMutant", manager=ImportsInPlace)
ImportsWithoutTimeoutMutant = mutant("ImportsWithoutTimeoutMutant", manager=ImportsWithoutTimeout)
DeadServerFailsEveryRunMutant = mutant(
    "DeadServerFailsEveryRunMutant", manager=DeadServerFailsEveryRun
)
RetriesDeadServersMutant = mutant("RetriesDeadServersMutant", manager=RetriesDeadServers)
RebuildForgetsEnteredManagerMutant = mutant(
    "RebuildForgetsEnteredManagerMutant", pool=RebuildForgetsEnteredManager
)
RebuildStrandsKeptToolsMutant = mutant(
    "RebuildStrandsKeptToolsMutant", pool=RebuildStrandsKeptTools
)
RemoteSkillsFirstMutant = mutant("RemoteSkillsFirstMutant", provider=RemoteSkillsFirst)
ChecksOnlyBackslashesMutant = mutant("ChecksOnlyBackslashesMutant", provider=ChecksOnlyBackslashes)
ReadsReferencesByPathMutant = mutant("ReadsReferencesByPathMutant", registry=ReadsReferencesByPath)
QuotesHostPathsMutant = mutant(
    "QuotesHostPathsMutant", registry=QuotesHostPaths, reader=_read_quoting_host_paths
)
FollowsFinalLinkMutant = mutant("FollowsFinalLinkMutant", registry=FollowsFinalLink)
ReadsAbsolutePathsMutant = mutant("ReadsAbsolutePathsMutant", registry=ReadsAbsolutePaths)
RefusesAbsoluteLinksMutant = mutant(
    "RefusesAbsoluteLinksMutant",
    **reading(
        _refusing_absolute_links, "Refuses every link with an absolute target, even one inside."
    ),
)
RefusesLinksUpwardMutant = mutant(
    "RefusesLinksUpwardMutant",
    **reading(
        _refusing_links_upward,
        "Refuses every link whose target holds '..', even one staying inside.",
    ),
)
InlinesReferencesByPathMutant = mutant(
    "InlinesReferencesByPathMutant", provider=InlinesReferencesByPath
)
OpensPipesBlockingMutant = mutant("OpensPipesBlockingMutant", registry=OpensPipesBlocking)
InlinesPipesBlockingMutant = mutant("InlinesPipesBlockingMutant", provider=InlinesPipesBlocking)
