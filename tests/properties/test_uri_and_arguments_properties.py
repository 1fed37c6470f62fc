"""Properties of ``skill://`` URIs and of argument substitution in ``load_skill``.

``skill://{name}`` round-trips through the reference's format and parse, and through the port: the
URI ``list_skills`` gives for a skill resolves, through the registry, to that skill. Substitution is
checked against an oracle written independently of the reference's regular expression: ``$N`` is
read whole (``$10`` is the tenth argument, never ``$1`` then ``0``), a missing argument leaves the
placeholder as written, ``$@`` and ``$ARGUMENTS`` are the whole argument string, text an argument
brings in is not substituted again, and text without arguments comes back unchanged.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from property_helpers import budget, opened, skill_names, temporary_world

from skill_conformance.reference.uri import SkillURI, format_skill_uri, parse_skill_uri


@budget(100)
@given(
    names=skill_names(max_size=1),
    reference=st.none()
    | st.from_regex(
        r"[a-z0-9_-]{1,6}(\.[a-z]{1,3})?(/[a-z0-9_-]{1,6}(\.[a-z]{1,3})?){0,2}", fullmatch=True
    ),
)
def test_format_and_parse_round_trip(names: list[str], reference: str | None) -> None:
    [name] = names
    uri = format_skill_uri(name, reference)
    assert uri == (f"skill://{name}" if reference is None else f"skill://{name}/{reference}")
    assert parse_skill_uri(uri) == SkillURI(name, reference)
    assert str(SkillURI(name, reference)) == uri


@budget(10)
@given(names=skill_names(max_size=4))
def test_listed_uris_resolve_to_their_skills_through_the_registry(names: list[str]) -> None:
    with temporary_world() as world:
        for name in names:
            world.skill(name).instructions = f"Body of {name}."
        with opened(world) as system:
            listed = {entry.name: entry.uri for entry in system.list_skills()}
            resolved = {name: system.resolve_uri(format_skill_uri(name)) for name in names}
            by_uri = system.load_skill(format_skill_uri(names[0]))
            by_name = system.load_skill(names[0])
    assert listed == {name: format_skill_uri(name) for name in names}
    for name, skill in resolved.items():
        assert skill.name == name
        assert skill.instructions == f"Body of {name}."
    assert by_uri == by_name


# -- argument substitution -----------------------------------------------------------------------


def expected_substitution(text: str, arguments: str | None) -> str:
    """The oracle: one left-to-right scan, placeholders read whole."""
    if arguments is None:
        return text
    positional = arguments.split()
    out: list[str] = []
    index = 0
    while index < len(text):
        if text.startswith("$ARGUMENTS", index):
            out.append(arguments)
            index += len("$ARGUMENTS")
            continue
        if text.startswith("$@", index):
            out.append(arguments)
            index += 2
            continue
        end = index + 1
        while text.startswith("$", index) and end < len(text) and text[end].isdigit():
            end += 1
        digits = text[index + 1 : end]
        if digits and digits[0] != "0":
            number = int(digits)
            out.append(positional[number - 1] if number <= len(positional) else text[index:end])
            index = end
            continue
        out.append(text[index])
        index += 1
    return "".join(out)


_FRAGMENTS = st.sampled_from(
    [*(f"${n}" for n in range(1, 13)), "$@", "$ARGUMENTS", "$", "$0", "$$", "ARGUMENTS", "@"]
)
_PLAIN = st.text(alphabet="abc xyz019=[]().,:\n", min_size=1, max_size=6)
texts = (
    st.lists(_FRAGMENTS | _PLAIN, min_size=1, max_size=12).map("".join).map(str.strip).filter(bool)
)
"""Instructions full of placeholders, glued to digits and text (``$1`` then ``0`` is ``$10``)."""

_ARGUMENT = st.from_regex(r"[a-z0-9]{1,3}", fullmatch=True) | st.sampled_from(
    ["$1", "$@", "$ARGUMENTS", "$10"]
)
arguments = (
    st.none()
    | st.lists(_ARGUMENT, max_size=13).map(" ".join)
    | st.sampled_from(["", "  two  spaces  "])
)
"""``None`` (no arguments), or up to 13 of them; some bring placeholders of their own."""


def test_the_oracle_reads_placeholders_whole() -> None:
    args = " ".join(f"a{n}" for n in range(1, 13))
    assert expected_substitution("$1 $10 $12 $1x $13 $0", args) == "a1 a10 a12 a1x $13 $0"
    assert expected_substitution("[$@] [$ARGUMENTS]", "x  y") == "[x  y] [x  y]"
    assert expected_substitution("$1 $2", "$2 b") == "$2 b"
    assert expected_substitution("no placeholders", None) == "no placeholders"


@budget(15)
@given(cases=st.lists(st.tuples(texts, arguments), min_size=1, max_size=4))
def test_load_skill_substitutes_like_the_oracle(cases: list[tuple[str, str | None]]) -> None:
    names = [f"skill-{index}" for index in range(len(cases))]
    with temporary_world() as world:
        for name, (text, _) in zip(names, cases, strict=True):
            world.skill(name).instructions = text
        with opened(world) as system:
            loaded = [
                system.load_skill(name, args) for name, (_, args) in zip(names, cases, strict=True)
            ]
    for name, (text, args), got in zip(names, cases, loaded, strict=True):
        assert got == f"# Skill: {name}\n\n{expected_substitution(text, args)}\n"
