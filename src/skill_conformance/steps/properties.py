"""The properties: each clause a spec gives a domain, checked over generated examples.

A spec names one of these by the ``by <property>`` of its ``<!-- domain: ... -->`` line. Each
draws only inputs its scenario's ``@needs`` tags allow (the context refuses any other use), and
computes what the clause expects of an example from the clause's own rule, written out here.
"""

from __future__ import annotations

import contextlib
import functools
import re
import string
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any
from urllib.parse import quote, unquote

import yaml
from hypothesis import strategies as st

from skill_conformance.port import Ability, Unsupported
from skill_conformance.runtime.blocking import ImplementationHang
from skill_conformance.runtime.world import DUMPER
from skill_conformance.steps.property_runner import Examples, MachineProperty, Property
from skill_conformance.steps.sequences import SKILL_SEQUENCES
from skill_conformance.verdicts import Mismatch, expect

__all__ = ["PROPERTIES"]


# -- skill names ([loading.name.chars], [loading.name.length]) -----

_NAME_RULE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024


def valid_name(name: str) -> bool:
    """The spec's rule: ASCII lowercase letters, digits, single inner hyphens; 1 to 64 long."""
    return 1 <= len(name) <= MAX_NAME and _NAME_RULE.fullmatch(name) is not None


def _skill_file(frontmatter: Mapping[str, Any], body: str = "Body.") -> bytes:
    header = yaml.dump(dict(frontmatter), Dumper=DUMPER, sort_keys=False, allow_unicode=True)
    return f"---\n{header}---\n{body}\n".encode()


def _check_listed(
    examples: Examples,
    skills: Mapping[str, bytes],
    wanted: AbstractSet[str],
    kept: AbstractSet[str] = frozenset(),
    longest: int | None = None,
) -> None:
    """Write ``skills`` (folder: SKILL.md) and list them: exactly ``wanted``, and any of ``kept``.

    ``kept`` are those the implementation may keep by a choice the format allows; ``longest``
    bounds each listed description, whatever was kept.
    """
    with examples.fresh() as context:
        for folder, data in skills.items():
            context.world.skill_file_bytes(folder, data)
        listing = list(context.start().list_skills())
    listed = sorted(entry.name for entry in listing)
    expect(
        wanted <= set(listed) <= wanted | kept and len(set(listed)) == len(listed),
        "the skills listed are not those the clause's rule lets load",
        expected=f"exactly {sorted(wanted)}"
        + (f", and any of {sorted(kept)} kept by the implementation's choice" if kept else ""),
        observed=f"listed {listed}",
    )
    for entry in listing:
        expect(
            longest is None or len(entry.description) <= longest,
            f"the catalogue carries the description of {entry.name!r} whole",
            expected=f"at most {longest} characters",
            observed=f"{len(entry.description):,} characters",
        )


def _keeps_long(examples: Examples) -> bool:
    """Whether the implementation may keep names and descriptions past the format's lengths."""
    return Ability.LENGTH_LIMITS in examples.implementation.unsupported


# Lowercase letters, digits and hyphens mostly; now and then a character the rule refuses.
_NAME_CHARS = st.sampled_from("abcxyz0189-") | st.sampled_from("A_.é Z")


