"""The extension registry: where sessions and agents find a pool's capabilities.

Capabilities are registered at a scope. A scope sees what is registered at itself and at each
scope it lies within: a turn sees its agent's, its session's and the pool's registrations, so a
POOL registration is visible at every scope. ``skill://{name}`` URIs are flat: they resolve by
asking each visible skill resource, in order, whether it lists the name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic_ai.capabilities import AbstractCapability

from skill_conformance.reference.errors import ReferenceNotFoundError, SkillNotFoundError
from skill_conformance.reference.references import read_reference
from skill_conformance.reference.resources import SkillEntry, SkillResource
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.uri import parse_skill_uri

__all__ = ["POOL_SCOPE", "ExtensionRegistry", "ResolvedURI", "Scope", "ScopeLevel"]


class ScopeLevel(StrEnum):
    """The levels of scope, outermost first."""

    POOL = "pool"
    SESSION = "session"
    AGENT = "agent"
    TURN = "turn"


_LEVELS = list(ScopeLevel)


@dataclass(frozen=True)
class Scope:
    """A scope: a level and the ids that place it (ids of deeper levels stay empty)."""

    level: ScopeLevel
    session_id: str = ""
    agent_name: str = ""
    turn_id: str = ""

    def chain(self) -> list[Scope]:
        """The scopes from the pool down to this one: those whose registrations it sees."""
        depth = _LEVELS.index(self.level)
        ids = (self.session_id, self.agent_name, self.turn_id)
        scopes = []
        for index, level in enumerate(_LEVELS[: depth + 1]):
            kept = ids[:index] + ("",) * (3 - index)
            scopes.append(Scope(level, *kept))
        return scopes


POOL_SCOPE = Scope(ScopeLevel.POOL)


@dataclass(frozen=True)
class ResolvedURI:
    """What a ``skill://`` URI resolved to: the skill, and the text it names.

    ``text`` is the skill's instructions, or the content of the reference file the URI names.
    """

    skill: Skill
    reference: str | None
    text: str


class ExtensionRegistry:
    """Capabilities by scope; registrations are told apart by identity."""

    def __init__(self) -> None:
        self._by_scope: dict[Scope, list[AbstractCapability[Any]]] = {}

    def register(self, capability: AbstractCapability[Any], scope: Scope = POOL_SCOPE) -> None:
        """Register ``capability`` at ``scope`` (again registering it there is a no-op)."""
        registered = self._by_scope.setdefault(scope, [])
        if not any(existing is capability for existing in registered):
            registered.append(capability)

    def unregister(self, capability: AbstractCapability[Any], scope: Scope = POOL_SCOPE) -> bool:
        """Remove ``capability`` from ``scope``; whether it was registered there."""
        registered = self._by_scope.get(scope, [])
        for index, existing in enumerate(registered):
            if existing is capability:
                del registered[index]
                return True
        return False

    def visible(self, scope: Scope = POOL_SCOPE) -> list[AbstractCapability[Any]]:
        """Capabilities visible at ``scope``, outermost scope first, each once."""
        seen: list[AbstractCapability[Any]] = []
        for outer in scope.chain():
            for capability in self._by_scope.get(outer, []):
                if not any(existing is capability for existing in seen):
                    seen.append(capability)
        return seen

    def skill_resources(self, scope: Scope = POOL_SCOPE) -> list[SkillResource]:
        """The visible capabilities that are skill resources."""
        return [cap for cap in self.visible(scope) if isinstance(cap, SkillResource)]

    async def list_skills(self, scope: Scope = POOL_SCOPE) -> list[SkillEntry]:
        """Every entry every visible skill resource lists (a skill listed twice appears twice)."""
        return [entry for res in self.skill_resources(scope) for entry in await res.list_skills()]

    async def find_skill(self, name: str, scope: Scope = POOL_SCOPE) -> Skill:
        """The skill ``name`` from the first visible skill resource listing it."""
        for resource in self.skill_resources(scope):
            if any(entry.name == name for entry in await resource.list_skills()):
                return await resource.read_skill(name)
        raise SkillNotFoundError(name)

    async def resolve_uri(self, uri: str, scope: Scope = POOL_SCOPE) -> ResolvedURI:
        """Resolve a flat ``skill://{name}`` or ``skill://{name}/{path}`` URI.

        Raises:
            SkillNotFoundError: No visible skill resource has the skill.
            ReferenceNotFoundError: The skill has no such reference file.
            SecurityError: The URI's path would lead outside the skill's directory.

        """
        parsed = parse_skill_uri(uri)
        skill = await self.find_skill(parsed.name, scope)
        if parsed.reference is None:
            return ResolvedURI(skill, None, skill.instructions)
        if skill.directory is None:
            raise ReferenceNotFoundError(skill.name, parsed.reference)
        text = read_reference(skill.name, skill.directory, parsed.reference)
        return ResolvedURI(skill, parsed.reference, text)
