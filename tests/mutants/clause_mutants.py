"""Mutants that break one clause each, a clause no scenario checked before it had its own.

Each is a bug of a kind seen in skill systems (issue 27's classes among them): a limit counted in
characters, a frontmatter found anywhere in the file, a duplicate name reported against the copy
that loads, a tool named after the name it is imported by, a prefix built from the folder, one
failed import or server taking its skill's other tools, arguments split on single spaces, a
reference path decoded twice, a descriptor left open by a refused read, a cancelled enter
swallowed or one that fails leaving its servers running, a server whose start was cancelled
forgotten. Like every mutant, each replaces one part of the reference or overrides one method, and
copies none of it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import unquote

import yaml
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.toolsets import AbstractToolset, RenamedToolset

from skill_conformance.reference import frontmatter, loader, references, skill_tools
from skill_conformance.reference import substitution as substitution_module
from skill_conformance.reference.errors import SecurityError
from skill_conformance.reference.frontmatter import Frontmatter, FrontmatterError
from skill_conformance.reference.isolation import IsolatedToolset, ServerHealth
from skill_conformance.reference.loader import SKILL_FILE, LoadResult, load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.mcp_client import McpServer
from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.references import read_reference
from skill_conformance.reference.skill import McpServerSpec, Skill, python_tool_prefix
from skill_conformance.reference.skill_tools import SkillToolsProvider
from tests.mutants.base import mutant, swapping
from tests.mutants.isolation_mutants import reading

_Load = Callable[[Path], LoadResult]
_Read = Callable[[str, Path, str], str]

# The reference's own pieces, kept before any swap so that a mutant can call the original.
_split = frontmatter._split
_parse = frontmatter._parse
_decode = frontmatter._decode
_read_bytes = frontmatter._read_bytes
_read_skill_file = frontmatter.read_skill_file
_from_root = references._from_root
_add = loader._add


# -- skill-loading ---------------------------------------------------------------------------


class NoChildrenWithoutSkillsDir(SkillPool):
    """Builds an empty manager, its other children forgotten, when the skills path is no folder."""

    def _build_now(self) -> SkillManagerCap:
        manager = super()._build_now()
        if self.skills_dir.is_dir():
            return manager
        return SkillManagerCap([], name=manager.name)


def _decode_latin1(data: bytes) -> str:
    _decode(data)  # refuses what is not UTF-8, as before
    return data.removeprefix(b"\xef\xbb\xbf").decode("latin-1").replace("\r\n", "\n")


def _split_anywhere(text: str) -> tuple[str, str]:
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip() == "---"), 0)
    return _split("\n".join(lines[start:]))


_EXACT_CLOSING = re.compile(r"^---$", re.MULTILINE)


def _quote_first_only(header: str) -> str:
    value = frontmatter._COLON_VALUE.search(header)
    if value is None:
        return header
    quoted = f"{value['key']}: '{value['value'].replace(chr(39), chr(39) * 2)}'"
    return header[: value.start()] + quoted + header[value.end() :]


_TWO_OR_MORE = re.compile(r"[a-z0-9][a-z0-9-]*[a-z0-9]")


def _two_characters_or_more(name: str) -> bool:
    return len(name) <= 64 and _TWO_OR_MORE.fullmatch(name) is not None and "--" not in name


def _reported_at_the_winner(
    result: LoadResult, folders: dict[str, Path], skill: Skill, directory: Path
) -> None:
    kept = folders.get(skill.name)
    _add(result, folders, skill, directory)
    if kept is None:
        return
    winner = folders[skill.name] / SKILL_FILE
    loser = (kept if folders[skill.name] == directory else directory) / SKILL_FILE
    # The problem the reference writes at the copy it skips, written at the copy it keeps.
    problem = result.problems[-1].replace(str(loser), "\0").replace(str(winner), str(loser))
    result.problems[-1] = problem.replace("\0", str(winner))


def _describing_anything(path: Path) -> Frontmatter:
    read = _read_skill_file(path)
    data = read.data
    if isinstance(data, dict) and isinstance(data.get("description"), list | dict):
        data = {**data, "description": str(data["description"])}
    return Frontmatter(data, read.node, read.body)


def _counting_description_bytes(path: Path) -> Frontmatter:
    read = _read_skill_file(path)
    data = read.data
    if isinstance(data, dict) and len(str(data.get("description", "")).encode()) > 1024:
        raise FrontmatterError("description: more than 1024 bytes", 3)
    return read


def _allowed_on_commas(value: object) -> frozenset[str] | None:
    if isinstance(value, str):
        return frozenset(part.strip() for part in value.split(",") if part.strip())
    return loader._allowed_tools(value)


class _TopLevelDuplicatesOnly(frontmatter._BoundedLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        if node.start_mark.column > 0:  # a field's own mapping: the last key wins
            return yaml.SafeLoader.construct_mapping(self, node, deep=deep)
        return super().construct_mapping(node, deep=deep)


def _load_top_level_duplicates_only(header: str) -> tuple[yaml.Node | None, object]:
    reader = _TopLevelDuplicatesOnly(header)
    try:
        node = reader.get_single_node()
        return node, None if node is None else reader.construct_document(node)
    finally:
        reader.dispose()


def _counting_characters(path: Path) -> Frontmatter:
    with mock.patch.object(frontmatter, "MAX_FILE_BYTES", 64 * 1024 * 1024):
        text = _decode(_read_bytes(path))
    if len(text) > frontmatter.MAX_FILE_BYTES:
        raise FrontmatterError(f"SKILL.md: {len(text)} characters, more than the limit")
    header, body = _split(text)
    if len(header) > frontmatter.MAX_FRONTMATTER_BYTES:
        raise FrontmatterError(f"frontmatter: {len(header)} characters, more than the limit", 2)
    node, data = _parse(header)
    return Frontmatter(data, node, body)


def _reading_whole(path: Path) -> bytes:
    data = path.read_bytes()
    if len(data) > frontmatter.MAX_FILE_BYTES:
        raise FrontmatterError(f"SKILL.md: {len(data)} bytes, more than the limit")
    return data


NoChildrenWithoutSkillsDirMutant = mutant(
    "NoChildrenWithoutSkillsDirMutant", pool=NoChildrenWithoutSkillsDir
)
DecodesAsLatin1Mutant = mutant(
    "DecodesAsLatin1Mutant", loader=swapping((frontmatter, "_decode", _decode_latin1))
)
FindsFrontmatterAnywhereMutant = mutant(
    "FindsFrontmatterAnywhereMutant", loader=swapping((frontmatter, "_split", _split_anywhere))
)
ExactDashLinesMutant = mutant(
    "ExactDashLinesMutant", loader=swapping((frontmatter, "_CLOSING", _EXACT_CLOSING))
)
QuotesFirstColonValueOnlyMutant = mutant(
    "QuotesFirstColonValueOnlyMutant",
    loader=swapping((frontmatter, "_quote_colon_values", _quote_first_only)),
)
TwoCharacterNamesMutant = mutant(
    "TwoCharacterNamesMutant",
    loader=swapping((loader, "is_valid_skill_name", _two_characters_or_more)),
)
DuplicateReportedAtTheWinnerMutant = mutant(
    "DuplicateReportedAtTheWinnerMutant",
    loader=swapping((loader, "_add", _reported_at_the_winner)),
)
DescribesWithAnyValueMutant = mutant(
    "DescribesWithAnyValueMutant",
    loader=swapping((loader, "read_skill_file", _describing_anything)),
)
CountsDescriptionBytesMutant = mutant(
    "CountsDescriptionBytesMutant",
    loader=swapping((loader, "read_skill_file", _counting_description_bytes)),
)
SplitsAllowedToolsOnCommasMutant = mutant(
    "SplitsAllowedToolsOnCommasMutant",
    loader=swapping((loader, "_allowed_tools", _allowed_on_commas)),
)
TopLevelDuplicatesOnlyMutant = mutant(
    "TopLevelDuplicatesOnlyMutant",
    loader=swapping((frontmatter, "_load", _load_top_level_duplicates_only)),
)
CountsCharactersMutant = mutant(
    "CountsCharactersMutant", loader=swapping((loader, "read_skill_file", _counting_characters))
)
ReadsWholeThenChecksMutant = mutant(
    "ReadsWholeThenChecksMutant", loader=swapping((frontmatter, "_read_bytes", _reading_whole))
)


# -- skill-manager-cap -----------------------------------------------------------------------


class DropsChildrenAfterOneWithoutToolset(SkillManagerCap):
    """Stops gathering its children's tools at the first child that has no toolset."""

    def __init__(
        self, skills: Iterable[Skill], children: Sequence[AbstractCapability[Any]] = (), **kw: Any
    ) -> None:
        kept: list[AbstractCapability[Any]] = []
        for child in children:
            if child.get_toolset() is None:
                break
            kept.append(child)
        super().__init__(skills, kept, **kw)


