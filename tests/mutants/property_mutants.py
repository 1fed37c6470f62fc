"""Mutants that today's point scenarios miss and the property scenarios catch.

Each breaks a clause at an input its point scenarios do not try, the way skill loaders elsewhere
have broken it: the other side of a limit, another form of the same input, a neighbour of the
edge the points pin. The catalog names, for each, the property scenario that must kill it; the
point scenarios of the same clauses pass against it (tests/mutants/test_property_mutants.py).
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from pathlib import Path
from urllib.parse import urlsplit

from skill_conformance.port import Ability
from skill_conformance.reference import frontmatter, loader
from skill_conformance.reference.loader import LoadResult, load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.references import read_reference
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.substitution import substitute_arguments
from tests.mutants.base import choosing_otherwise, mutant, swapping
from tests.mutants.clause_mutants import _ONE_OR_MORE, _substituting, _substituting_provider

_WITH_UNDERSCORES = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*")


def _valid_with_underscores(name: str) -> bool:
    return len(name) <= 64 and _WITH_UNDERSCORES.fullmatch(name) is not None


NameAllowsUnderscoresMutant = mutant(
    "NameAllowsUnderscoresMutant",
    loader=swapping((loader, "is_valid_skill_name", _valid_with_underscores)),
)
"""Takes `_` for a name character, as loaders mixing up Python identifiers and skill names do."""


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _counting_utf16_units(skills_dir: Path) -> LoadResult:
    result = load_skills(skills_dir)
    for name, skill in list(result.skills.items()):
        if _utf16_length(skill.description) > loader.MAX_DESCRIPTION_LENGTH:
            del result.skills[name]
            result.problems.append(f"{skill.directory}/SKILL.md: description: too long")
    return result


DescriptionCountsUtf16UnitsMutant = mutant(
    "DescriptionCountsUtf16UnitsMutant", loader=_counting_utf16_units
)
"""Counts a description's length in UTF-16 units, as a JavaScript `length` does: a character
outside the Basic Multilingual Plane (an emoji) counts twice."""


StripsArgumentsMutant = mutant(
    "StripsArgumentsMutant",
    provider=_substituting_provider(
        lambda text, arguments: substitute_arguments(
            text, None if arguments is None else arguments.strip()
        ),
        "Strips the argument string first: `$@` loses the white space around it.",
    ),
)

TabIsOneSeparatorMutant = mutant(
    "TabIsOneSeparatorMutant",
    provider=_substituting_provider(
        _substituting(
            lambda arguments: re.split(r" +|\t", arguments.strip(" \t")), placeholder=_ONE_OR_MORE
        ),
        "Splits the arguments on runs of spaces or on a single tab: two tabs, or a tab beside a "
        "space, make an empty argument.",
    ),
)


def _decode_by_the_first_ending(data: bytes) -> str:
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    if "\r\n" in text:
        return text.replace("\r\n", "\n")
    return text.replace("\r", "\n")


EndingsOfTheFirstKindMutant = mutant(
    "EndingsOfTheFirstKindMutant",
    loader=swapping((frontmatter, "_decode", _decode_by_the_first_ending)),
)
"""Finds the file's line ending once (CRLF if it holds one, else CR) and reads every line by it:
a file whose lines end in more than one way keeps a lone CR."""


_CACHE: dict[tuple[Path, int], object] = {}


def _load_skill_dir_cached(directory: Path, problems: list[str]) -> Skill | None:
    """A skill read again only when its SKILL.md changed size."""
    skill_file = directory / loader.SKILL_FILE
    try:
        key = (skill_file, skill_file.stat().st_size)
    except OSError:
        return _load_skill_dir(directory, problems)
    if key not in _CACHE:
        _CACHE[key] = _load_skill_dir(directory, problems)
    cached = _CACHE[key]
    return cached if isinstance(cached, Skill) else _load_skill_dir(directory, problems)


_load_skill_dir = loader.load_skill_dir

RereadsOnlyResizedSkillsMutant = mutant(
    "RereadsOnlyResizedSkillsMutant",
    loader=swapping((loader, "load_skill_dir", _load_skill_dir_cached)),
)
"""Keeps each skill read and reads it again on a rebuild only when its SKILL.md changed size, as
loaders caching by file size (or by a coarse modification time) do: a change of the same length is
missed."""


def _one_kind_of_separator(value: object) -> frozenset[str] | None:
    if isinstance(value, str) and "," in value:
        return frozenset(name.strip() for name in value.split(","))
    return _allowed_tools(value)


_allowed_tools = loader._allowed_tools

SplitsAllowedToolsOneWayMutant = mutant(
    "SplitsAllowedToolsOneWayMutant",
    loader=swapping((loader, "_allowed_tools", _one_kind_of_separator)),
)
"""Splits an allowed-tools string on commas when it holds one, else on spaces: a string mixing
the two (`read, write grep`) keeps `write grep` as one name."""


class _DropsToolsByBareNamePrefix(SkillManagerCap):
    """Drops, with a skill whose tool did not import, every skill whose name begins with its own."""

    def _import_skill_tools(self, skill: Skill) -> None:
        before = len(self.problems)
        super()._import_skill_tools(skill)
        if len(self.problems) > before:
            for other in list(self._skill_tools):
                if other != skill.name and other.startswith(skill.name):
                    del self._skill_tools[other]
            self._failing = {*getattr(self, "_failing", set()), skill.name}
        elif any(skill.name.startswith(f) for f in getattr(self, "_failing", set())):
            self._skill_tools.pop(skill.name, None)


DropsToolsByNamePrefixMutant = mutant(
    "DropsToolsByNamePrefixMutant", manager=_DropsToolsByBareNamePrefix
)
"""Cleans up after a tool that failed its import by dropping the tools of every skill whose name
begins with the failing skill's (``name.startswith(skill)``, without the ``__`` that ends a
prefix): a failure in ``pdf`` costs ``pdf-x`` its tools too."""


def _read_as_url(skill: str, directory: Path, path: str) -> str:
    return read_reference(skill, directory, urlsplit(path).path)


ReadsPathAsUrlMutant = mutant("ReadsPathAsUrlMutant", reader=_read_as_url)
"""Reads a file's path as a URL's (``urlsplit(path).path``), as readers sharing one parser for URIs
and paths do: a file whose name holds `?` or `#` is looked for under the part before it."""


def _with_sub_skills(skills_dir: Path) -> LoadResult:
    result = load_skills(skills_dir)
    for skill in list(result.skills.values()):
        if skill.directory is None:
            continue
        for child in sorted(skill.directory.iterdir()):
            if (child / loader.SKILL_FILE).is_file():
                sub = loader.load_skill_dir(child, result.problems)
                if sub is not None and sub.name not in result.skills:
                    result.skills[sub.name] = sub
    return result


ReadsSubSkillsMutant = mutant("ReadsSubSkillsMutant", loader=_with_sub_skills)
"""Reads each folder directly inside a skill that holds a SKILL.md as a skill of its own, as loaders
taking a skill's subfolders for bundled sub-skills do: a template one folder down loads."""


_KEEPING = swapping((loader, "MAX_DESCRIPTION_LENGTH", 10**9))


def _shortening_only_long_descriptions(skills_dir: Path) -> LoadResult:
    result = _KEEPING(skills_dir)
    for name, skill in result.skills.items():
        if len(skill.description) > 2 * loader.MAX_DESCRIPTION_LENGTH:
            result.skills[name] = dataclasses.replace(
                skill, description=skill.description[: loader.MAX_DESCRIPTION_LENGTH]
            )
    return result


KeepsDescriptionsJustPastTheLimitMutant = choosing_otherwise(
    mutant("KeepsDescriptionsJustPastTheLimitMutant", loader=_shortening_only_long_descriptions),
    Ability.LENGTH_LIMITS,
)
"""Keeps over-long descriptions, as the format's guidance lets it (no ``length-limits``), and
shortens for the catalogue only those past twice the limit: a description of 1025 to 2048
characters reaches every agent's context whole."""
