"""Steps of the skill-loading capability: SKILL.md files as written, and what becomes of them.

A ``SKILL.md`` here is given byte for byte (a doc string, with a byte order mark or other line
endings when the step says so), generated to a size, or made something other than a regular file.
Everything is observed through the port: ``list_skills``, ``load_skill`` and the problems reported.
"""

from __future__ import annotations

import itertools
import re

from pytest_bdd import given, parsers, then

from skill_conformance.port import Ability, SkillListing
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import one_of, step
from skill_conformance.verdicts import expect

_BOM = b"\xef\xbb\xbf"
_ENDINGS = {"CRLF": "\r\n", "CR": "\r", "LF": "\n"}
_UNITS = {"KiB": 1024, "MiB": 1024 * 1024, "MB": 1000 * 1000}


def _text(docstring: str, ending: str = "\n") -> bytes:
    return ("\n".join(docstring.splitlines()) + "\n").replace("\n", ending).encode()


def _frontmatter(folder: str, *lines: str, body: str = "") -> bytes:
    name = folder.rsplit("/", 1)[-1]
    header = "\n".join([f"name: {name}", *lines])
    return f"---\n{header}\n---\n{body or f'Body of {name}.'}\n".encode()


def _size(count: int, unit: str) -> int:
    assert unit in _UNITS, f"unknown unit {unit!r}; use one of {sorted(_UNITS)}"
    return count * _UNITS[unit]


# -- SKILL.md as written -----


@given(step("a skill folder `{folder:v}` whose `SKILL.md` reads"))
def given_skill_file(conformance: ScenarioContext, folder: str, docstring: str) -> None:
    conformance.world.skill_file_bytes(folder, _text(docstring))


@given(
    step(
        "a skill folder `{folder:v}` whose `SKILL.md` starts with a UTF-8 byte order mark"
        " and then reads"
    )
)
def given_skill_file_with_bom(conformance: ScenarioContext, folder: str, docstring: str) -> None:
    conformance.world.skill_file_bytes(folder, _BOM + _text(docstring))


@given(
    step("a skill folder `{folder:v}` whose `SKILL.md` has spaces after each `---` line and reads")
)
def given_skill_file_spaced_dashes(
    conformance: ScenarioContext, folder: str, docstring: str
) -> None:
    lines = [f"{line}   " if line == "---" else line for line in docstring.splitlines()]
    conformance.world.skill_file_bytes(folder, _text("\n".join(lines)))


@given(step("a skill folder `{folder:v}` whose `SKILL.md` has `{ending:v}` line endings and reads"))
def given_skill_file_with_endings(
    conformance: ScenarioContext, folder: str, ending: str, docstring: str
) -> None:
    assert ending in _ENDINGS, f"unknown line ending {ending!r}; use one of {sorted(_ENDINGS)}"
    conformance.world.skill_file_bytes(folder, _text(docstring, _ENDINGS[ending]))


# -- SKILL.md generated to a size or a shape -----


@given(step("a skill folder `{folder:v}` whose description is {length:n} characters long"))
def given_description_of_length(conformance: ScenarioContext, folder: str, length: int) -> None:
    conformance.world.skill_file_bytes(folder, _frontmatter(folder, f"description: {'d' * length}"))


@given(
    step("a skill folder `{folder:v}` whose description is {length:n} characters `{char:v}` long")
)
def given_description_of_characters(
    conformance: ScenarioContext, folder: str, length: int, char: str
) -> None:
    assert len(char) == 1, f"{char!r} is not one character"
    conformance.world.skill_file_bytes(
        folder, _frontmatter(folder, f"description: {char * length}")
    )


@given(
    step("a skill folder `{folder:v}` whose instructions are {length:n} characters `{char:v}` long")
)
def given_instructions_of_characters(
    conformance: ScenarioContext, folder: str, length: int, char: str
) -> None:
    assert len(char) == 1, f"{char!r} is not one character"
    data = _frontmatter(folder, "description: Wide instructions.", body=char * length)
    conformance.world.skill_file_bytes(folder, data)


@given(step("a skill folder `{folder:v}` whose frontmatter holds {length:n} characters `{char:v}`"))
def given_frontmatter_of_characters(
    conformance: ScenarioContext, folder: str, length: int, char: str
) -> None:
    assert len(char) == 1, f"{char!r} is not one character"
    data = _frontmatter(folder, "description: A wide frontmatter.", f"# {char * length}")
    conformance.world.skill_file_bytes(folder, data)


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is a sparse file of {count:n} {unit:w}"))
def given_sparse_skill_file(
    conformance: ScenarioContext, folder: str, count: int, unit: str
) -> None:
    conformance.world.skill_file_sparse(folder, _size(count, unit))