class OneServerPerSkill(SkillManagerCap):
    """Keeps one MCP server per skill, the last it declares (a mapping by skill name)."""

    def _create_skill_mcp_children(self, skill: Skill) -> None:
        super()._create_skill_mcp_children(skill)
        children = self._skill_mcp_children.get(skill.name)
        if children:
            self._skill_mcp_children[skill.name] = children[-1:]


class CaseInsensitiveAllowedTools(SkillManagerCap):
    """Compares `allowed-tools` with tool names regardless of case."""

    def __init__(self, skills: Iterable[Skill], *args: Any, **kw: Any) -> None:
        lowered = [
            skill
            if skill.allowed_tools is None
            else dataclasses.replace(
                skill, allowed_tools=frozenset(name.lower() for name in skill.allowed_tools)
            )
            for skill in skills
        ]
        super().__init__(lowered, *args, **kw)


class EnterLeavesStartedServers(SkillManagerCap):
    """Enters its children one by one, and leaves those entered when a later one fails."""

    async def __aenter__(self) -> SkillManagerCap:
        if not self.entered:
            stack = AsyncExitStack()
            for child in self._lifecycle_children():
                await stack.enter_async_context(child)
            self._stack = stack
        self._depth += 1
        return self


class SwallowsCancelledEnter(SkillManagerCap):
    """Takes a cancellation while entering for a server that failed, and goes on."""

    async def __aenter__(self) -> SkillManagerCap:
        try:
            return await super().__aenter__()
        except asyncio.CancelledError:
            self.problems.append("entering was cancelled; the skill manager goes on")
            return self