def _names(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """Names a folder can bear: none empty, none starting with ``.`` (a hidden folder)."""
    return st.text(_NAME_CHARS, min_size=min_size, max_size=max_size).filter(
        lambda name: not name.startswith(".") and name.strip() == name and name != ""
    )


def _check_names(examples: Examples, names: Sequence[str]) -> None:
    """Each name in a folder of its own name: exactly the valid ones load.

    An implementation keeping over-long names (no ``length-limits``) may list those too.
    """
    skills = {name: _skill_file({"name": name, "description": "Drawn."}) for name in names}
    wanted = {name for name in names if valid_name(name)}
    kept: set[str] = set()
    if _keeps_long(examples):
        kept = {name for name in names if valid_name(name[:MAX_NAME]) and name not in wanted}
    _check_listed(examples, skills, wanted, kept)


def _show_names(names: Sequence[str]) -> str:
    return "skill folders, each holding a SKILL.md with the name of its folder: " + ", ".join(
        repr(name) for name in names
    )


SKILL_NAMES: Property[list[str]] = Property(
    name="skill-names",
    strategy=st.lists(_names(1, MAX_NAME), min_size=1, max_size=6, unique=True),
    edges=(
        ["a", "0", "a-b", "abc-123-x9", "1password", "42", "x-1-y"],
        ["under_score", "dot.ted", "Upper", "trailing-", "a--b", "-lead", "café", "sp ace"],
    ),
    check=_check_names,
    show=_show_names,
    budget=4,
)


_LENGTHS = st.lists(st.integers(min_value=1, max_value=MAX_NAME + 16), min_size=1, max_size=4)


def _name_of_length(length: int, index: int) -> str:
    """A valid-looking name of ``length`` characters, distinct for each ``index``."""
    seed = f"{string.ascii_lowercase[index % 26]}{index}"
    return (seed + "x" * length)[:length] if length >= len(seed) else "q" * length


def _check_name_lengths(examples: Examples, lengths: Sequence[int]) -> None:
    names = list(dict.fromkeys(_name_of_length(length, i) for i, length in enumerate(lengths)))
    _check_names(examples, names)


def _show_lengths(lengths: Sequence[int]) -> str:
    names = [_name_of_length(length, i) for i, length in enumerate(lengths)]
    return _show_names(names) + f" (lengths {list(lengths)})"


SKILL_NAME_LENGTHS: Property[list[int]] = Property(
    name="skill-name-lengths",
    strategy=_LENGTHS,
    edges=([1, 2, 63, 64, 65, 66, 80],),
    check=_check_name_lengths,
    show=_show_lengths,
    budget=3,
)


# -- descriptions ([loading.description.length]) -----

_DESCRIPTION_CHARS = st.sampled_from(["a", "Z", " ", "é", "漢", "😀", "-"])


@st.composite
def _descriptions(draw: st.DrawFn) -> str:
    """A description whose length is drawn near the limit, of characters of any width."""
    length = draw(st.integers(min_value=1, max_value=MAX_DESCRIPTION + 8))
    if length < MAX_DESCRIPTION - 40:
        length = draw(st.sampled_from([length, MAX_DESCRIPTION - 1, MAX_DESCRIPTION]))
    unit = draw(st.text(_DESCRIPTION_CHARS, min_size=1, max_size=3))
    text = (unit * (length // len(unit) + 1))[:length]
    return "d" + text[1:]  # starts with a letter: never white space only


def valid_description(description: str) -> bool:
    """The spec's rule: not only white space, at most 1024 characters (not bytes)."""
    return description.strip() != "" and len(description) <= MAX_DESCRIPTION


def _check_descriptions(examples: Examples, descriptions: Sequence[str]) -> None:
    skills = {
        f"skill-{index}": _skill_file({"name": f"skill-{index}", "description": description})
        for index, description in enumerate(descriptions)
    }
    wanted = {
        f"skill-{i}" for i, description in enumerate(descriptions) if valid_description(description)
    }
    if not _keeps_long(examples):
        _check_listed(examples, skills, wanted)
        return
    # Kept past 1024 characters by the implementation's choice, never handed over whole.
    kept = {f"skill-{i}" for i in range(len(descriptions))} - wanted
    _check_listed(examples, skills, wanted, kept, longest=MAX_DESCRIPTION)


def _show_descriptions(descriptions: Sequence[str]) -> str:
    def one(index: int, description: str) -> str:
        head = description[:12]
        return (
            f"skill-{index}: a description of {len(description)} characters "
            f"({len(description.encode())} bytes) beginning {head!r}"
        )

    return "; ".join(one(i, d) for i, d in enumerate(descriptions))


DESCRIPTION_LENGTHS: Property[list[str]] = Property(
    name="description-lengths",
    strategy=st.lists(_descriptions(), min_size=1, max_size=4),
    edges=(
        [
            "d" * MAX_DESCRIPTION,
            "d" * (MAX_DESCRIPTION + 1),
            "d" + "😀" * (MAX_DESCRIPTION - 1),
            "d" + "漢" * MAX_DESCRIPTION,
            "d" + "é" * (MAX_DESCRIPTION - 1),
            "d" + "😀" * MAX_DESCRIPTION,
        ],
    ),
    check=_check_descriptions,
    show=_show_descriptions,
    budget=4,
)


# -- argument substitution ([tools.args.split], [tools.args.all] ...) -----

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|@|[0-9]+)")


def substituted(template: str, arguments: str) -> str:
    """The text ``template`` becomes by the spec's rule, in one pass.

    ``$N`` (N from 1, read whole) is the N-th argument split on runs of spaces and tabs, or stays
    when there is none; ``$0`` stays; ``$@`` and ``$ARGUMENTS`` are the whole string as given.
    """
    positional = [word for word in re.split(r"[ \t]+", arguments) if word]

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in ("@", "ARGUMENTS"):
            return arguments
        index = int(key)
        if 1 <= index <= len(positional):
            return positional[index - 1]
        return match.group(0)

    return _PLACEHOLDER.sub(one, template)


_SEPARATORS = st.text(st.sampled_from(" \t"), min_size=1, max_size=3)
_WORDS = st.sampled_from(["a", "bb", "x9", "$1", "$@", "$2", "é", "-", "$ARGUMENTS", "$"])
_LITERALS = st.sampled_from([" ", "=", "[", "]", ":", ", ", "0", "7", "q"])
_TOKENS = st.sampled_from(["$1", "$2", "$3", "$9", "$10", "$11", "$0", "$@", "$ARGUMENTS"])


@st.composite
def _arguments(draw: st.DrawFn) -> str:
    words = draw(st.lists(_WORDS, min_size=0, max_size=11))
    text = ""
    for index, word in enumerate(words):
        text += (draw(_SEPARATORS) if index else "") + word
    lead = draw(st.sampled_from(["", " ", "\t", "  "]))
    trail = draw(st.sampled_from(["", " ", "\t "]))
    return lead + text + trail


@st.composite
def _templates(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(_TOKENS, _LITERALS), min_size=1, max_size=8))
    return "T:" + "".join(parts) + ":E"


def _check_arguments(examples: Examples, drawn: tuple[str, list[str]]) -> None:
    template, calls = drawn
    with examples.fresh() as context:
        context.world.skill_file_bytes(
            "args", _skill_file({"name": "args", "description": "Drawn."}, body=template)
        )
        system = context.start()
        for arguments in calls:
            text = system.load_skill("args", arguments)
            wanted = substituted(template, arguments)
            expect(
                wanted in text,
                "load_skill did not substitute the arguments as the clauses' rule says",
                expected=f"the text containing {wanted!r}",
                observed=f"{text[:400]!r} for the arguments {arguments!r}",
            )


ARGUMENT_SUBSTITUTION: Property[tuple[str, list[str]]] = Property(
    name="argument-substitution",
    strategy=st.tuples(_templates(), st.lists(_arguments(), min_size=1, max_size=3)),
    edges=(
        ("T:$1 $2 $3 [$@] [$ARGUMENTS]:E", ["a\t\tbb  \t x9", "  a b  ", "\t"]),
        ("T:$10$1$11 $0 $9$2$@:E", ["a bb x9 $1 $2 é - 7 8 ten eleven", "$2 $1", "$@ $ARGUMENTS"]),
    ),
    check=_check_arguments,
    show=lambda drawn: f"instructions {drawn[0]!r}, load_skill arguments {drawn[1]!r}",
    budget=4,
)


# -- how a SKILL.md is written ([loading.encoding.line-endings], [loading.encoding.bom]) -----

_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
_WORD = st.sampled_from(["alpha", "Beta", "été", "漢字", "x-1", "42"])
_SHAPES = ("plain", "single-quoted", "double-quoted", "folded", "literal")
_MOST_LINES = 9
"""Lines of a drawn SKILL.md at most: four of frontmatter, two more of a folded description, and
three of instructions."""


@st.composite
def _written_skill(draw: st.DrawFn) -> dict[str, Any]:
    """One skill as written: its words, its YAML shape, its byte order mark and line endings.

    Each line's ending is drawn on its own.
    """
    description = draw(st.lists(_WORD, min_size=2, max_size=4))
    body = draw(st.lists(st.lists(_WORD, min_size=1, max_size=3), min_size=1, max_size=3))
    return {
        "bom": draw(st.booleans()),
        "shape": draw(st.sampled_from(_SHAPES)),
        "description": description,
        "body": [" ".join(words) for words in body],
        "endings": draw(st.lists(_ENDINGS, min_size=_MOST_LINES, max_size=_MOST_LINES)),
        "final": draw(st.booleans()),
    }


def _description_lines(shape: str, words: Sequence[str]) -> tuple[list[str], str]:
    """The frontmatter lines writing ``words`` as a description in ``shape``, and its value."""
    text = " ".join(words)
    if shape == "single-quoted":
        return [f"description: '{text}'"], text
    if shape == "double-quoted":
        return [f'description: "{text}"'], text
    if shape == "folded":  # two lines folded into one, joined by a space
        half = len(words) // 2
        return [
            "description: >-",
            f"  {' '.join(words[:half])}",
            f"  {' '.join(words[half:])}",
        ], text
    if shape == "literal":
        return ["description: |-", f"  {text}"], text
    return [f"description: {text}"], text


def _skill_bytes(name: str, skill: Mapping[str, Any]) -> tuple[bytes, str]:
    """The SKILL.md of ``skill`` as bytes, and the description it gives."""
    described, description = _description_lines(skill["shape"], skill["description"])
    lines = ["---", f"name: {name}", *described, "---", *skill["body"]]
    endings = list(skill["endings"]) + ["\n"] * len(lines)
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=False))
    if not skill["final"]:
        text = text[: -len(endings[len(lines) - 1])]
    return ("\ufeff" if skill["bom"] else "").encode() + text.encode(), description