@given(step("a skill folder `{folder:v}` whose name is {length:n} characters long"))
def given_name_of_length(conformance: ScenarioContext, folder: str, length: int) -> None:
    data = f"---\nname: {'n' * length}\ndescription: A long name.\n---\nBody.\n".encode()
    conformance.world.skill_file_bytes(folder, data)


@given(step("a skill folder `{folder:v}` whose `SKILL.md` has instructions of {count:n} {unit:w}"))
def given_instructions_of_size(
    conformance: ScenarioContext, folder: str, count: int, unit: str
) -> None:
    line = "Instructions that go on and on.\n"
    body = line * (_size(count, unit) // len(line) + 1)
    data = _frontmatter(folder, "description: Sized instructions.", body=body)
    conformance.world.skill_file_bytes(folder, data)


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is {count:n} {unit:w} long"))
def given_file_of_size(conformance: ScenarioContext, folder: str, count: int, unit: str) -> None:
    conformance.world.skill_file_bytes(folder, _sized_file(folder, _size(count, unit)))


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is {count:n} {unit:w} and one byte long"))
def given_file_of_size_and_one(
    conformance: ScenarioContext, folder: str, count: int, unit: str
) -> None:
    conformance.world.skill_file_bytes(folder, _sized_file(folder, _size(count, unit) + 1))


def _sized_file(folder: str, size: int) -> bytes:
    """A valid ``SKILL.md`` of exactly ``size`` bytes: its instructions fill it up."""
    head = _frontmatter(folder, "description: Sized to the byte.", body="x")[:-2]
    return head + b"x" * (size - len(head) - 1) + b"\n"


@given(step("a skill folder `{folder:v}` whose frontmatter is {count:n} {unit:w} long"))
def given_frontmatter_of_size(
    conformance: ScenarioContext, folder: str, count: int, unit: str
) -> None:
    conformance.world.skill_file_bytes(folder, _padded(folder, _size(count, unit)))


@given(
    step("a skill folder `{folder:v}` whose frontmatter is {count:n} {unit:w} and one byte long")
)
def given_frontmatter_of_size_and_one(
    conformance: ScenarioContext, folder: str, count: int, unit: str
) -> None:
    conformance.world.skill_file_bytes(folder, _padded(folder, _size(count, unit) + 1))


def _padded(folder: str, size: int) -> bytes:
    """A ``SKILL.md`` whose frontmatter (the bytes between its two ``---`` lines) is ``size`` long.

    Padded with comment lines: valid YAML that adds no field and no value.
    """
    header = f"name: {folder}\ndescription: A padded frontmatter.\n"
    missing = size - len(header)
    line = "# " + "p" * 77 + "\n"
    padding = line * (missing // len(line))
    rest = missing - len(padding)
    if rest == 1 and padding:  # no comment line is one byte long: lengthen the last one
        padding = padding[:-1] + "p\n"
    elif rest >= 2:
        padding += "#" * (rest - 1) + "\n"
    assert len(header) + len(padding) == size, f"cannot pad a frontmatter to {size} bytes"
    return f"---\n{header}{padding}---\nBody of {folder}.\n".encode()


@given(step("a skill folder `{folder:v}` whose description nests {depth:n} flow sequences"))
def given_nested_description(conformance: ScenarioContext, folder: str, depth: int) -> None:
    data = _frontmatter(folder, f"description: {'[' * depth}{']' * depth}")
    conformance.world.skill_file_bytes(folder, data)


@given(
    step(
        "a skill folder `{folder:v}` whose field `{field:v}` holds {depth:n} nested flow sequences"
        " around one value"
    )
)
def given_nested_field(conformance: ScenarioContext, folder: str, field: str, depth: int) -> None:
    data = _frontmatter(
        folder, "description: Nests a field.", f"{field}: {'[' * depth}x{']' * depth}"
    )
    conformance.world.skill_file_bytes(folder, data)


@given(
    step(
        "a skill folder `{folder:v}` whose field `{field:v}` holds {count:n} one-value flow"
        " sequences side by side"
    )
)
def given_broad_field(conformance: ScenarioContext, folder: str, field: str, count: int) -> None:
    data = _frontmatter(
        folder, "description: Lists lists.", f"{field}: [{', '.join(['[x]'] * count)}]"
    )
    conformance.world.skill_file_bytes(folder, data)


@given(
    step(
        "a skill folder `{folder:v}` whose field `{field:v}` repeats by {times:n} aliases"
        " a list of {size:n} values"
    )
)
def given_aliased_field(
    conformance: ScenarioContext, folder: str, field: str, times: int, size: int
) -> None:
    values = ", ".join(["x"] * size)
    aliases = ", ".join(["*list"] * times)
    data = _frontmatter(
        folder, "description: Repeats a list.", f"{field}: [&list [{values}], {aliases}]"
    )
    conformance.world.skill_file_bytes(folder, data)


@given(
    step(
        "a skill folder `{folder:v}` whose license on line 4 holds the control character U+{code:w}"
    )
)
def given_control_character(conformance: ScenarioContext, folder: str, code: str) -> None:
    character = chr(int(code, 16))
    data = _frontmatter(folder, "description: Rings a bell.", f"license: MIT{character}")
    conformance.world.skill_file_bytes(folder, data)


@given(step("a skill folder `{folder:v}` whose description on line 3 holds the byte 0x{code:w}"))
def given_undecodable_byte(conformance: ScenarioContext, folder: str, code: str) -> None:
    byte = bytes([int(code, 16)])
    assert not byte.isascii(), f"0x{code} is ASCII, so valid UTF-8 on its own"
    head = _frontmatter(folder, "description: Written in Latin-1, as in caf@.")
    conformance.world.skill_file_bytes(folder, head.replace(b"@", byte))


# -- SKILL.md that is not a regular file, and what else a skills directory holds -----


@given("the skills directory is a file")
def given_skills_dir_file(conformance: ScenarioContext) -> None:
    conformance.world.skills_dir_is_file = True


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is a folder"))
def given_skill_file_folder(conformance: ScenarioContext, folder: str) -> None:
    conformance.world.skill_file_folder(folder)


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is a named pipe"))
def given_skill_file_pipe(conformance: ScenarioContext, folder: str) -> None:
    conformance.world.skill_file_pipe(folder)


@given(step("a skill folder `{folder:v}` whose `SKILL.md` is a symbolic link to `{target:v}`"))
def given_skill_file_link(conformance: ScenarioContext, folder: str, target: str) -> None:
    conformance.world.skill_file_link(folder, target)


@given(
    step(
        "a skill folder `{folder:v}` whose `SKILL.md` is a symbolic link to a file outside"
        " the skills directory that reads"
    )
)
def given_skill_file_link_outside(
    conformance: ScenarioContext, folder: str, docstring: str
) -> None:
    outside = conformance.world.outside_file(f"outside-{folder}.md", _text(docstring).decode())
    conformance.world.skill_file_link(folder, outside)


@given(
    step(
        "a skill folder `{folder:v}` that is a symbolic link to a folder outside the skills"
        " directory whose `SKILL.md` reads"
    )
)
def given_linked_skill_folder(conformance: ScenarioContext, folder: str, docstring: str) -> None:
    conformance.world.linked_skill_folder(folder, _text(docstring))


@given(
    step(
        "a skill folder `{folder:v}` that is a symbolic link to a folder `{target:v}` outside the"
        " skills directory whose `SKILL.md` reads"
    )
)
def given_linked_skill_folder_named(
    conformance: ScenarioContext, folder: str, target: str, docstring: str
) -> None:
    conformance.world.linked_skill_folder(folder, _text(docstring), target_name=target)


@given(step("a file `{name:v}` directly in the skills directory"))
def given_stray_file(conformance: ScenarioContext, name: str) -> None:
    conformance.world.stray_file(name)


@given(step("an empty folder `{name:v}` in the skills directory"))
def given_empty_folder(conformance: ScenarioContext, name: str) -> None:
    conformance.world.empty_folder(name)


@given(
    step("the skill `{skill:v}` allows only the tools {tools:vs}, written as the string `{text:v}`")
)
def given_allowed_tools_string(
    conformance: ScenarioContext, skill: str, tools: list[str], text: str
) -> None:
    assert sorted(re.split(r"[\s,]+", text.strip())) == sorted(tools), (
        f"the string {text!r} does not name exactly {tools}"
    )
    conformance.world.skill(skill).allowed_tools = text


# -- what the agent gets -----


def _listing(conformance: ScenarioContext) -> list[SkillListing]:
    if conformance.listing is None:
        conformance.listing = list(conformance.start().list_skills())
    return conformance.listing


def _excerpt(text: str, limit: int = 200) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(text)} characters)"