DropsChildrenAfterOneWithoutToolsetMutant = mutant(
    "DropsChildrenAfterOneWithoutToolsetMutant", manager=DropsChildrenAfterOneWithoutToolset
)
OneServerPerSkillMutant = mutant("OneServerPerSkillMutant", manager=OneServerPerSkill)
CaseInsensitiveAllowedToolsMutant = mutant(
    "CaseInsensitiveAllowedToolsMutant", manager=CaseInsensitiveAllowedTools
)
EnterLeavesStartedServersMutant = mutant(
    "EnterLeavesStartedServersMutant", manager=EnterLeavesStartedServers
)
SwallowsCancelledEnterMutant = mutant(
    "SwallowsCancelledEnterMutant", manager=SwallowsCancelledEnter
)


# -- skill-tool-registration -------------------------------------------------------------------


class NamesToolsByImportPath(SkillManagerCap):
    """Names a Python tool after the attribute its import path names, not the function's name."""

    def _import(self, import_path: str) -> Callable[..., Any]:
        function = super()._import(import_path)
        attribute = import_path.rpartition(":")[2]
        if getattr(function, "__name__", attribute) == attribute:
            return function

        def renamed(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

        renamed.__name__ = attribute
        renamed.__doc__ = function.__doc__
        return renamed


class PrefixesByFolder(SkillManagerCap):
    """Prefixes a skill's Python tools with its folder's name, not the name it declares."""

    def get_toolset(self) -> AbstractToolset[Any] | None:
        toolset = super().get_toolset()
        renames: dict[str, str] = {}
        for skill in self.skills.values():
            tools = self._skill_tools.get(skill.name)
            if tools is None or skill.directory is None or skill.directory.name == skill.name:
                continue
            for name in tools.tools:
                declared = f"{python_tool_prefix(skill.name)}{name}"
                renames[f"{python_tool_prefix(skill.directory.name)}{name}"] = declared
        return RenamedToolset(toolset, renames) if toolset is not None and renames else toolset


class AbandonsSkillAfterFailedImport(SkillManagerCap):
    """Gives up a skill's remaining Python tools after the first that cannot be imported."""

    def _import_skill_tools(self, skill: Skill) -> None:
        specs = list(skill.tools)
        for index, spec in enumerate(specs):
            try:
                self._import(spec.import_path)
            except Exception:
                specs = specs[: index + 1]
                break
        super()._import_skill_tools(dataclasses.replace(skill, tools=tuple(specs)))


class SkillLosesServersWithOneDead(SkillManagerCap):
    """Isolates failures per skill, not per server: one dead server takes its skill's others."""

    def _isolated(self, skill: Skill, spec: McpServerSpec, server: McpServer) -> McpServer:
        healths: dict[str, ServerHealth] = self.__dict__.setdefault("_healths", {})
        where = f"skill {skill.name!r}"
        health = healths.setdefault(skill.name, ServerHealth(where, self.problems.append))
        return server.wrapped(IsolatedToolset(server.toolset, health=health))


class _ErrorsOnlyHealth(ServerHealth):
    """Gives a server up for an error it raised, never for a start its caller cancelled."""

    _failing = False

    def fail(self, error: BaseException) -> None:
        self._failing = True
        try:
            super().fail(error)
        finally:
            self._failing = False

    def give_up(self, why: str) -> None:
        if self._failing:
            super().give_up(why)


class ForgetsCancelledStarts(SkillManagerCap):
    """Forgets a server whose start its caller cancelled: never reported, started on every run."""

    def _isolated(self, skill: Skill, spec: McpServerSpec, server: McpServer) -> McpServer:
        where = f"skill {skill.name!r}: MCP server {spec.name!r}"
        health = _ErrorsOnlyHealth(where, self.problems.append)
        return server.wrapped(IsolatedToolset(server.toolset, health=health))


class RebuildKeepsKnownSkills(SkillPool):
    """Keeps, on a rebuild, the skill it already had under a name, whatever its file now says."""

    def __init__(self, *args: Any, loader: _Load = load_skills, **kw: Any) -> None:
        known: dict[str, Skill] = {}

        def load(skills_dir: Path) -> LoadResult:
            result = loader(skills_dir)
            for name in result.skills:
                result.skills[name] = known.setdefault(name, result.skills[name])
            return result

        super().__init__(*args, loader=load, **kw)


NamesToolsByImportPathMutant = mutant(
    "NamesToolsByImportPathMutant", manager=NamesToolsByImportPath
)
PrefixesByFolderMutant = mutant("PrefixesByFolderMutant", manager=PrefixesByFolder)
AbandonsSkillAfterFailedImportMutant = mutant(
    "AbandonsSkillAfterFailedImportMutant", manager=AbandonsSkillAfterFailedImport
)
SkillLosesServersWithOneDeadMutant = mutant(
    "SkillLosesServersWithOneDeadMutant", manager=SkillLosesServersWithOneDead
)
ForgetsCancelledStartsMutant = mutant(
    "ForgetsCancelledStartsMutant", manager=ForgetsCancelledStarts
)
RebuildKeepsKnownSkillsMutant = mutant(
    "RebuildKeepsKnownSkillsMutant", pool=RebuildKeepsKnownSkills
)


# -- skill-tools -----------------------------------------------------------------------------


class NamesToolsTheFilterRemoved(SkillManagerCap):
    """Tells load_skill every imported Python tool, those `allowed-tools` removed included."""

    def python_tool_names(self, skill: str) -> list[str]:
        tools = self._skill_tools.get(skill)
        return [f"{python_tool_prefix(skill)}{name}" for name in tools.tools] if tools else []


class AsksTheFirstRemoteProviderOnly(SkillManagerCap):
    """Offers load_skill and list_skills the first remote skill provider only."""

    def remote_skill_resources(self) -> list[Any]:
        return super().remote_skill_resources()[:1]


_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|@|[0-9]+)")


