"""Read a skills directory: one ``SKILL.md`` per skill directory, YAML frontmatter then markdown.

Nothing here raises for a bad skill. Each problem becomes one line of at most
:data:`MAX_PROBLEM_LENGTH` characters,
``{SKILL.md path}:{line}: skill '{directory name}': {field}: {what is wrong}; {what was done}``
(the line where it is known). A skill whose file cannot be read safely (see
:mod:`reference.frontmatter`) or whose name or description is bad is skipped; a bad ``tools`` or
``mcp-servers`` entry is skipped on its own; an unknown field, a name differing from its directory
and a name another directory declares too are reported, and every other skill loads as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from skill_conformance.reference.frontmatter import (
    FIRST_HEADER_LINE,
    FrontmatterError,
    read_skill_file,
)
from skill_conformance.reference.skill import (
    McpServerSpec,
    PythonToolSpec,
    Skill,
    is_valid_skill_name,
)

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_PROBLEM_LENGTH",
    "SKILL_FILE",
    "LoadResult",
    "load_skill_dir",
    "load_skills",
]

SKILL_FILE = "SKILL.md"
MAX_DESCRIPTION_LENGTH = 1024
MAX_PROBLEM_LENGTH = 1000
_SHOWN = 60
"""Characters of a value quoted in a problem."""
_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "tools",
        "mcp-servers",
    }
)
_TOOL_FIELDS = frozenset({"type", "import_path"})
_SERVER_FIELDS = frozenset({"command", "args", "env", "url", "headers"})

_Report: TypeAlias = Callable[[str, str], None]
"""Reports a problem of one entry: where (``tools[0]``), and what."""

_FIRST_HEADER_LINE = FIRST_HEADER_LINE


@dataclass
class LoadResult:
    """The skills that loaded, by name in directory order, and the problems found."""

    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class _SkipSkill(Exception):
    """The skill being read cannot be used; the message is the problem, at ``line`` if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _located(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


class _Lines:
    """File lines of the frontmatter's fields and entries, by where (``tools[0]``)."""

    def __init__(self, root: yaml.Node | None) -> None:
        self._lines: dict[str, int] = {}
        if not isinstance(root, yaml.MappingNode):
            return
        for key, value in root.value:
            name = str(key.value)
            self._lines[name] = key.start_mark.line + _FIRST_HEADER_LINE
            if isinstance(value, yaml.SequenceNode):
                for index, item in enumerate(value.value):
                    self._lines[f"{name}[{index}]"] = item.start_mark.line + _FIRST_HEADER_LINE
            elif isinstance(value, yaml.MappingNode):
                for item_key, _ in value.value:
                    where = f"{name}.{item_key.value}"
                    self._lines[where] = item_key.start_mark.line + _FIRST_HEADER_LINE

    def of(self, where: str) -> int | None:
        """The line of ``where``, or of the field it belongs to, if known."""
        return self._lines.get(where, self._lines.get(where.split(".")[0].split("[")[0]))


def load_skills(skills_dir: Path) -> LoadResult:
    """Load every skill directory under ``skills_dir``, sorted by directory name."""
    result = LoadResult()
    if not skills_dir.is_dir():
        result.problems.append(f"{skills_dir}: not a directory; no skills loaded")
        return result
    folders: dict[str, Path] = {}
    for directory in sorted(skills_dir.iterdir()):
        if not directory.is_dir() or directory.name.startswith("."):
            continue
        skill = load_skill_dir(directory, result.problems)
        if skill is not None:
            _add(result, folders, skill, directory)
    return result


def _add(result: LoadResult, folders: dict[str, Path], skill: Skill, directory: Path) -> None:
    """Add ``skill``, or skip it (one problem) if a skill of its name was found first.

    Of two directories declaring one name, the one named like it wins; otherwise the first. The
    skipped one's warning that its name differs from its directory gives way to this problem.
    """
    kept = folders.get(skill.name)
    if kept is None or (directory.name == skill.name and kept.name != skill.name):
        skipped = result.skills.get(skill.name)
        result.skills[skill.name] = skill
        folders[skill.name] = directory
        if kept is None or skipped is None:
            return
        kept, directory, skill = directory, kept, skipped
    path = directory / SKILL_FILE
    result.problems[:] = [p for p in result.problems if not p.startswith(f"{path}:")]
    result.problems.append(
        _problem(
            f"{_located(path, skill.name_line)}: skill {directory.name!r}: name:"
            f" {_shown(skill.name)} is also declared by {kept / SKILL_FILE}; skill skipped"
        )
    )


def load_skill_dir(directory: Path, problems: list[str]) -> Skill | None:
    """Load the skill in ``directory``, appending its problems; ``None`` if it is skipped."""
    path = directory / SKILL_FILE
    skill = f"skill {directory.name!r}"
    found: list[str] = []
    try:
        frontmatter = read_skill_file(path)
        loaded = _parse(
            path, directory, frontmatter.data, frontmatter.node, frontmatter.body, found
        )
    except (FrontmatterError, _SkipSkill) as skip:
        # A skipped skill is one problem: what else was found in it goes unsaid.
        problems.append(_problem(f"{_located(path, skip.line)}: {skill}: {skip}; skill skipped"))
        return None
    problems.extend(found)
    return loaded


def _parse(
    path: Path,
    directory: Path,
    data: object,
    node: yaml.Node | None,
    body: str,
    problems: list[str],
) -> Skill:
    if not isinstance(data, dict):
        raise _SkipSkill("frontmatter: not a mapping of fields", _FIRST_HEADER_LINE)
    lines = _Lines(node)
    skill = f"skill {directory.name!r}"

    def warn(where: str, message: str) -> None:
        problems.append(_problem(f"{_located(path, lines.of(where))}: {skill}: {where}: {message}"))

    for key in sorted(str(key) for key in data if key not in _FIELDS):
        warn(key, f"unknown frontmatter field, ignored (known: {', '.join(sorted(_FIELDS))})")
    name = _name(data.get("name"), lines.of("name"))
    if name != directory.name:
        differs = f"{_shown(name)} differs from the directory name {directory.name!r}"
        warn("name", f"{differs}; loaded as {name!r}")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        line = lines.of("description") or _FIRST_HEADER_LINE
        raise _SkipSkill("description: must be a non-empty string", line)
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise _SkipSkill(
            f"description: {len(description)} characters, more than {MAX_DESCRIPTION_LENGTH}",
            lines.of("description"),
        )

    def report(where: str, message: str) -> None:
        problems.append(
            _problem(f"{_located(path, lines.of(where))}: skill {name!r}: {where}: {message}")
        )

    try:
        allowed_tools = _allowed_tools(data.get("allowed-tools", None))
        tools = _tools(data.get("tools"), report, lines)
        mcp_servers = _servers(data.get("mcp-servers"), report)
    except _SkipSkill as skip:
        field_name = str(skip).split(":", 1)[0]
        raise _SkipSkill(str(skip), lines.of(field_name)) from None
    return Skill(
        name=name,
        description=description.strip(),
        instructions=body.strip(),
        directory=directory,
        allowed_tools=allowed_tools,
        tools=tools,
        mcp_servers=mcp_servers,
        name_line=lines.of("name"),
    )


def _name(value: object, line: int | None) -> str:
    if value is None:
        raise _SkipSkill("name: missing", _FIRST_HEADER_LINE)
    if not isinstance(value, str) or not is_valid_skill_name(value):
        raise _SkipSkill(
            f"name: {_shown(value)} is not 1-64 lowercase letters, digits and single hyphens",
            line,
        )
    return value


def _allowed_tools(value: object) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset(value.replace(",", " ").split())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return frozenset(value)
    raise _SkipSkill("allowed-tools: must be a list of tool names")


def _tools(value: object, report: _Report, lines: _Lines) -> tuple[PythonToolSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _SkipSkill("tools: must be a list")
    tools = []
    for index, entry in enumerate(value):
        where = f"tools[{index}]"
        if not isinstance(entry, dict):
            report(where, "must be a mapping with an import_path; entry skipped")
            continue
        unknown = sorted(str(key) for key in entry if key not in _TOOL_FIELDS)
        import_path = entry.get("import_path")
        if unknown:
            report(where, f"unknown field {_shown(unknown[0])}; entry skipped")
        elif entry.get("type", "python") != "python":
            report(where, f"type {_shown(entry.get('type'))} is not 'python'; entry skipped")
        elif not isinstance(import_path, str) or not _is_import_path(import_path):
            report(
                where, f"import_path {_shown(import_path)} is not 'module:function'; entry skipped"
            )
        else:
            tools.append(PythonToolSpec(import_path, where=where, line=lines.of(where)))
    return tuple(tools)


def _is_import_path(text: str) -> bool:
    module, colon, function = text.rpartition(":")
    return bool(colon and module.strip() and function.strip())


def _servers(value: object, report: _Report) -> tuple[McpServerSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise _SkipSkill("mcp-servers: must be a mapping of server names to servers")
    servers = []
    for name, entry in value.items():
        where = f"mcp-servers.{name}"
        if not isinstance(entry, dict):
            report(where, "must be a mapping; server skipped")
            continue
        unknown = sorted(str(key) for key in entry if key not in _SERVER_FIELDS)
        if unknown:
            report(where, f"unknown field {_shown(unknown[0])}; server skipped")
            continue
        try:
            servers.append(_server(str(name), entry))
        except ValueError as error:
            report(where, f"{error}; server skipped")
    return tuple(servers)


def _server(name: str, entry: Mapping[str, Any]) -> McpServerSpec:
    command, url = entry.get("command"), entry.get("url")
    if command is None and url is None:
        raise ValueError("has neither command nor url")
    if command is not None and url is not None:
        raise ValueError("has both command and url")
    if command is not None and (not isinstance(command, str) or not command):
        raise ValueError("command must be a non-empty string")
    if url is not None and (not isinstance(url, str) or not url):
        raise ValueError("url must be a non-empty string")
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(arg, str | int | float) for arg in args):
        raise ValueError("args must be a list of strings")
    return McpServerSpec(
        name=name,
        command=command,
        args=tuple(str(arg) for arg in args),
        env=_string_map(entry.get("env"), "env"),
        url=url,
        headers=_string_map(entry.get("headers"), "headers"),
    )


def _string_map(value: object, field_name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(key, str) and isinstance(item, str | int | float) for key, item in value.items()
    ):
        raise ValueError(f"{field_name} must map names to strings")
    return {key: str(item) for key, item in value.items()}


def _shown(value: object) -> str:
    """``value`` as a problem quotes it: its ``repr``, cut to a short excerpt."""
    shown = repr(value) if not isinstance(value, list | dict) else f"a {type(value).__name__}"
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"


def _problem(text: str) -> str:
    """``text`` as one problem line of at most :data:`MAX_PROBLEM_LENGTH` characters."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_PROBLEM_LENGTH else line[: MAX_PROBLEM_LENGTH - 1] + "…"