@contextlib.contextmanager
def _noted(note: str) -> Iterator[None]:
    """A mismatch raised inside says ``note`` after what went wrong."""
    try:
        yield
    except Mismatch as mismatch:
        raise Mismatch(
            f"{mismatch.what} {note}", expected=mismatch.expected, observed=mismatch.observed
        ) from None


_ENDINGS_ABILITY = Ability.NORMALISED_LINE_ENDINGS.value


def _lone_cr_as_lf(skill: Mapping[str, Any]) -> dict[str, Any]:
    """``skill`` with each lone-CR line ending written as LF instead."""
    return {**skill, "endings": ["\n" if e == "\r" else e for e in skill["endings"]]}


def _check_written(examples: Examples, skills: Sequence[Mapping[str, Any]]) -> None:
    """Each skill lists under its name with its description, and loads with each body line.

    A lone CR ending a line is a form the format leaves open: for an implementation that lacks
    ``normalised-line-endings`` such a line ends in LF instead, and the observation says so.
    """
    if Ability.NORMALISED_LINE_ENDINGS in examples.implementation.unsupported:
        changed = [_lone_cr_as_lf(skill) for skill in skills]
        if changed != list(skills):
            with _noted(
                "(each lone CR written as LF: the implementation lacks normalised-line-endings)"
            ):
                _check_written(examples, changed)
            return
    wanted: dict[str, str] = {}
    with examples.fresh() as context:
        for index, skill in enumerate(skills):
            name = f"written-{index}"
            data, wanted[name] = _skill_bytes(name, skill)
            context.world.skill_file_bytes(name, data)
        system = context.start()
        listed = {entry.name: entry.description for entry in system.list_skills()}
        expect(
            listed == wanted,
            "the skills are not listed with the names and descriptions they were written with",
            expected=f"exactly {wanted}",
            observed=f"listed {listed}",
        )
        for index, skill in enumerate(skills):
            text = system.load_skill(f"written-{index}")
            missing = [line for line in skill["body"] if line not in text]
            expect(
                not missing,
                f"what load_skill('written-{index}') returns lacks lines of its instructions",
                expected=f"the lines {list(skill['body'])}",
                observed=f"{text[:400]!r}",
            )


