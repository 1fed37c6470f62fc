"""Broken variants of how the reference turns a skills directory into skills (skill-loading).

The loader is made of functions, not classes, so a mutant here is a loading function passed as
the pool's ``loader``: the reference's ``load_skills`` with one piece of ``reference.frontmatter``
or ``reference.loader`` swapped for the length of the call (every mutant runs in a suite process of
its own), or with its result changed afterwards. Each is a bug seen in skill loaders elsewhere.

Three of them stand in for a read or a walk without end (a device read whole, a billion-value
alias expansion printed into a problem, 10 MB of YAML parsed): they stop at a bound and end the
way the unbounded version ends, a ``MemoryError`` or a long stall, so that a mutant run cannot
exhaust the machine.
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import yaml

from skill_conformance.port import Ability
from skill_conformance.reference import frontmatter, loader
from skill_conformance.reference.frontmatter import FIRST_HEADER_LINE, FrontmatterError
from skill_conformance.reference.loader import LoadResult, load_skill_dir, load_skills
from skill_conformance.reference.skill import McpServerSpec
from tests.mutants.base import choosing_otherwise, mutant, swapping

_Load = Callable[[Path], LoadResult]

# The reference's own pieces, kept before any swap so that a mutant can call the original.
_split = frontmatter._split
_parse = frontmatter._parse
_read_bytes = frontmatter._read_bytes
_allowed_tools = loader._allowed_tools
_yaml_problem = frontmatter._yaml_problem
_tools = loader._tools
_servers = loader._servers
_server = loader._server
_shown_original = loader._shown
_decode = frontmatter._decode


def _scanning(folders: Callable[[Path], list[Path]]) -> _Load:
    """``load_skills`` over the skill folders ``folders`` finds, instead of the direct ones."""

    def load(skills_dir: Path) -> LoadResult:
        result = LoadResult()
        found: dict[str, Path] = {}
        for directory in folders(skills_dir):
            skill = load_skill_dir(directory, result.problems)
            if skill is not None:
                loader._add(result, found, skill, directory)
        return result

    return load


# -- which folders are skills -----


def _every_folder(skills_dir: Path) -> list[Path]:
    return sorted(path for path in skills_dir.iterdir() if path.is_dir())


def _every_skill_md(skills_dir: Path) -> list[Path]:
    return sorted(path.parent for path in skills_dir.rglob("SKILL.md"))


ScansHiddenFoldersMutant = mutant("ScansHiddenFoldersMutant", loader=_scanning(_every_folder))
ScansNestedFoldersMutant = mutant("ScansNestedFoldersMutant", loader=_scanning(_every_skill_md))


# -- bytes to text -----


def _decode_keeping_bom(data: bytes) -> str:
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _decode_keeping_endings(data: bytes) -> str:
    return data.removeprefix(codecs.BOM_UTF8).decode("utf-8")


KeepsTheByteOrderMarkMutant = mutant(
    "KeepsTheByteOrderMarkMutant", loader=swapping((frontmatter, "_decode", _decode_keeping_bom))
)
KeepsLineEndingsMutant = mutant(
    "KeepsLineEndingsMutant", loader=swapping((frontmatter, "_decode", _decode_keeping_endings))
)


# -- frontmatter and instructions -----


def _split_at_every_dashes(text: str) -> tuple[str, str]:
    before, _, rest = text.partition("---")
    header, dashes, body = rest.partition("---")
    if before.strip() or not dashes:
        raise FrontmatterError("frontmatter: missing", 1)
    return header.lstrip("\n"), body.lstrip("\n")


def _split_at_the_last_field(text: str) -> tuple[str, str]:
    try:
        return _split(text)
    except FrontmatterError:
        lines = text.split("\n")[1:]
        fields = 0
        while fields < len(lines) and re.match(r"[A-Za-z0-9_-]+:", lines[fields]):
            fields += 1
        return "\n".join(lines[:fields]), "\n".join(lines[fields:])


def _hand_rolled(header: str) -> tuple[yaml.Node | None, object]:
    data = {}
    for line in header.split("\n"):
        key, colon, value = line.partition(":")
        if colon and not line.startswith((" ", "\t", "-", "#")):
            data[key.strip()] = value.strip()
    return None, data


SplitsAtEveryDashesMutant = mutant(
    "SplitsAtEveryDashesMutant", loader=swapping((frontmatter, "_split", _split_at_every_dashes))
)
UnclosedFrontmatterLoadsMutant = mutant(
    "UnclosedFrontmatterLoadsMutant",
    loader=swapping((frontmatter, "_split", _split_at_the_last_field)),
)
HandRolledFrontmatterMutant = mutant(
    "HandRolledFrontmatterMutant", loader=swapping((frontmatter, "_load", _hand_rolled))
)


def _quote_without_escaping(header: str) -> str:
    # Wrapping a value in single quotes without doubling the single quotes it holds.
    lines = []
    for line in header.split("\n"):
        match = frontmatter._COLON_VALUE.match(line)
        lines.append(f"{match['key']}: '{match['value'].rstrip()}'" if match else line)
    return "\n".join(lines)


QuotesColonValuesUnescapedMutant = mutant(
    "QuotesColonValuesUnescapedMutant",
    loader=swapping((frontmatter, "_quote_colon_values", _quote_without_escaping)),
)
ReadsNoColonValuesMutant = mutant(
    "ReadsNoColonValuesMutant",
    loader=swapping((frontmatter, "_quote_colon_values", lambda header: header)),
)


# -- names, descriptions, fields -----


def _lowercase(name: str) -> bool:
    return bool(name) and name == name.lower() and "--" not in name and name.strip("-") == name


def _refusing_mismatches(skills_dir: Path) -> LoadResult:
    result = load_skills(skills_dir)
    for name, skill in list(result.skills.items()):
        if skill.directory is not None and skill.directory.name != name:
            del result.skills[name]
    return result


_AGENTPOOL_FIELDS = frozenset({"name", "description", "allowed-tools", "tools", "mcp-servers"})


def _refusing_unknown_fields(skills_dir: Path) -> LoadResult:
    with mock.patch.object(loader, "_FIELDS", _AGENTPOOL_FIELDS):
        result = load_skills(skills_dir)
    for name, skill in list(result.skills.items()):
        assert skill.directory is not None
        path = str(skill.directory / "SKILL.md")
        if any(path in p and "unknown frontmatter field" in p for p in result.problems):
            del result.skills[name]
    return result


def _allowed_tools_as_one_name(value: object) -> frozenset[str] | None:
    return frozenset([value]) if isinstance(value, str) else _allowed_tools(value)


AcceptsAnyLowercaseNameMutant = mutant(
    "AcceptsAnyLowercaseNameMutant",
    loader=swapping((loader, "is_valid_skill_name", _lowercase)),
)
RefusesNameMismatchMutant = mutant("RefusesNameMismatchMutant", loader=_refusing_mismatches)
NoDescriptionLimitMutant = mutant(
    "NoDescriptionLimitMutant", loader=swapping((loader, "MAX_DESCRIPTION_LENGTH", 10**9))
)
RefusesUnknownFieldsMutant = mutant("RefusesUnknownFieldsMutant", loader=_refusing_unknown_fields)
AllowedToolsAsOneNameMutant = mutant(
    "AllowedToolsAsOneNameMutant",
    loader=swapping(
        (loader, "_allowed_tools", _allowed_tools_as_one_name),
    ),
)
KeepsTheLastOfARepeatedKeyMutant = mutant(
    "KeepsTheLastOfARepeatedKeyMutant",
    loader=swapping(
        (frontmatter._BoundedLoader, "construct_mapping", yaml.SafeLoader.construct_mapping)
    ),
)


# -- loaders that choose otherwise where the format lets them, and break what both choices owe --


def _listing_mismatches_by_folder(skills_dir: Path) -> LoadResult:
    result = load_skills(skills_dir)
    skills = {}
    for name, skill in result.skills.items():
        folder = skill.directory.name if skill.directory is not None else name
        skills[folder] = dataclasses.replace(skill, name=folder)
    return LoadResult(skills, result.problems)


def _losing_every_skill_to_one_refusal(skills_dir: Path) -> LoadResult:
    # A strict YAML loader that raises on the first skill it refuses, as one-call loaders do.
    with mock.patch.object(frontmatter, "_quote_colon_values", lambda header: header):
        result = load_skills(skills_dir)
    return LoadResult({}, result.problems) if result.problems else result


StrictListsMismatchesByFolderMutant = choosing_otherwise(
    mutant("StrictListsMismatchesByFolderMutant", loader=_listing_mismatches_by_folder),
    Ability.LENIENT_LOADING,
)
StrictLosesEverySkillToOneMutant = choosing_otherwise(
    mutant("StrictLosesEverySkillToOneMutant", loader=_losing_every_skill_to_one_refusal),
    Ability.LENIENT_LOADING,
)
NoLimitsRefusesAtTheLimitMutant = choosing_otherwise(
    mutant(
        "NoLimitsRefusesAtTheLimitMutant",
        loader=swapping(
            (frontmatter, "MAX_FILE_BYTES", frontmatter.MAX_FILE_BYTES - 1),
            (frontmatter, "MAX_FRONTMATTER_BYTES", frontmatter.MAX_FRONTMATTER_BYTES - 1),
        ),
    ),
    Ability.SIZE_LIMITS,
)


# -- what is read, and how much -----


def _read_folders_unchecked(path: Path) -> bytes:
    # What opening SKILL.md without looking at what it is, and letting the error out, does.
    return path.read_bytes() if path.is_dir() else _read_bytes(path)


def _open_blocking(path: Path) -> bytes:
    # Opening a named pipe for reading waits for a writer that never comes.
    if path.is_fifo():
        with path.open("rb") as handle:
            return handle.read()
    return _read_bytes(path)


_DEVICE_STAND_IN = 256 * 1024 * 1024


def _read_devices_whole(path: Path) -> bytes:
    # Reading /dev/zero to its end never ends: read 256 MiB (discarded), then fail as memory would.
    target = path.resolve()
    if target.is_char_device():
        descriptor = os.open(target, os.O_RDONLY)
        try:
            total = 0
            while total < _DEVICE_STAND_IN:
                total += len(os.read(descriptor, 1024 * 1024))
        finally:
            os.close(descriptor)
        raise MemoryError(f"read {total} bytes of {target} and counting")
    return _read_bytes(path)


def _read_following_links(path: Path) -> bytes:
    target = path.resolve()
    if target.is_file():
        return target.read_bytes()[: frontmatter.MAX_FILE_BYTES + 1]
    return _read_bytes(path)


def _parse_slowly(header: str) -> tuple[yaml.Node | None, object]:
    # Pure-Python YAML takes about 7 s per MB: stall that long instead of burning the CPU, and
    # spare the CPU the parse of more than a megabyte afterwards.
    time.sleep(7.0 * len(header) / 1_000_000)
    if len(header) > 1_000_000:
        raise FrontmatterError("frontmatter: parsed for a long time", None)
    return _parse(header)


FolderCrashesTheLoadMutant = mutant(
    "FolderCrashesTheLoadMutant",
    loader=swapping((frontmatter, "_read_bytes", _read_folders_unchecked)),
)
BlocksOnAPipeMutant = mutant(
    "BlocksOnAPipeMutant", loader=swapping((frontmatter, "_read_bytes", _open_blocking))
)
ReadsDevicesWholeMutant = mutant(
    "ReadsDevicesWholeMutant", loader=swapping((frontmatter, "_read_bytes", _read_devices_whole))
)
FollowsLinksOutMutant = mutant(
    "FollowsLinksOutMutant", loader=swapping((frontmatter, "_read_bytes", _read_following_links))
)
NoFileLimitMutant = mutant(
    "NoFileLimitMutant", loader=swapping((frontmatter, "MAX_FILE_BYTES", 64 * 1024 * 1024))
)
NoFrontmatterLimitMutant = mutant(
    "NoFrontmatterLimitMutant", loader=swapping((frontmatter, "MAX_FRONTMATTER_BYTES", 10**9))
)
NoSizeLimitsMutant = mutant(
    "NoSizeLimitsMutant",
    loader=swapping(
        (frontmatter, "MAX_FILE_BYTES", 64 * 1024 * 1024),
        (frontmatter, "MAX_FRONTMATTER_BYTES", 10**9),
        (frontmatter, "_parse", _parse_slowly),
    ),
)


# -- YAML without bounds -----


def _parse_unguarded(header: str) -> tuple[yaml.Node | None, object]:
    try:
        return frontmatter._load(header)
    except yaml.YAMLError as error:
        raise FrontmatterError(f"frontmatter: malformed YAML: {error}", None) from None


_WALK_STAND_IN = 10_000_000


def _walking_repr(value: object) -> str:
    # repr() walks every value an alias stands for: count them, and fail as memory would.
    seen = 0
    stack = [value]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > _WALK_STAND_IN:
            raise MemoryError(f"printing a value of more than {_WALK_STAND_IN} items")
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return repr(value)


NoDepthLimitMutant = mutant(
    "NoDepthLimitMutant",
    loader=swapping(
        (frontmatter, "MAX_DEPTH", 10**9),
        (frontmatter, "_parse", _parse_unguarded),
    ),
)
WalksAliasesWholeMutant = mutant(
    "WalksAliasesWholeMutant",
    loader=swapping(
        (frontmatter, "MAX_VALUES", 10**15),
        (loader, "_shown", _walking_repr),
    ),
)


# -- problems -----


def _located_without_line(path: Path, line: int | None) -> str:
    return str(path)


_RENDER_STAND_IN = 768 * 1024 * 1024
_CHUNK = 64 * 1024 * 1024


def _rendering_until_memory_runs_out(value: object) -> str:
    # The expansion rendered into the problem: the text grows until an allocation fails, and the
    # problem then says <unprintable> (as pydantic does), so the skill is refused in the end. Stands
    # in with 768 MiB of text, written so that it is resident, then the failure.
    if not isinstance(value, list | dict):
        return _shown_original(value)
    text: list[bytes] = []
    try:
        while len(text) * _CHUNK < _RENDER_STAND_IN:
            text.append(b"[" * _CHUNK)
        raise MemoryError("rendering the expansion")
    except MemoryError:
        return "<unprintable>"
    finally:
        text.clear()


RendersTheExpansionMutant = mutant(
    "RendersTheExpansionMutant",
    loader=swapping(
        (frontmatter, "MAX_VALUES", 10**15),
        (loader, "_shown", _rendering_until_memory_runs_out),
    ),
)
ProblemsWithoutLinesMutant = mutant(
    "ProblemsWithoutLinesMutant", loader=swapping((loader, "_located", _located_without_line))
)


def _silent(*_: str) -> None:
    """A report that says nothing."""


SkipsBadEntriesSilentlyMutant = mutant(
    "SkipsBadEntriesSilentlyMutant",
    loader=swapping(
        (loader, "_tools", lambda value, report, lines: _tools(value, _silent, lines)),
        (loader, "_servers", lambda value, report: _servers(value, _silent)),
    ),
)


class _CountingScalars(frontmatter._BoundedLoader):
    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.ScalarEvent):
            self._depth += 1  # a scalar taken for one more level of nesting
            try:
                if self._depth > frontmatter.MAX_DEPTH:
                    raise frontmatter._LimitError(
                        None, None, "nests too deep", frontmatter._mark(event)
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)


class _NeverUnnesting(frontmatter._BoundedLoader):
    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        if isinstance(event, yaml.CollectionStartEvent):
            self._depth += 1  # a level left is never given back: siblings count as nesting
        return node


NeverUnnestsMutant = mutant(
    "NeverUnnestsMutant", loader=swapping((frontmatter, "_BoundedLoader", _NeverUnnesting))
)
CountsScalarsAsLevelsMutant = mutant(
    "CountsScalarsAsLevelsMutant",
    loader=swapping((frontmatter, "_BoundedLoader", _CountingScalars)),
)
# `size >= limit` where the limit is meant to be allowed: the same as a limit one byte lower.
RefusesTheLimitItselfMutant = mutant(
    "RefusesTheLimitItselfMutant",
    loader=swapping((frontmatter, "MAX_FILE_BYTES", frontmatter.MAX_FILE_BYTES - 1)),
)
BoundsExpansionTenfoldMutant = mutant(
    "BoundsExpansionTenfoldMutant",
    loader=swapping((frontmatter, "MAX_VALUES", 10 * frontmatter.MAX_VALUES)),
)


def _yaml_lines_of_the_frontmatter(error: yaml.YAMLError, header: str) -> tuple[int | None, str]:
    # PyYAML counts lines from 0 within the text it was given: the frontmatter, not the file.
    line, message = _yaml_problem(error, header)
    return (None if line is None else line - FIRST_HEADER_LINE + 1), message


YamlLinesOfTheFrontmatterMutant = mutant(
    "YamlLinesOfTheFrontmatterMutant",
    loader=swapping((frontmatter, "_yaml_problem", _yaml_lines_of_the_frontmatter)),
)
QuotesValuesWholeMutant = mutant(
    "QuotesValuesWholeMutant",
    loader=swapping((loader, "_shown", repr), (loader, "_problem", lambda text: text)),
)


RefusesTheFrontmatterLimitItselfMutant = mutant(
    "RefusesTheFrontmatterLimitItselfMutant",
    loader=swapping((frontmatter, "MAX_FRONTMATTER_BYTES", frontmatter.MAX_FRONTMATTER_BYTES - 1)),
)


def _decode_reporting_the_file(data: bytes) -> str:
    # The decoding error caught for the whole file: the problem names no line past the first.
    try:
        return _decode(data)
    except FrontmatterError as error:
        raise FrontmatterError(str(error), 1) from None


ReportsUndecodableAtFirstLineMutant = mutant(
    "ReportsUndecodableAtFirstLineMutant",
    loader=swapping((frontmatter, "_decode", _decode_reporting_the_file)),
)


def _server_taking_any_command(name: str, entry: Mapping[str, Any]) -> McpServerSpec:
    # `if command is None` where `if not command` was meant: an empty command or URL is kept.
    if entry.get("command") == "" or entry.get("url") == "":
        return McpServerSpec(name=name, command=entry.get("command"), url=entry.get("url"))
    return _server(name, entry)


KeepsEmptyCommandsMutant = mutant(
    "KeepsEmptyCommandsMutant", loader=swapping((loader, "_server", _server_taking_any_command))
)


def _iterating_unchecked(skills_dir: Path) -> LoadResult:
    # The skills directory listed without asking whether it is one.
    if not skills_dir.is_dir():
        next(skills_dir.iterdir())
    return load_skills(skills_dir)


def _ignoring_a_file(skills_dir: Path) -> LoadResult:
    # A skills directory that is a file: no skills, and nobody is told.
    return LoadResult() if not skills_dir.is_dir() else load_skills(skills_dir)


IteratesTheSkillsPathUncheckedMutant = mutant(
    "IteratesTheSkillsPathUncheckedMutant", loader=_iterating_unchecked
)
IgnoresASkillsPathThatIsAFileMutant = mutant(
    "IgnoresASkillsPathThatIsAFileMutant", loader=_ignoring_a_file
)