@then(step("the listed skill `{name:v}` has the description `{text:v}`"))
def then_listed_description(conformance: ScenarioContext, name: str, text: str) -> None:
    entries = [entry for entry in _listing(conformance) if entry.name == name]
    expect(
        len(entries) == 1,
        f"list_skills has {len(entries)} entries named {name!r}",
        expected=f"one entry named {name!r}",
        observed=f"{[entry.name for entry in _listing(conformance)]}",
    )
    expect(
        entries[0].description == text,
        f"the listed skill {name!r} has another description",
        expected=repr(text),
        observed=_excerpt(entries[0].description),
    )


@then(step("no listed description is longer than {limit:n} characters"))
def then_descriptions_bounded(conformance: ScenarioContext, limit: int) -> None:
    for entry in _listing(conformance):
        expect(
            len(entry.description) <= limit,
            f"the catalogue carries the description of {entry.name!r} whole",
            expected=f"at most {limit} characters",
            observed=f"{len(entry.description):,} characters",
        )


@then(step("the skill `{name:v}` is either not listed or listed with the description `{text:v}`"))
@then(
    step(
        "the skill `{name:v}` is either not listed or listed with the description `{text:v}`"
        " or `{other:v}`"
    )
)
def then_refused_or_whole(
    conformance: ScenarioContext, name: str, text: str, other: str | None = None
) -> None:
    """Refused, or listed with a description written for it: ``text``, or ``other`` where given."""
    written = [text] if other is None else [text, other]
    for entry in _listing(conformance):
        if entry.name == name:
            expect(
                entry.description in written,
                f"the listed skill {name!r} has a description other than the one written",
                expected=f"{' or '.join(map(repr, written))}, or the skill refused",
                observed=_excerpt(entry.description),
            )