def _substituting(
    split: Callable[[str], list[str]],
    whole: Callable[[str], str] = lambda arguments: arguments,
    placeholder: re.Pattern[str] = _PLACEHOLDER,
) -> Callable[[str, str | None], str]:
    def substitute(text: str, arguments: str | None) -> str:
        if arguments is None:
            return text
        positional = split(arguments)

        def replace(match: re.Match[str]) -> str:
            key = match.group(1)
            if key in ("@", "ARGUMENTS"):
                return whole(arguments)
            index = int(key)
            return positional[index - 1] if index <= len(positional) else match.group(0)

        return placeholder.sub(replace, text)

    return substitute


_ONE_OR_MORE = re.compile(r"\$(ARGUMENTS|@|[1-9][0-9]*)")


def _whole_then_positional(text: str, arguments: str | None) -> str:
    if arguments is None:
        return text
    text = text.replace("$ARGUMENTS", arguments).replace("$@", arguments)
    return substitution_module.substitute_arguments(text, arguments)


def _substituting_provider(
    substitute: Callable[[str, str | None], str], doc: str
) -> type[SkillToolsProvider]:
    class Provider(SkillToolsProvider):
        async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
            with mock.patch.object(skill_tools, "substitute_arguments", substitute):
                return await super().load_skill(skill_name, arguments)

    Provider.__doc__ = doc
    return Provider