def _show_written(skills: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(
        f"written-{index}/SKILL.md = {_skill_bytes(f'written-{index}', skill)[0]!r}"
        for index, skill in enumerate(skills)
    )


def _uniform(ending: str, *, bom: bool = False, shape: str = "plain") -> dict[str, Any]:
    return {
        "bom": bom,
        "shape": shape,
        "description": ["alpha", "Beta"],
        "body": ["First line.", "Second line."],
        "endings": [ending] * 10,
        "final": True,
    }


def _mixed(shape: str, *endings: str, bom: bool = False) -> dict[str, Any]:
    return {**_uniform("\n", bom=bom, shape=shape), "endings": list(endings) * 4, "final": False}


WRITTEN_SKILLS: Property[list[dict[str, Any]]] = Property(
    name="skill-file-forms",
    strategy=st.lists(_written_skill(), min_size=1, max_size=3),
    edges=(
        [
            _uniform("\r\n", bom=True),
            _uniform("\r", shape="folded"),
            _uniform("\n"),
            _mixed("plain", "\r\n", "\r", "\n"),
            _mixed("folded", "\r", "\r\n", bom=True),
            _mixed("literal", "\n", "\r"),
            _mixed("double-quoted", "\r\n", "\n", bom=True),
        ],
    ),
    check=_check_written,
    show=_show_written,
    budget=4,
)


# -- every form of allowed-tools ([loading.fields.allowed-tools-forms]) -----

_JSON_FUNCTIONS = ("loads", "dumps", "load", "dump")
_SEPARATING = st.sampled_from([" ", ",", ", ", " ,", "  ", ",  ", " , "])


@st.composite
def _restricted_skill(draw: st.DrawFn) -> tuple[list[str], list[str], str | list[str]]:
    """Tools a skill declares, those it allows, and how its ``allowed-tools`` writes them."""
    declared = draw(st.lists(st.sampled_from(_JSON_FUNCTIONS), min_size=1, max_size=4, unique=True))
    allowed = draw(st.lists(st.sampled_from(declared), min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):
        return declared, allowed, list(allowed)
    text = allowed[0]
    for name in allowed[1:]:
        text += draw(_SEPARATING) + name
    return declared, allowed, text


def _check_allowed_forms(
    examples: Examples, skills: Sequence[tuple[list[str], list[str], str | list[str]]]
) -> None:
    """Each skill is offered exactly the tools its allowed-tools names, whatever its form."""
    wanted = sorted(
        f"restricted-{index}__tool__{name}"
        for index, (_, allowed, _) in enumerate(skills)
        for name in allowed
    )
    with examples.fresh() as context:
        for index, (declared, _, written) in enumerate(skills):
            draft = context.world.skill(f"restricted-{index}")
            draft.tools = [f"json:{name}" for name in declared]
            draft.allowed_tools = written
        offered = sorted(t for t in context.refresh_tools() if "__tool__" in t)
    expect(
        offered == wanted,
        "the tools offered are not those allowed-tools names",
        expected=f"exactly {wanted}",
        observed=f"offered {offered}",
    )


def _show_allowed(skills: Sequence[tuple[list[str], list[str], str | list[str]]]) -> str:
    return "; ".join(
        f"restricted-{index} declares {[f'json:{n}' for n in declared]}, allowed-tools: {written!r}"
        for index, (declared, _, written) in enumerate(skills)
    )


ALLOWED_TOOLS_FORMS: Property[list[tuple[list[str], list[str], str | list[str]]]] = Property(
    name="allowed-tools-forms",
    strategy=st.lists(_restricted_skill(), min_size=1, max_size=3),
    edges=(
        [
            (["loads", "dumps", "load"], ["loads", "dumps", "load"], "loads, dumps load"),
            (["loads", "dumps"], ["dumps"], ["dumps"]),
            (["loads", "dumps", "load", "dump"], ["dump", "loads"], "dump ,  loads"),
        ],
    ),
    check=_check_allowed_forms,
    show=_show_allowed,
    budget=4,
)


# -- rebuilds in sequence ([registration.rebuild.exact] ...) -----

_SKILLS = ("first", "second", "third")
_FUNCTIONS = ("loads", "dumps")
_TOOLSETS = st.lists(st.sampled_from(_FUNCTIONS), min_size=1, max_size=2, unique=True)
_STEPS = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(_SKILLS), _TOOLSETS),
    st.tuples(st.just("remove"), st.sampled_from(_SKILLS)),
    st.tuples(st.just("rebuild")),
)