def _listed_as(conformance: ScenarioContext, allowed: list[list[str]]) -> None:
    listed = sorted(entry.name for entry in _listing(conformance))
    expect(
        listed in allowed,
        "list_skills does not list exactly the skills the scenario names",
        expected=" or ".join(f"exactly {choice}" for choice in allowed),
        observed=f"list_skills lists {listed}",
    )


@then(
    step(
        "the listed skill names are exactly {names:vs}, {left:vs} left out only where the"
        " implementation may refuse what the format forbids"
    )
)
def then_listed_exactly_or_strict(
    conformance: ScenarioContext, names: list[str], left: list[str]
) -> None:
    """Exactly ``names``; a loader following the format strictly may leave ``left`` out.

    No ``@needs:lenient-loading``: what both choices owe (nothing else lost, nothing listed under
    another name) is every implementation's, and only one declaring lenient loading must list them.
    """
    allowed = [sorted(names)]
    if Ability.LENIENT_LOADING in conformance.implementation.unsupported:
        allowed.append(sorted(set(names) - set(left)))
    _listed_as(conformance, allowed)


_CHOICES = {
    "sets no size limits": Ability.SIZE_LIMITS,
    "keeps a key written twice": Ability.DUPLICATE_KEYS,
}


@then(
    step(
        "the listed skill names are exactly {names:vs}, with {extra:vs} too where the"
        " implementation {choice:choice}",
        extra_types={"choice": one_of(*_CHOICES)},
    )
)
def then_listed_exactly_or_kept(
    conformance: ScenarioContext, names: list[str], extra: list[str], choice: str
) -> None:
    """Exactly ``names``; where the implementation lacks the refusing ability, any of ``extra`` too.

    The refusal is asked only of implementations declaring the ability; ``names`` (what is within
    every limit, and what nothing may take away) are every implementation's to list.
    """
    allowed = [sorted(names)]
    if _CHOICES[choice] in conformance.implementation.unsupported:
        allowed = [
            sorted([*names, *kept])
            for count in range(len(extra) + 1)
            for kept in itertools.combinations(extra, count)
        ]
    _listed_as(conformance, allowed)


