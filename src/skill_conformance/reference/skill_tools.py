"""``load_skill`` and ``list_skills``: the two tools through which an agent finds and reads skills.

:class:`SkillToolsProvider` is a capability offering both as real pydantic-ai tools. It reads the
pool it serves each time a tool is called, so it always sees the skill manager of the latest
rebuild.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from pydantic_ai import Tool
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from skill_conformance.reference.capabilities import IdentityCapability
from skill_conformance.reference.errors import SkillError, SkillNotFoundError
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.references import list_references, read_reference
from skill_conformance.reference.registry import POOL_SCOPE, ExtensionRegistry, Scope
from skill_conformance.reference.resources import SkillEntry
from skill_conformance.reference.served_skills import ServedSkillsCap
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.substitution import substitute_arguments
from skill_conformance.reference.uri import check_skill_name, is_skill_uri

__all__ = ["SkillHost", "SkillToolsProvider", "render_skill"]


class SkillHost(Protocol):
    """What the skill tools read from the pool they serve."""

    @property
    def manager(self) -> SkillManagerCap:
        """The pool's current skill manager."""
        ...

    @property
    def registry(self) -> ExtensionRegistry:
        """The pool's extension registry."""
        ...


class SkillToolsProvider(IdentityCapability):
    """The capability offering ``load_skill`` and ``list_skills`` over a pool's skills.

    Args:
        host: The pool.
        scope: The registry scope ``skill://`` URIs are resolved at.

    """

    _schemas: ClassVar[dict[tuple[type, str], Any]] = {}
    """Each class's tool schemas, built once: pydantic builds one in about a millisecond."""

    def __init__(self, host: SkillHost, *, scope: Scope = POOL_SCOPE) -> None:
        self.host = host
        self.scope = scope
        # Equivalent mutants: the names are the methods' own, pydantic-ai infers takes_ctx=False
        # from the signatures, and the id only labels the toolset in pydantic-ai's messages.
        # pragma: no mutate start
        self._toolset = FunctionToolset(
            [
                self._tool(self.load_skill, "load_skill"),
                self._tool(self.list_skills, "list_skills"),
            ],
            id="skill-tools",
        )
        # pragma: no mutate end

    def _tool(self, method: Callable[..., Any], name: str) -> Tool[Any]:
        """The tool calling ``method``, its schema the one this class's first tool of it got."""
        key = (type(self), name)
        schema = self._schemas.get(key)
        if schema is None:
            tool: Tool[Any] = Tool(method, name=name, takes_ctx=False)
            self._schemas[key] = tool.function_schema
            return tool
        bound = dataclasses.replace(schema, function=method)
        return Tool(method, name=name, takes_ctx=False, function_schema=bound)

    def get_toolset(self) -> AbstractToolset[Any]:
        """The toolset of ``load_skill`` and ``list_skills``."""
        return self._toolset

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        """Load a skill: its instructions, tools, MCP servers and reference files.

        Args:
            skill_name: A skill name, a ``skill://{name}`` URI, or ``skill://{name}/{path}``
                for one reference file of the skill.
            arguments: Arguments for the skill's ``$1``..``$N``, ``$@`` and ``$ARGUMENTS``.

        """
        served = await self._served(skill_name) if is_skill_uri(skill_name) else None
        if served is not None:
            skill = served
        elif is_skill_uri(skill_name):
            resolved = await self.host.registry.resolve_uri(skill_name, self.scope)
            if resolved.reference is not None:
                return resolved.text
            skill = resolved.skill
        else:
            skill = await self._find(skill_name)
        return render_skill(skill, arguments, self.host.manager.python_tool_names(skill.name))

    async def list_skills(self) -> list[dict[str, str | None]]:
        """List every skill available: local skills, then those of remote skill providers."""
        manager = self.host.manager
        entries = await manager.list_skills()
        for provider in manager.remote_skill_resources():
            entries.extend(await provider.list_skills())
        entries = _named_per_origin(entries, self._served_sources(manager))
        return [
            {"name": e.name, "description": e.description, "source": e.source, "uri": e.uri}
            for e in entries
        ]

    async def _find(self, name: str) -> Skill:
        manager = self.host.manager
        origin, slash, served = name.partition("/")
        if slash:
            # A served skill named per origin (see _named_per_origin): "{server}/{name}".
            for provider in manager.remote_skill_resources():
                if (
                    isinstance(provider, ServedSkillsCap)
                    and provider.label == origin
                    and await provider.declares_extension()
                ):
                    return await provider.read_skill(check_skill_name(served))
        check_skill_name(name)
        if name in manager.skills:
            return manager.skills[name]
        for provider in manager.remote_skill_resources():
            if any(entry.name == name for entry in await provider.list_skills()):
                return await provider.read_skill(name)
        raise SkillNotFoundError(name)

    async def _served(self, uri: str) -> Skill | None:
        """The skill a server of the Skills Extension serves at ``uri``, when no local one is.

        A URI whose first segment names a local skill is that skill's (the flat scheme); any
        other ``SKILL.md`` URI is asked of each server declaring the extension, in order.
        """
        manager = self.host.manager
        first = uri.partition("://")[2].split("/", 1)[0]
        if first in manager.skills:
            return None
        for provider in manager.remote_skill_resources():
            if isinstance(provider, ServedSkillsCap) and await provider.serves(uri):
                try:
                    return await provider.load_uri(uri)
                except SkillNotFoundError:
                    continue
        return None

    @staticmethod
    def _served_sources(manager: SkillManagerCap) -> set[str]:
        return {
            provider.label
            for provider in manager.remote_skill_resources()
            if isinstance(provider, ServedSkillsCap) and provider.declared
        }


def _named_per_origin(entries: list[SkillEntry], served: set[str]) -> list[SkillEntry]:
    """``entries`` with each served skill whose name another entry has named ``{server}/{name}``.

    No served skill is shadowed by a local one or another server's: both stay listed, each under a
    name ``load_skill`` loads.
    """
    counts = Counter(entry.name for entry in entries)
    return [
        dataclasses.replace(entry, name=f"{entry.source}/{entry.name}")
        if entry.source in served and counts[entry.name] > 1
        else entry
        for entry in entries
    ]


def render_skill(skill: Skill, arguments: str | None, python_tools: list[str]) -> str:
    """The text ``load_skill`` returns for ``skill``.

    The instructions (with ``arguments`` substituted), then the skill's Python tools, its MCP
    servers and the content of each file under ``references/`` (sorted by path). A reference that
    cannot be read (it leads outside the skill's directory, loops, is too large...) is named with
    the reason, not read.
    """
    sections = [f"# Skill: {skill.name}", substitute_arguments(skill.instructions, arguments)]
    if python_tools:
        sections.append("## Python tools\n" + "\n".join(f"- {name}" for name in python_tools))
    if skill.mcp_servers:
        servers = "\n".join(f"- {server.name}" for server in skill.mcp_servers)
        sections.append(f"## MCP servers\n{servers}")
    if skill.directory is not None:
        for path in list_references(skill.directory):
            try:
                content = read_reference(skill.name, skill.directory, path)
            except SkillError as error:
                content = f"(not read: {error})"
            sections.append(f"## Reference: {path}\n{content}")
    return "\n\n".join(sections) + "\n"