def _offered(state: Mapping[str, Sequence[str]]) -> list[str]:
    """The spec's rule: exactly the tools the skills on disk declare, each once."""
    return sorted(f"{skill}__tool__{function}" for skill, fns in state.items() for function in fns)


def _check_rebuilds(
    examples: Examples, drawn: tuple[dict[str, list[str]], list[tuple[Any, ...]]]
) -> None:
    """Start on the first skills, then change the skills directory and rebuild, step by step.

    After every rebuild the agent is offered exactly the tools of the skills then on disk.
    """
    first, steps = drawn
    state = {skill: list(fns) for skill, fns in first.items()}
    with examples.fresh() as context:
        for skill, fns in state.items():
            context.world.skill(skill).tools = [f"json:{fn}" for fn in fns]
        context.start()
        done: list[str] = ["start"]
        for step_ in [*steps, ("rebuild",)]:
            if step_[0] == "write":
                state[step_[1]] = list(step_[2])
                context.world.skill(step_[1]).tools = [f"json:{fn}" for fn in step_[2]]
                done.append(f"write {step_[1]} with {list(step_[2])}")
                continue
            if step_[0] == "remove":
                if step_[1] in state:
                    del state[step_[1]]
                    context.world.remove_skill(step_[1])
                    done.append(f"remove {step_[1]}")
                continue
            context.rebuild()
            done.append("rebuild")
            offered = sorted(t for t in context.refresh_tools() if "__tool__" in t)
            expect(
                offered == _offered(state),
                "after a rebuild the agent is not offered exactly the tools of the skills on disk",
                expected=f"exactly {_offered(state)} after {' / '.join(done)}",
                observed=f"offered {offered}",
            )


