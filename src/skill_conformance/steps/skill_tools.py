"""Steps of the skill-tools capability: what load_skill and list_skills give back."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from pytest_bdd import given, then, when

from skill_conformance.port import Ability, ErrorKind, SkillListing, SkillSystemError
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.descriptors import open_descriptors
from skill_conformance.runtime.memory import GrowthBound, PeakGrowth
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import Mismatch, expect


@given(step("the skill `{skill:v}` has the reference file `{path:v}` containing `{text:v}`"))
@given(step("a skill `{skill:v}` with the file `{path:v}` containing `{text:v}`"))
def given_skill_file(conformance: ScenarioContext, skill: str, path: str, text: str) -> None:
    conformance.world.skill(skill).files[path] = text


@given(step("the skill `{skill:v}` has the reference `{path:v}` linking to `{target:v}`"))
def given_skill_link(conformance: ScenarioContext, skill: str, path: str, target: str) -> None:
    conformance.world.skill(skill).links[path] = target


@given(
    step(
        "the skill `{skill:v}` has its `references` folder linked to a folder outside the skills"
        " directory holding `{name:v}` containing `{text:v}`"
    )
)
def given_linked_references(conformance: ScenarioContext, skill: str, name: str, text: str) -> None:
    conformance.world.linked_references(skill, {name: text})


@given(step("the skill `{skill:v}` has the reference `{path:v}` that is a named pipe"))
def given_skill_pipe(conformance: ScenarioContext, skill: str, path: str) -> None:
    conformance.world.pipe_file(skill, path)


@given(
    step(
        "the skill `{skill:v}` has the reference `{path:v}` linking by absolute path"
        " to its file `{target:v}`"
    )
)
def given_skill_absolute_link(
    conformance: ScenarioContext, skill: str, path: str, target: str
) -> None:
    world = conformance.world
    world.skill(skill).links[path] = str(world.skills_path / skill / target)


@given("the skills directory is reached through a symbolic link")
def given_skills_dir_linked(conformance: ScenarioContext) -> None:
    conformance.world.skills_dir_linked = True


@given(step("a file `{name:v}` containing `{text:v}` next to the skills directory"))
def given_outside_file(conformance: ScenarioContext, name: str, text: str) -> None:
    conformance.world.outside_file(name, text)


@when(step("`load_skill` is called with `{skill:v}`"))
@when(step("`load_skill` is called with `{skill:v}` and the arguments `{arguments:v}`"))
def when_load_skill(conformance: ScenarioContext, skill: str, arguments: str | None = None) -> None:
    conformance.loaded = skill
    conformance.attempt(lambda: conformance.start().load_skill(skill, arguments))


@when(
    step(
        "`load_skill` is called with `{skill:v}` and the arguments `{first:v}` and `{second:v}`"
        " separated by a tab"
    )
)
def when_load_skill_tab(conformance: ScenarioContext, skill: str, first: str, second: str) -> None:
    when_load_skill(conformance, skill, f"{first}\t{second}")


@when(
    step(
        "`load_skill` is called {times:n} times with each of {uris:vs},"
        " which must finish without blocking"
    )
)
def when_load_skill_repeatedly(conformance: ScenarioContext, times: int, uris: list[str]) -> None:
    system = conformance.start()

    def read(uri: str) -> str:
        return conformance.bounded(lambda: system.load_skill(uri))

    def each() -> None:
        for uri in uris:
            conformance.attempt(functools.partial(read, uri))

    each()  # what a first call opens for good (a cache, a connection) is not a leak
    before = open_descriptors()
    for _ in range(times):
        each()
    conformance.descriptors = (before, open_descriptors())


@then("the process holds no more open file descriptors than before those calls")
def then_no_descriptor_leaked(conformance: ScenarioContext) -> None:
    assert conformance.descriptors is not None, "no calls were counted; the step is misplaced"
    before, after = conformance.descriptors
    # Seen in this process, where in-process adapters run the implementation.
    expect(
        after <= before,
        "the refused reads left file descriptors open",
        expected=f"at most {before} open file descriptors, as before the calls",
        observed=f"{after} open after them",
    )


@when(step("`load_skill` is called with `{skill:v}`, which must finish without blocking"))
def when_load_skill_bounded(conformance: ScenarioContext, skill: str) -> None:
    conformance.loaded = skill
    conformance.attempt(lambda: conformance.bounded(lambda: conformance.start().load_skill(skill)))


@when(step("the file `{path:v}` of the skill `{skill:v}` is read"))
def when_file_read(conformance: ScenarioContext, path: str, skill: str) -> None:
    conformance.loaded = None
    conformance.attempt(lambda: conformance.start().read_skill_file(skill, path))


@when(
    step("the file `{path:v}` of the skill `{skill:v}` is read, which must finish without blocking")
)
def when_file_read_bounded(conformance: ScenarioContext, path: str, skill: str) -> None:
    conformance.loaded = None
    conformance.attempt(
        lambda: conformance.bounded(lambda: conformance.start().read_skill_file(skill, path))
    )


@when(
    step(
        "the file `{path:v}` of the skill `{skill:v}` is read, which must finish without blocking"
        " or the process's memory growing by more than {limit:n} MiB"
    )
)
def when_file_read_bounded_memory(
    conformance: ScenarioContext, path: str, skill: str, limit: int
) -> None:
    conformance.start()  # start-up is not what is measured here
    with _memory_bound(limit, "reading the file took the memory of the process"):
        when_file_read_bounded(conformance, path, skill)


@when(
    step(
        "`load_skill` is called with `{skill:v}`, which must finish without blocking"
        " or the process's memory growing by more than {limit:n} MiB"
    )
)
def when_load_skill_bounded_memory(conformance: ScenarioContext, skill: str, limit: int) -> None:
    conformance.start()
    with _memory_bound(limit, "loading the skill took the memory of the process"):
        when_load_skill_bounded(conformance, skill)


@contextmanager
def _memory_bound(limit: int, what: str) -> Iterator[None]:
    """Fail when the block grew this process and those below it by more than ``limit`` MiB.

    An implementation in-process or in a child alike (:class:`PeakGrowth`). The finding replaces
    whatever the block raised: a ``MemoryError`` under a cap is the growth's consequence, not a
    crash. This process may grow by half as much again as the limit, no more
    (:class:`GrowthBound`): one expanding without bound meets MemoryError there instead of
    growing for minutes, as the real codebase's loader does. Half as much again, so that its
    resident size has passed the limit when the allocation that fails grows a buffer by less
    than half its size, as CPython's do (by a quarter); a buffer doubled at each step could fail
    at the limit itself, unseen. A MemoryError that reaches Python code is seen too.
    """
    bound_mib = limit * 3 // 2
    growth, bound = PeakGrowth(), GrowthBound(bound_mib)
    try:
        with growth, bound:
            yield
    finally:
        if growth.mib is not None:
            expect(
                growth.mib <= limit,
                what,
                expected=f"its resident size to grow by at most {limit} MiB",
                observed=f"it grew by {growth.mib:.0f} MiB at its peak",
            )
        expect(
            bound.memory_errors == 0,
            f"{what}: it ran out of the memory the step allows",
            expected=f"its resident size to grow by at most {limit} MiB",
            observed=f"MemoryError raised {bound.memory_errors} times, with the process bounded "
            f"to {bound_mib} MiB more than before the call",
        )


_BY_URI_OR_READER = "by URI or by the skill's file reader"


@when(step("the reference `{path:v}` of the skill `{skill:v}` is read " + _BY_URI_OR_READER))
@when(
    step(
        "the reference `{path:v}` followed by a NUL byte and `{suffix:v}` of the skill"
        " `{skill:v}` is read " + _BY_URI_OR_READER
    )
)
def when_reference_read(
    conformance: ScenarioContext, path: str, skill: str, suffix: str = ""
) -> None:
    """Read one of a skill's files through ``skill://`` where offered, else its file reader.

    The scenario needs ``skill-uri/read-file``: the obligation is every reader's, so it is
    checked through whichever the implementation offers. ``suffix`` follows a NUL byte, written
    ``%00`` in the URI and as the byte itself in a path.
    """
    if Ability.SKILL_URI not in conformance.implementation.unsupported:
        uri = f"skill://{skill}/{path}" + (f"%00{suffix}" if suffix else "")
        when_load_skill(conformance, uri)
    else:
        when_file_read(conformance, path + (f"\x00{suffix}" if suffix else ""), skill)


@then(
    step(
        "the reference `{path:v}` of the skill `{skill:v}` holds `{text:v}`, in the loaded text"
        " or through the skill's file reader"
    )
)
def then_reference_holds(conformance: ScenarioContext, path: str, skill: str, text: str) -> None:
    """A reference still served beside the skill: inline where the implementation inlines them.

    The scenario needs ``inline-references/read-file``. Read through the file reader, the read
    is not the scenario's outcome: what later steps judge stays the load's.
    """
    if Ability.INLINE_REFERENCES not in conformance.implementation.unsupported:
        conformance.uses(Ability.INLINE_REFERENCES, f"the loaded text must hold {text!r}")
        then_text_contains(conformance, text)
        return
    outcome = conformance.last_outcome()
    try:
        read = conformance.bounded(lambda: conformance.start().read_skill_file(skill, path))
    except SkillSystemError as error:
        raise Mismatch(
            f"the skill's file reader refused {path!r}",
            expected=f"the text of {path!r}, holding {text!r}",
            observed=str(error),
        ) from None
    finally:
        conformance.outcome = outcome
    expect(
        text in read,
        f"{text!r} is not in what the reader gave for {path!r}",
        expected=f"a text containing {text!r}",
        observed=repr(read),
    )


@when(step("the file of the skill `{skill:v}` at the absolute path of `{name:v}` is read"))
def when_file_read_absolute(conformance: ScenarioContext, skill: str, name: str) -> None:
    path = str((conformance.world.root / name).resolve())
    when_file_read(conformance, path, skill)


@then(step("the text contains `{text:v}`"))
def then_text_contains(conformance: ScenarioContext, text: str) -> None:
    value = conformance.expect_value()
    loaded = conformance.loaded
    if loaded and not loaded.startswith("skill://") and _only_in_files(conformance, text):
        conformance.uses(Ability.INLINE_REFERENCES, f"a bare-name load must hold {text!r}")
    expect(
        isinstance(value, str) and text in value,
        f"{text!r} is not in the text",
        expected=f"a text containing {text!r}",
        observed=repr(value),
    )


@then(step("the text does not contain `{text:v}`"))
def then_text_lacks(conformance: ScenarioContext, text: str) -> None:
    value = conformance.expect_value()
    expect(
        isinstance(value, str) and text not in value,
        f"{text!r} is in the text",
        expected=f"a text without {text!r}",
        observed=repr(value),
    )


@given(step("the skill `{skill:v}` has the sparse reference file `{path:v}` of {size:n} MiB"))
def given_sparse_reference(conformance: ScenarioContext, skill: str, path: str, size: int) -> None:
    conformance.world.sparse_file(skill, path, size * 1024 * 1024)


@when(
    step(
        "the reference `{path:v}` of skill `{skill:v}` is replaced by a link to `{name:v}`"
        " next to the skills directory"
    )
)
def when_reference_swapped(conformance: ScenarioContext, path: str, skill: str, name: str) -> None:
    conformance.world.replace_by_outside_link(skill, path, name)


@when(
    step(
        "`load_skill` is called with the URI of skill `{skill:v}`"
        " and the absolute path of `{name:v}`"
    )
)
def when_load_absolute(conformance: ScenarioContext, skill: str, name: str) -> None:
    uri = f"skill://{skill}/{(conformance.world.root / name).as_posix()}"
    conformance.attempt(lambda: conformance.start().load_skill(uri))


@when(step("`load_skill` is called with `{prefix:v}` followed by a name of {length:n} characters"))
def when_load_long_name(conformance: ScenarioContext, prefix: str, length: int) -> None:
    uri = prefix + "a" * (length - 3) + ".md"
    conformance.attempt(lambda: conformance.start().load_skill(uri))


@when(
    step(
        "the file `{prefix:v}` followed by a name of {length:n} characters of the skill"
        " `{skill:v}` is read"
    )
)
def when_file_read_long_name(
    conformance: ScenarioContext, prefix: str, length: int, skill: str
) -> None:
    when_file_read(conformance, prefix + "a" * (length - 3) + ".md", skill)


@when(
    step(
        "the files {paths:vs} of the skill `{skill:v}` are each read {times:n} times,"
        " which must finish without blocking"
    )
)
def when_files_read_repeatedly(
    conformance: ScenarioContext, paths: list[str], skill: str, times: int
) -> None:
    system = conformance.start()

    def read(path: str) -> str:
        return conformance.bounded(lambda: system.read_skill_file(skill, path))

    def each() -> None:
        for path in paths:
            conformance.attempt(functools.partial(read, path))

    each()  # what a first call opens for good (a cache, a connection) is not a leak
    before = open_descriptors()
    for _ in range(times):
        each()
    conformance.descriptors = (before, open_descriptors())


@then("the agent's run goes on after the call")
def then_run_goes_on(conformance: ScenarioContext) -> None:
    """A refusal is a result (or an error of the tool) the agent continues from, not its end."""
    error = conformance.last_outcome().error
    expect(
        error is None or error.kind != ErrorKind.RUN_ENDED,
        "the refusal ended the agent's run",
        expected="a result or a tool error the model can act on",
        observed=f"{error}",
    )


@then(step("what came back holds at most {size:n} MiB"))
def then_bounded_text(conformance: ScenarioContext, size: int) -> None:
    outcome = conformance.last_outcome()
    length = sum(len(text) for text in outcome.texts())
    expect(
        length <= size * 1024 * 1024,
        "the file was read whole",
        expected=f"at most {size} MiB back",
        observed=f"{length:,} characters back",
    )


def _only_in_files(conformance: ScenarioContext, text: str) -> bool:
    """Whether ``text`` is written in skills' files and in no skill's instructions."""
    drafts = conformance.world.skills.values()
    in_files = any(text in content for draft in drafts for content in draft.files.values())
    return in_files and not any(text in draft.body() for draft in drafts)


@when("`list_skills` is called")
def when_list_skills(conformance: ScenarioContext) -> None:
    conformance.listing = list(conformance.start().list_skills())


@when("`list_skills` is called, which must finish without blocking")
def when_list_skills_bounded(conformance: ScenarioContext) -> None:
    conformance.listing = conformance.bounded(lambda: list(conformance.start().list_skills()))


@when(
    step(
        "`list_skills` is called, which must finish without blocking or the process's memory"
        " growing by more than {limit:n} MiB"
    )
)
def when_list_skills_bounded_memory(conformance: ScenarioContext, limit: int) -> None:
    with _memory_bound(limit, "loading the skills took the memory of the process"):
        when_list_skills_bounded(conformance)


@then(step("the listed skill names include {names:vs}"))
def then_listed_include(conformance: ScenarioContext, names: list[str]) -> None:
    listed = sorted(entry.name for entry in _listing(conformance))
    missing = sorted(set(names) - set(listed))
    expect(
        not missing,
        f"list_skills does not list {missing}",
        expected=f"at least {sorted(names)}",
        observed=f"list_skills lists {listed}",
    )


def _listing(conformance: ScenarioContext) -> list[SkillListing]:
    assert conformance.listing is not None, "list_skills was not called"
    return conformance.listing


def _entry(conformance: ScenarioContext, name: str) -> SkillListing:
    entries = [entry for entry in _listing(conformance) if entry.name == name]
    expect(
        len(entries) == 1,
        f"list_skills has {len(entries)} entries named {name!r}",
        expected=f"one entry named {name!r}",
        observed=f"{_listing(conformance)}",
    )
    return entries[0]


@then(step("the listed skill names are exactly {names:vs}"))
def then_listed_exactly(conformance: ScenarioContext, names: list[str]) -> None:
    listed = sorted(entry.name for entry in _listing(conformance))
    expect(
        listed == sorted(names),
        "list_skills does not list exactly the skills the scenario names",
        expected=f"exactly {sorted(names)}",
        observed=f"list_skills lists {listed}",
    )


@then("no skill is listed")
def then_none_listed(conformance: ScenarioContext) -> None:
    listed = sorted(entry.name for entry in _listing(conformance))
    expect(not listed, "list_skills lists skills", expected="none", observed=f"{listed}")


@then("every listed skill has a name, a description and a source")
def then_listed_complete(conformance: ScenarioContext) -> None:
    conformance.uses(Ability.LISTING_SOURCE, "it checks each listed skill's source")
    incomplete = [e for e in _listing(conformance) if not (e.name and e.description and e.source)]
    expect(
        not incomplete,
        "some entries lack a name, a description or a source",
        expected="every entry with a name, a description and a source",
        observed=f"{incomplete}",
    )


@then(step("the listed skill `{name:v}` has the source `{source:v}`"))
def then_listed_source(conformance: ScenarioContext, name: str, source: str) -> None:
    conformance.uses(Ability.LISTING_SOURCE, "it checks a listed skill's source")
    entry = _entry(conformance, name)
    expect(
        entry.source == source,
        f"{name!r} has another source",
        expected=repr(source),
        observed=repr(entry.source),
    )


@then(step("the listed skill `{name:v}` has the URI `{uri:v}`"))
def then_listed_uri(conformance: ScenarioContext, name: str, uri: str) -> None:
    conformance.uses(Ability.LISTING_SOURCE, "it checks a listed skill's URI")
    entry = _entry(conformance, name)
    expect(
        entry.uri == uri, f"{name!r} has another URI", expected=repr(uri), observed=repr(entry.uri)
    )