SplitsArgumentsOnSpaces = _substituting_provider(
    _substituting(lambda arguments: arguments.split(" "), placeholder=_ONE_OR_MORE),
    "Splits the arguments on single spaces: two spaces or a tab shift `$2`.",
)
ZeroIsAPlaceholder = _substituting_provider(
    _substituting(str.split), "Reads `$0` as a placeholder: the argument before the first."
)
CollapsesWholeArguments = _substituting_provider(
    _substituting(str.split, lambda arguments: " ".join(arguments.split()), _ONE_OR_MORE),
    "Gives `$@` and `$ARGUMENTS` the arguments joined by single spaces.",
)
SubstitutesWholeThenPositional = _substituting_provider(
    _whole_then_positional, "Substitutes `$@` and `$ARGUMENTS` first, then `$N` in the result."
)


class UriSkipsArguments(SkillToolsProvider):
    """Returns a skill loaded by its `skill://` URI without substituting the arguments."""

    async def load_skill(self, skill_name: str, arguments: str | None = None) -> str:
        uri = skill_name.startswith("skill://")
        return await super().load_skill(skill_name, None if uri else arguments)


def _refusing_double_dots(skill: str, directory: Path, path: str) -> str:
    if ".." in path:
        raise SecurityError(f"reference {path!r} of skill {skill!r} holds '..'")
    return read_reference(skill, directory, path)


def _resolving_the_real_root_only(skill: str, directory: Path, path: str) -> str:
    def real_root_only(root: Path, target: str) -> str:
        return os.path.relpath(os.path.normpath(target), os.path.realpath(root))

    with mock.patch.object(references, "_from_root", real_root_only):
        return read_reference(skill, directory, path)


def _decoding_once_more(skill: str, directory: Path, path: str) -> str:
    return read_reference(skill, directory, unquote(path))


def _leaving_descriptors_open(skill: str, directory: Path, path: str) -> str:
    def keeping_a_copy(skill: str, path: str, fd: int) -> bytes:
        try:
            return read_bounded(skill, path, fd)
        except Exception:
            os.dup(fd)  # the descriptor a refusal that forgets its close leaves open
            raise

    read_bounded = references._read_bounded
    with mock.patch.object(references, "_read_bounded", keeping_a_copy):
        return read_reference(skill, directory, path)


NamesToolsTheFilterRemovedMutant = mutant(
    "NamesToolsTheFilterRemovedMutant", manager=NamesToolsTheFilterRemoved
)
AsksTheFirstRemoteProviderOnlyMutant = mutant(
    "AsksTheFirstRemoteProviderOnlyMutant", manager=AsksTheFirstRemoteProviderOnly
)
SplitsArgumentsOnSpacesMutant = mutant(
    "SplitsArgumentsOnSpacesMutant", provider=SplitsArgumentsOnSpaces
)
ZeroIsAPlaceholderMutant = mutant("ZeroIsAPlaceholderMutant", provider=ZeroIsAPlaceholder)
CollapsesWholeArgumentsMutant = mutant(
    "CollapsesWholeArgumentsMutant", provider=CollapsesWholeArguments
)
SubstitutesWholeThenPositionalMutant = mutant(
    "SubstitutesWholeThenPositionalMutant", provider=SubstitutesWholeThenPositional
)
UriSkipsArgumentsMutant = mutant("UriSkipsArgumentsMutant", provider=UriSkipsArguments)
RefusesDoubleDotsInNamesMutant = mutant(
    "RefusesDoubleDotsInNamesMutant",
    **reading(_refusing_double_dots, "Refuses any reference path holding '..', a name too."),
)
ResolvesTheRealRootOnlyMutant = mutant(
    "ResolvesTheRealRootOnlyMutant",
    **reading(
        _resolving_the_real_root_only,
        "Compares an absolute link's target with the skill's real directory only.",
    ),
)
DecodesPathsOnceMoreMutant = mutant(
    "DecodesPathsOnceMoreMutant",
    **reading(_decoding_once_more, "Percent-decodes a reference path once more before reading."),
)
LeavesDescriptorsOpenMutant = mutant(
    "LeavesDescriptorsOpenMutant",
    **reading(_leaving_descriptors_open, "Leaves a refused reference's descriptor open."),
)