@then("no skill is listed twice")
def then_no_duplicates(conformance: ScenarioContext) -> None:
    names = [entry.name for entry in _listing(conformance)]
    twice = sorted({name for name in names if names.count(name) > 1})
    expect(
        not twice,
        f"list_skills lists {twice} more than once",
        expected="each name once",
        observed=f"{names}",
    )


@then(step("the listed skill `{name:v}` has the description `{first:v}` or `{second:v}`"))
def then_listed_description_either(
    conformance: ScenarioContext, name: str, first: str, second: str
) -> None:
    entries = [entry for entry in _listing(conformance) if entry.name == name]
    expect(
        len(entries) == 1,
        f"list_skills has {len(entries)} entries named {name!r}",
        expected=f"one entry named {name!r}",
        observed=f"{[entry.name for entry in _listing(conformance)]}",
    )
    expect(
        entries[0].description in (first, second),
        f"the listed skill {name!r} has the description of neither copy",
        expected=f"{first!r} or {second!r}",
        observed=_excerpt(entries[0].description),
    )


def _loaded(conformance: ScenarioContext, name: str) -> str:
    # Inside the attempt: a refusal of the implementation is the wrong behaviour here (failed),
    # not a crash of the call (errored).
    outcome = conformance.attempt(lambda: conformance.start().load_skill(name))
    expect(
        outcome.error is None,
        f"load_skill({name!r}) was refused",
        expected=f"the text of {name!r}",
        observed=f"{outcome.error}",
    )
    text = outcome.value
    expect(
        isinstance(text, str),
        f"load_skill({name!r}) did not return text",
        expected="a str",
        observed=type(text).__name__,
    )
    assert isinstance(text, str)
    return text


def _expect_loaded_text(name: str, loaded: str, text: str) -> None:
    expect(
        text in loaded,
        f"what load_skill({name!r}) returns lacks the text",
        expected=f"a text containing {text!r}",
        observed=_excerpt(loaded),
    )


@then(step("the skill `{name:v}` loads with the text `{text:v}`"))
def then_loads_with(conformance: ScenarioContext, name: str, text: str) -> None:
    _expect_loaded_text(name, _loaded(conformance, name), text)


@then(step("the skill `{name:v}` loads with the text `{text:v}` where it is listed"))
def then_loads_with_if_listed(conformance: ScenarioContext, name: str, text: str) -> None:
    """As ``loads with the text`` for a listed skill; a skill refused at loading is not loaded."""
    if any(entry.name == name for entry in _listing(conformance)):
        then_loads_with(conformance, name, text)


@then(step("the skill `{name:v}` loads with the text `{text:v}` and no carriage return"))
def then_loads_without_cr(conformance: ScenarioContext, name: str, text: str) -> None:
    loaded = _loaded(conformance, name)
    _expect_loaded_text(name, loaded, text)
    expect(
        "\r" not in loaded,
        f"what load_skill({name!r}) returns holds a carriage return",
        expected="no carriage return",
        observed=_excerpt(loaded),
    )


@then(step("the skill `{name:v}` still loads"))
def then_still_loads(conformance: ScenarioContext, name: str) -> None:
    expected = conformance.world.skill(name).body()
    _expect_loaded_text(name, _loaded(conformance, name), expected)


@then(step("no listed description or loaded text contains `{text:v}`"))
def then_nothing_leaks(conformance: ScenarioContext, text: str) -> None:
    for entry in _listing(conformance):
        for where, found in (
            ("description", entry.description),
            ("text", _loaded(conformance, entry.name)),
        ):
            expect(
                text not in found,
                f"the {where} of {entry.name!r} holds what only a file outside holds",
                expected=f"no {text!r}",
                observed=_excerpt(found),
            )


# -- problems -----


def _problems_naming(conformance: ScenarioContext, path: str, called: str | None = None) -> str:
    """The one problem naming ``path``; the verdict calls ``path`` ``called`` when given.

    ``called`` stands for a path that changes from run to run (a temporary directory), in the
    verdict's text and in the problems it quotes, so that the text of a verdict stays the same.
    """
    problems = list(conformance.start().problems())
    naming = [p for p in problems if path in p]
    what = repr(path) if called is None else called
    quoted = problems if called is None else [p.replace(path, f"<{called}>") for p in problems]
    expect(
        len(naming) == 1,
        f"{len(naming)} problems name {what}",
        expected=f"exactly one problem naming {what}",
        observed=f"{[_excerpt(p) for p in quoted]}",
    )
    return naming[0]