def _show_rebuilds(drawn: tuple[dict[str, list[str]], list[tuple[Any, ...]]]) -> str:
    first, steps = drawn
    shown = [f"start with {dict(first)}"]
    shown += [" ".join(str(part) for part in step_) for step_ in steps]
    return " / ".join([*shown, "rebuild"])


REBUILD_SEQUENCES: Property[tuple[dict[str, list[str]], list[tuple[Any, ...]]]] = Property(
    name="rebuild-sequences",
    strategy=st.tuples(
        st.dictionaries(st.sampled_from(_SKILLS), _TOOLSETS, max_size=3),
        st.lists(_STEPS, min_size=1, max_size=8),
    ),
    edges=(
        ({"first": ["loads"]}, [("write", "first", ["dumps"]), ("rebuild",), ("rebuild",)]),
        (
            {"first": ["loads"], "second": ["dumps"]},
            [("remove", "second"), ("rebuild",), ("write", "second", ["loads", "dumps"])],
        ),
    ),
    check=_check_rebuilds,
    show=_show_rebuilds,
    budget=4,
)


# -- what is a skill in a skills directory ([loading.folders.one-per-folder] ...) -----

_TOP_NAMES = ("alpha", "alpha-beta", "beta", "b")
_ENTRY_KINDS = ("skill", "bare", "file", "hidden", "pipe", "folder", "not-utf-8", "oversized")
"""``pipe``, ``folder``, ``not-utf-8`` and ``oversized``: a folder whose SKILL.md is a named pipe,
a folder, bytes that are not UTF-8, or a sparse file of 1 MiB and one byte; refused all."""
_OVERSIZED = 1024 * 1024 + 1
_HOSTILE = {
    "hidden": Ability.SKIPS_HIDDEN_FOLDERS,
    "oversized": Ability.SIZE_LIMITS,
}


@st.composite
def _folder_entry(draw: st.DrawFn) -> tuple[str, tuple[int, ...]]:
    """One entry of the skills directory: its kind and the depths of SKILL.md files below it."""
    kind = draw(st.sampled_from(_ENTRY_KINDS))
    if kind in ("file", "pipe", "folder", "oversized"):
        return kind, ()
    low = 1 if kind == "bare" else 0
    depths = draw(st.lists(st.integers(min_value=1, max_value=3), min_size=low, max_size=2))
    return kind, tuple(depths)


