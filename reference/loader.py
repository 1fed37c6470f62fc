"""Read a skills directory: one ``SKILL.md`` per skill directory, YAML frontmatter then markdown.

Nothing here raises for a bad skill. Each problem becomes one line,
``{SKILL.md path}:{line}: skill '{directory name}': {field}: {what is wrong}; {what was skipped}``
(the line where it is known); a skill with a bad name, description or frontmatter is skipped, a bad
``tools`` or ``mcp-servers`` entry is skipped on its own, and every other skill loads as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from skill_conformance.reference.skill import (
    McpServerSpec,
    PythonToolSpec,
    Skill,
    is_valid_skill_name,
)

__all__ = ["SKILL_FILE", "LoadResult", "load_skill_dir", "load_skills"]

SKILL_FILE = "SKILL.md"
_FIELDS = frozenset({"name", "description", "allowed-tools", "tools", "mcp-servers"})
_TOOL_FIELDS = frozenset({"type", "import_path"})
_SERVER_FIELDS = frozenset({"command", "args", "env", "url", "headers"})

_Report: TypeAlias = Callable[[str, str], None]
"""Reports a problem of one entry: where (``tools[0]``), and what."""

_FIRST_HEADER_LINE = 2
"""The file line of the frontmatter's first line: line 1 is the opening ``---``."""


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

    def __init__(self, header: str) -> None:
        self._lines: dict[str, int] = {}
        try:
            root = yaml.compose(header)
        except yaml.YAMLError:
            return
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
    for directory in sorted(skills_dir.iterdir()):
        if not directory.is_dir() or directory.name.startswith("."):
            continue
        skill = load_skill_dir(directory, result.problems)
        if skill is not None:
            result.skills[skill.name] = skill
    return result


def load_skill_dir(directory: Path, problems: list[str]) -> Skill | None:
    """Load the skill in ``directory``, appending its problems; ``None`` if it is skipped."""
    path = directory / SKILL_FILE
    skill = f"skill {directory.name!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or _one_line(error)
        problems.append(f"{path}: {skill}: SKILL.md: cannot read ({reason}); skill skipped")
        return None
    try:
        return _parse(path, directory, text, problems)
    except _SkipSkill as skip:
        problems.append(f"{_located(path, skip.line)}: {skill}: {skip}; skill skipped")
        return None


def _parse(path: Path, directory: Path, text: str, problems: list[str]) -> Skill:
    header, body = _split_frontmatter(text)
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as error:
        line, message = _yaml_problem(error, header)
        raise _SkipSkill(f"frontmatter: malformed YAML: {message}", line) from None
    if not isinstance(data, dict):
        raise _SkipSkill("frontmatter: not a mapping of fields", _FIRST_HEADER_LINE)
    lines = _Lines(header)
    unknown = sorted(str(key) for key in data if key not in _FIELDS)
    if unknown:
        known = ", ".join(sorted(_FIELDS))
        raise _SkipSkill(
            f"{unknown[0]}: unknown frontmatter field (known: {known})", lines.of(unknown[0])
        )
    name = _name(data.get("name"), directory, lines.of("name"))
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        line = lines.of("description") or _FIRST_HEADER_LINE
        raise _SkipSkill("description: must be a non-empty string", line)

    def report(where: str, message: str) -> None:
        problems.append(f"{_located(path, lines.of(where))}: skill {name!r}: {where}: {message}")

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
    )


def _yaml_problem(error: yaml.YAMLError, header: str) -> tuple[int | None, str]:
    """The file line and the one-line text of a YAML error in ``header``."""
    if isinstance(error, yaml.reader.ReaderError):
        # A character YAML refuses: the reader gives its offset in the header (a str, so the
        # character comes as its code point), not a line.
        line = header[: error.position].count("\n") + _FIRST_HEADER_LINE
        return line, f"character {chr(error.character)!r} is not allowed in YAML"
    if not isinstance(error, yaml.MarkedYAMLError):
        return None, _one_line(error)
    mark = error.context_mark or error.problem_mark
    words = [part for part in (error.context, error.problem) if part]
    message = _one_line(Exception(": ".join(words))) if words else "cannot parse"
    return (mark.line + _FIRST_HEADER_LINE if mark is not None else None), message


def _split_frontmatter(text: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise _SkipSkill("frontmatter: missing (the file must start with '---')", 1)
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise _SkipSkill("frontmatter: not closed by '---'", 1)


def _name(value: object, directory: Path, line: int | None) -> str:
    if value is None:
        raise _SkipSkill("name: missing", _FIRST_HEADER_LINE)
    if not isinstance(value, str) or not is_valid_skill_name(value):
        raise _SkipSkill(
            f"name: {value!r} is not 1-64 lowercase letters, digits and single hyphens", line
        )
    if value != directory.name:
        raise _SkipSkill(
            f"name: {value!r} differs from the directory name {directory.name!r}", line
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
            report(where, f"unknown field {unknown[0]!r}; entry skipped")
        elif entry.get("type", "python") != "python":
            report(where, f"type {entry.get('type')!r} is not 'python'; entry skipped")
        elif not isinstance(import_path, str) or not _is_import_path(import_path):
            report(where, f"import_path {import_path!r} is not 'module:function'; entry skipped")
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
            report(where, f"unknown field {unknown[0]!r}; server skipped")
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


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
