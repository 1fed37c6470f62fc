"""The skill model: what a ``SKILL.md`` declares, once validated."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MCP_PREFIX_SEPARATOR",
    "TOOL_PREFIX_SEPARATOR",
    "McpServerSpec",
    "PythonToolSpec",
    "Skill",
    "is_valid_skill_name",
    "mcp_tool_prefix",
    "python_tool_prefix",
]

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_MAX_NAME_LENGTH = 64

TOOL_PREFIX_SEPARATOR = "__tool__"
"""Between a skill's name and the name of one of its Python tools."""
MCP_PREFIX_SEPARATOR = "__mcp__"
"""Between a skill's name and the name of a tool of one of its MCP servers."""


def is_valid_skill_name(name: str) -> bool:
    """Lowercase letters, digits and single inner hyphens, 1 to 64 characters."""
    return len(name) <= _MAX_NAME_LENGTH and _NAME.fullmatch(name) is not None


def python_tool_prefix(skill: str) -> str:
    """The prefix of the agent-facing names of ``skill``'s Python tools."""
    return f"{skill}{TOOL_PREFIX_SEPARATOR}"


def mcp_tool_prefix(skill: str) -> str:
    """The prefix of the agent-facing names of ``skill``'s MCP server tools."""
    return f"{skill}{MCP_PREFIX_SEPARATOR}"


@dataclass(frozen=True)
class PythonToolSpec:
    """A ``tools`` entry: a Python function named by ``module:function``.

    ``where`` (``tools[0]``) and ``line`` (of ``SKILL.md``) locate the entry for messages.
    """

    import_path: str
    where: str = field(default="tools", compare=False)
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class McpServerSpec:
    """An ``mcp-servers`` entry: a stdio command or a streamable-HTTP URL."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Skill:
    """One skill, local (from a directory) or remote (from a provider).

    Attributes:
        name: The skill's name.
        description: One line saying what the skill is for.
        instructions: The markdown body of ``SKILL.md`` (or the remote skill's content).
        directory: The skill's directory; ``None`` for a remote skill.
        allowed_tools: Bare names of the skill's own tools the agent may see; ``None`` means no
            filter, an empty set means none.
        tools: The skill's Python tools.
        mcp_servers: The skill's MCP servers.
        source: ``"local"``, or the label of the remote provider.
        name_line: The line of ``SKILL.md`` that declares the name, for messages.

    """

    name: str
    description: str
    instructions: str
    directory: Path | None = None
    allowed_tools: frozenset[str] | None = None
    tools: tuple[PythonToolSpec, ...] = ()
    mcp_servers: tuple[McpServerSpec, ...] = ()
    source: str = "local"
    name_line: int | None = field(default=None, compare=False)