def _tree(entries: Sequence[tuple[str, tuple[int, ...]]]) -> tuple[dict[str, bytes], set[str]]:
    """The SKILL.md files (path: bytes) and plain files of ``entries``, and the skills wanted."""
    files: dict[str, bytes] = {}
    wanted: set[str] = set()
    for index, (kind, depths) in enumerate(entries):
        top = _TOP_NAMES[index]
        folder = f".{top}" if kind == "hidden" else top
        if kind == "file":
            files[top] = b"Not a skill.\n"
            continue
        if kind in ("pipe", "folder", "oversized"):
            files[f"{top}/SKILL.md"] = kind.encode()
            continue
        if kind == "not-utf-8":
            bad = _skill_file({"name": top, "description": "Bad QQ."})
            files[f"{top}/SKILL.md"] = bad.replace(b"QQ", b"\xff\xfe")
        if kind in ("skill", "hidden"):
            files[f"{folder}/SKILL.md"] = _skill_file({"name": top, "description": "Drawn."})
            wanted |= {top} if kind == "skill" else set()
        for inner, depth in enumerate(depths):
            name = f"inner-{index}-{inner}"
            path = "/".join([folder, *(f"d{level}" for level in range(depth - 1)), name])
            files[f"{path}/SKILL.md"] = _skill_file({"name": name, "description": "Nested."})
    return files, wanted


def _check_folders(examples: Examples, entries: Sequence[tuple[str, tuple[int, ...]]]) -> None:
    """Exactly the folders directly in the skills directory holding a SKILL.md are skills."""
    lacking = {k for k, a in _HOSTILE.items() if a in examples.implementation.unsupported}
    entries = [(kind, depths) for kind, depths in entries if kind not in lacking]
    used = {_HOSTILE[kind] for kind, _ in entries if kind in _HOSTILE}
    examples.needs = (examples.needs or frozenset()) | used
    files, wanted = _tree(entries)
    try:
        listed = _list_folders(examples, files)
    except ImplementationHang as hang:  # a pipe's SKILL.md blocking the start or the close
        raise Mismatch(
            "reading the skills directory did not finish, though it must not block",
            expected=f"{hang.operation}() to finish within {hang.timeout:g} s",
            observed=str(hang),
        ) from None
    expect(
        listed == sorted(wanted),
        "the skills listed are not the folders directly in the skills directory with a SKILL.md",
        expected=f"exactly {sorted(wanted)}",
        observed=f"listed {listed}",
    )


def _list_folders(examples: Examples, files: Mapping[str, bytes]) -> list[str]:
    with examples.fresh() as context:
        world = context.world
        for path, data in files.items():
            folder = path.removesuffix("/SKILL.md")
            if not path.endswith("/SKILL.md"):
                world.stray_file(path, data.decode())
            elif data == b"pipe":
                world.skill_file_pipe(folder)
            elif data == b"folder":
                world.skill_file_folder(folder)
            elif data == b"oversized":
                world.skill_file_sparse(folder, _OVERSIZED)
            else:
                world.skill_file_bytes(folder, data)
        return context.bounded(lambda: sorted(e.name for e in context.start().list_skills()))


SKILL_FOLDERS: Property[list[tuple[str, tuple[int, ...]]]] = Property(
    name="skill-folders",
    strategy=st.lists(_folder_entry(), min_size=1, max_size=len(_TOP_NAMES)),
    edges=(
        [("skill", (1, 3)), ("bare", (2,)), ("file", ()), ("hidden", (1,))],
        [("bare", (1, 3)), ("skill", (2,)), ("skill", ()), ("skill", (1,))],
        [("pipe", ()), ("not-utf-8", (1,)), ("skill", ()), ("oversized", ())],
        [("folder", ()), ("skill", ())],
    ),
    check=_check_folders,
    show=lambda entries: (
        "the skills directory holding " + ", ".join(repr(path) for path in _tree(entries)[0])
    ),
    budget=3,
)


# -- a skill's files by their paths ([tools.refs.inline], [tools.refs.uri], [tools.refs.read-file])

