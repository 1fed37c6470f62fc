"""Between the port's plain data and the real code's: scopes, errors, the ``list_skills`` text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

from skill_conformance.adapters.agentpool.pool import AGENT, SESSION
from skill_conformance.port import ErrorKind, Scope, SkillListing

_SCOPE_KEYWORDS: Mapping[Scope, Mapping[str, str]] = {
    Scope.POOL: {},
    Scope.SESSION: {"session_id": SESSION},
    Scope.AGENT: {"session_id": SESSION, "agent_name": AGENT},
    Scope.TURN: {"session_id": SESSION, "agent_name": AGENT, "turn_id": "turn-1"},
}


def scope_keywords(scope: Scope) -> tuple[str, dict[str, str]]:
    """The ``ScopeLevel`` member name and the keywords of the real ``Scope`` for ``scope``.

    The field order of the real ``Scope`` changed between versions, so only keywords are used.
    """
    return scope.name, dict(_SCOPE_KEYWORDS[scope])


_ERROR_KINDS: Mapping[str, ErrorKind] = {
    "SkillNotFoundError": ErrorKind.NOT_FOUND,
    "ReferenceNotFoundError": ErrorKind.NOT_FOUND,
    "SecurityError": ErrorKind.SECURITY,
    "ValidationError": ErrorKind.INVALID_CONFIG,
    "ConfigError": ErrorKind.INVALID_CONFIG,
    "ConfigurationError": ErrorKind.INVALID_CONFIG,
}


def error_kind_for(error: BaseException) -> ErrorKind | None:
    """The port kind of a real exception (by class name along its MRO), or None."""
    for cls in type(error).__mro__:
        kind = _ERROR_KINDS.get(cls.__name__)
        if kind is not None:
            return kind
    return None


_ENTRY = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: ?(?P<description>.*)$")
_URI = re.compile(r"^\s+- URI: `(?P<uri>[^`]+)`")


def parse_listing(text: str) -> list[SkillListing]:
    """The entries of the markdown text the real ``list_skills`` returns.

    The text names no source; entries get an empty source, as the real tool gives none.
    """
    entries: list[SkillListing] = []
    for line in text.splitlines():
        entry = _ENTRY.match(line)
        if entry is not None:
            entries.append(
                SkillListing(
                    name=entry["name"], description=entry["description"].strip(), source=""
                )
            )
            continue
        uri = _URI.match(line)
        if uri is not None and entries:
            last = entries[-1]
            entries[-1] = SkillListing(last.name, last.description, last.source, uri["uri"])
    return entries


def skill_file_uri(skill: str, path: str) -> str:
    """The ``skill://`` URI through which the real ``load_skill`` reads ``path`` of ``skill``.

    The path is percent-encoded (``/`` kept), so that the real parser's one decoding gives it
    back exactly as given.
    """
    return f"skill://{quote(skill, safe='')}/{quote(path, safe='/')}"