@then(step("exactly one problem names `{path:v}`"))
def then_one_problem(conformance: ScenarioContext, path: str) -> None:
    _problems_naming(conformance, path)


@then("exactly one problem names the skills directory")
def then_one_problem_skills_dir(conformance: ScenarioContext) -> None:
    _problems_naming(conformance, str(conformance.world.skills_dir), "the skills directory")


def _expect_field(problem: str, field: str) -> None:
    expect(
        field in problem,
        "the problem does not name the field",
        expected=f"a problem naming {field!r}",
        observed=_excerpt(problem),
    )


@then(step("exactly one problem names `{path:v}` and `{field:v}`"))
def then_one_problem_field(conformance: ScenarioContext, path: str, field: str) -> None:
    _expect_field(_problems_naming(conformance, path), field)


@then(step("exactly one problem names `{path:v}`, the line {line:n} and `{field:v}`"))
def then_one_problem_line(conformance: ScenarioContext, path: str, line: int, field: str) -> None:
    problem = _problems_naming(conformance, path)
    _expect_field(problem, field)
    _expect_line(problem, path, line)


def _declaring(conformance: ScenarioContext, name: str) -> dict[str, str]:
    """The folders whose ``SKILL.md`` (as the scenario wrote it) declares ``name``: descriptions."""
    found = {}
    for path in sorted(conformance.world.skills_dir.glob("*/SKILL.md")):
        text = path.read_text(errors="replace")
        if re.search(rf"^name: {re.escape(name)}$", text, re.MULTILINE):
            described = re.search(r"^description: (.*)$", text, re.MULTILINE)
            found[path.parent.name] = described.group(1) if described else ""
    return found


@then(
    step(
        "exactly one problem names the `SKILL.md` of the copy of `{name:v}` that is not listed,"
        " the line {line:n} and `{field:v}`"
    )
)
def then_one_problem_other_copy(
    conformance: ScenarioContext, name: str, line: int, field: str
) -> None:
    listed = {entry.name: entry.description for entry in _listing(conformance)}
    copies = _declaring(conformance, name)
    unlisted = [folder for folder, description in copies.items() if description != listed.get(name)]
    assert len(copies) == 2, f"two copies of {name!r} expected: {copies}"
    expect(
        len(unlisted) == 1,
        f"the listed {name!r} is not one of its two copies",
        expected=f"the description of one of {sorted(copies)}",
        observed=f"{listed.get(name)!r}",
    )
    then_one_problem_line(conformance, f"{unlisted[0]}/SKILL.md", line, field)


@then(step("exactly one problem names `{path:v}` and the line {line:n}"))
def then_one_problem_at(conformance: ScenarioContext, path: str, line: int) -> None:
    _expect_line(_problems_naming(conformance, path), path, line)


@then(step("a problem names `{path:v}`, the line {line:n} and `{field:v}`"))
def then_a_problem_at(conformance: ScenarioContext, path: str, line: int, field: str) -> None:
    problems = list(conformance.start().problems())
    found = [p for p in problems if path in p and field in p and re.search(_at(path, line), p)]
    expect(
        bool(found),
        f"no problem names {path!r}, the line {line} and {field!r}",
        expected=f"a problem naming {path!r}, the line {line} and {field!r}",
        observed=f"{[_excerpt(p) for p in problems]}",
    )


def _at(path: str, line: int) -> str:
    """A pattern of ``path:line`` or ``line N`` in a problem."""
    return rf"{re.escape(path)}:{line}(?![0-9])|\bline {line}(?![0-9])"


def _expect_line(problem: str, path: str, line: int) -> None:
    where = _at(path, line)
    expect(
        re.search(where, problem) is not None,
        "the problem does not name the line",
        expected=f"'{path}:{line}' or 'line {line}'",
        observed=_excerpt(problem),
    )


@then(parsers.parse("every problem is one line of at most {limit:d} characters"))
def then_problems_bounded(conformance: ScenarioContext, limit: int) -> None:
    problems = list(conformance.start().problems())
    expect(bool(problems), "no problem was reported", expected="problems", observed="none")
    for problem in problems:
        expect(
            not {"\n", "\r"} & set(problem) and len(problem) <= limit,
            "a problem is not one short line",
            expected=f"one line of at most {limit} characters",
            observed=f"{len(problem)} characters: {_excerpt(problem)}",
        )