_SEGMENT_CHARS = st.sampled_from("ab9-_ .%#?+&=:,;~@()[]'!$é漢")
_READERS = (Ability.READ_FILE, Ability.SKILL_URI, Ability.INLINE_REFERENCES)


def _plain_segment(segment: str) -> bool:
    """A segment no decoding of which leaves its folder, nor is hidden, empty or padded."""
    if segment.startswith(".") or segment != segment.strip() or not segment:
        return False
    current = segment
    for _ in range(4):
        if current in (".", "..") or any(c in current for c in "/\\\x00"):
            return False
        current = unquote(current)
    return True


_SEGMENTS = st.text(_SEGMENT_CHARS, min_size=1, max_size=10).filter(_plain_segment)
_PATHS = st.lists(_SEGMENTS, min_size=1, max_size=3).map(lambda parts: "/".join(parts))


def _reference_files(paths: Sequence[str]) -> dict[str, str]:
    """Each path under ``references/`` with a content of its own."""
    return {f"references/{path}": f"REF-{index}-CONTENT" for index, path in enumerate(paths)}


def _check_reference_paths(examples: Examples, paths: Sequence[str]) -> None:
    """Each file is read by its path, by its URI (percent-encoded once), and inline if top-level."""
    declared = {a for a in _READERS if a not in examples.implementation.unsupported}
    if not declared:
        raise Unsupported("no reader of a skill's files: read-file, skill-uri, inline-references")
    examples.needs = (examples.needs or frozenset()) | declared
    files = _reference_files(paths)
    with examples.fresh() as context:
        context.world.skill("refs").files.update(files)
        system = context.start()
        if Ability.INLINE_REFERENCES in declared:
            text = system.load_skill("refs")
            top = [c for p, c in files.items() if p.count("/") == 1]
            expect(
                all(content in text for content in top),
                "load_skill does not include every file directly in references/",
                expected=f"the contents {top}",
                observed=f"{text[:400]!r}",
            )
        for path, content in files.items():
            others = [c for c in files.values() if c != content]
            if Ability.SKILL_URI in declared:
                uri = f"skill://refs/{quote(path, safe='/')}"
                outcome = context.attempt(functools.partial(system.load_skill, uri))
                expect(
                    outcome.error is None
                    and content in str(outcome.value)
                    and not any(c in str(outcome.value) for c in others),
                    f"load_skill({uri!r}) does not give that file's content alone",
                    expected=f"a text holding {content!r} and no other file's",
                    observed=f"{outcome.error or repr(str(outcome.value)[:300])}",
                )
            if Ability.READ_FILE in declared:
                outcome = context.attempt(functools.partial(system.read_skill_file, "refs", path))
                expect(
                    outcome.error is None and content in str(outcome.value),
                    f"the file {path!r} is not read by its path",
                    expected=f"a text holding {content!r}",
                    observed=f"{outcome.error or repr(str(outcome.value)[:300])}",
                )


REFERENCE_PATHS: Property[list[str]] = Property(
    name="reference-paths",
    strategy=st.lists(_PATHS, min_size=1, max_size=3, unique=True),
    edges=(
        ["a#b.md", "v1..v2.md", "q?x=1&y", "a%41.md", "deep/er/50% off.md"],
        ["é/漢 字.md", "a:b;c,d.md", "[x](y)!.md", "~@+$'.md"],
    ),
    check=_check_reference_paths,
    show=lambda paths: (
        "a skill `refs` with the files " + ", ".join(repr(p) for p in _reference_files(paths))
    ),
    budget=3,
)


PROPERTIES: Mapping[str, Property[Any] | MachineProperty] = {
    prop.name: prop
    for prop in (
        SKILL_NAMES,
        SKILL_NAME_LENGTHS,
        DESCRIPTION_LENGTHS,
        ARGUMENT_SUBSTITUTION,
        WRITTEN_SKILLS,
        REBUILD_SEQUENCES,
        ALLOWED_TOOLS_FORMS,
        SKILL_SEQUENCES,
        REFERENCE_PATHS,
        SKILL_FOLDERS,
    )
}
"""Every property, by the name a spec's domain line gives it."""
