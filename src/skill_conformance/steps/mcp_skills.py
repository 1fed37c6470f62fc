"""Steps of the mcp-skills capability: the server profile, the suite as MCP client.

Each scenario writes its skills into a fresh folder, starts the server under test on it (the
entry ``--server`` gives) when it first asks something, and judges the answers against the files
it wrote.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pytest_bdd import given, then, when

from skill_conformance.port import Unsupported
from skill_conformance.runtime.served import (
    EXTENSION,
    HANDSHAKE_ERA,
    RpcFailure,
    ServedTree,
    ServerEntry,
    SkillsClient,
    digest,
)
from skill_conformance.runtime.session import run_of
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect

SECRET_BINARY = bytes(range(256)) + b"\xff\xfe\x00\xc3"


class ServedScenario:
    """One scenario of the server profile: what it wrote, its connection, what it observed."""

    def __init__(
        self,
        entry: ServerEntry,
        tree: ServedTree,
        log: Path,
        timeout: float,
        era: str = HANDSHAKE_ERA,
    ) -> None:
        self.entry = entry
        self.era = era
        self.tree = tree
        self._log = log
        self._timeout = timeout
        self._client: SkillsClient | None = None
        self.listing: list[dict[str, Any]] | None = None
        self.current: dict[str, Any] | None = None
        self.file_read: bytes | None = None

    @property
    def client(self) -> SkillsClient:
        """The connection, opened at the first question; not applicable without the extension."""
        if self._client is None:
            if self.era in self.entry.unsupported:
                raise Unsupported(f"protocol {self.era}: {self.entry.unsupported[self.era]}")
            self._client = SkillsClient(self.entry, self.tree, self._log, self._timeout, self.era)
            self._client.open()
        if self._client.refusal:
            raise Unsupported(f"protocol {self.era} not offered: {self._client.refusal}")
        return self._client

    def declared(self) -> dict[str, Any]:
        """The extension's settings; not applicable when the server does not declare it."""
        settings = self.client.settings
        if not isinstance(settings, dict):
            raise Unsupported(
                f"the server does not declare {EXTENSION} on protocol {self.client.protocol}"
            )
        return settings

    def need(self, ability: str) -> None:
        """Not applicable when the entry says the server lacks ``ability``."""
        if ability in self.entry.unsupported:
            raise Unsupported(f"{ability}: {self.entry.unsupported[ability]}")

    def close(self) -> None:
        """Stop the server, if one was started."""
        if self._client is not None:
            self._client.close()

    def call(self, method: str, **params: Any) -> dict[str, Any] | RpcFailure:
        """``method`` with ``params``, once the server is known to declare the extension."""
        self.declared()
        return self.client.request(method, params)

    def list_all(self) -> list[dict[str, Any]]:
        """Every entry of ``skills/list``, its pages followed (at most 100)."""
        entries: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(100):
            answer = self.call("skills/list", **({"cursor": cursor} if cursor else {}))
            expect(
                isinstance(answer, dict) and isinstance(answer.get("skills"), list),
                "skills/list does not answer with a list of skills",
                expected="a result with a 'skills' list",
                observed=_show(answer),
            )
            assert isinstance(answer, dict)
            entries += [e for e in answer["skills"] if isinstance(e, dict)]
            cursor = answer.get("nextCursor")
            if not cursor:
                return entries
        raise AssertionError("unreachable")  # pragma: no cover

    def get(self, uri: str) -> dict[str, Any] | RpcFailure:
        """``skills/get`` of ``uri``: the entry, or the error."""
        answer = self.call("skills/get", uri=uri)
        if isinstance(answer, RpcFailure):
            return answer
        return answer

    def entry_of(self, name: str) -> dict[str, Any]:
        """The entry of the written skill ``name``: the listing's, else ``skills/get``'s."""
        path = self.tree.skill_path(name)
        if self.current is not None and _name(self.current) == name:
            return self.current
        for entry in self.listing or []:
            if _name(entry) == name:
                return entry
        uri = f"skill://{path}/SKILL.md"
        answer = self.get(uri)
        expect(
            isinstance(answer, dict) and isinstance(answer.get("skill"), dict),
            f"the server gives no entry for {name!r}",
            expected=f"{name!r} in skills/list, or skills/get of {uri} answering",
            observed=f"listed {[_name(e) for e in self.listing or []]}; "
            f"skills/get: {_show(answer)}",
        )
        assert isinstance(answer, dict)
        found: dict[str, Any] = answer["skill"]
        return found

    def read(self, uri: str) -> bytes | RpcFailure:
        """``resources/read`` of ``uri``: the bytes of its first content, or the error."""
        answer = self.call("resources/read", uri=uri)
        if isinstance(answer, RpcFailure):
            return answer
        contents = answer.get("contents")
        expect(
            isinstance(contents, list) and bool(contents) and isinstance(contents[0], dict),
            f"resources/read of {uri} gives no contents",
            expected="a result with one content",
            observed=_show(answer),
        )
        first = contents[0]  # type: ignore[index]
        if "blob" in first:
            return base64.b64decode(first["blob"])
        return str(first.get("text", "")).encode()


def _name(entry: dict[str, Any]) -> str | None:
    frontmatter = entry.get("frontmatter")
    return frontmatter.get("name") if isinstance(frontmatter, dict) else None


def _get_entry(served: ServedScenario, uri: str) -> dict[str, Any]:
    """``skills/get`` of ``uri``: its result, which must carry a ``skill`` entry."""
    answer = served.get(uri)
    expect(
        isinstance(answer, dict) and isinstance(answer.get("skill"), dict),
        f"skills/get of {uri} gives no entry",
        expected="a result with a 'skill' entry",
        observed=_show(answer),
    )
    assert isinstance(answer, dict)
    return answer


def _show(answer: object, limit: int = 300) -> str:
    text = (
        f"error {answer.code}: {answer.message}" if isinstance(answer, RpcFailure) else repr(answer)
    )
    return text if len(text) <= limit else text[:limit] + "..."


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServedScenario]:
    """The scenario's server under test; not applicable in a run that tests no server."""
    run = run_of(request.config)
    entry = run.options.server
    if entry is None:
        raise Unsupported("the thing under test is not an MCP server (--server)")
    root = tmp_path / "served"
    root.mkdir()
    scenario = ServedScenario(
        entry,
        ServedTree(root, tmp_path),
        tmp_path / "server-stderr.log",
        run.options.timeout,
        run.options.era,
    )
    yield scenario
    scenario.close()


# -- Given -----------------------------------------------------------------------------------


@given(step("the served skill `{name:v}`"))
def given_skill(served: ServedScenario, name: str) -> None:
    served.tree.add_skill(name)


@given(step("the served skill `{name:v}` with the file `{relative:v}` reading `{text:v}`"))
def given_skill_with_file(served: ServedScenario, name: str, relative: str, text: str) -> None:
    served.tree.add_skill(name)
    served.tree.add_file(name, relative, text.encode())


@given(step("the served skill `{name:v}` below the folders `{prefix:v}`"))
def given_prefixed_skill(served: ServedScenario, name: str, prefix: str) -> None:
    served.need("prefixed-skills")
    served.tree.add_skill(f"{prefix}/{name}")


@given(step("the served skill `{name:v}` whose frontmatter also has `{first:v}` and `{second:v}`"))
def given_skill_frontmatter(served: ServedScenario, name: str, first: str, second: str) -> None:
    served.tree.add_skill(name, f"{first}\n{second}\n")


@given(
    step(
        "the served skill `{name:v}` whose SKILL.md starts with a byte order mark and ends its "
        "lines with CRLF"
    )
)
def given_skill_bom_crlf(served: ServedScenario, name: str) -> None:
    served.tree.add_skill(name, bom=True, crlf=True)


@given(step("the skill `{skill:v}` has the file `{relative:v}` reading `{text:v}`"))
def given_file(served: ServedScenario, skill: str, relative: str, text: str) -> None:
    served.tree.add_file(served.tree.skill_path(skill), relative, text.encode())


@given(step("the skill `{skill:v}` has the binary file `{relative:v}`"))
def given_binary_file(served: ServedScenario, skill: str, relative: str) -> None:
    served.tree.add_file(served.tree.skill_path(skill), relative, SECRET_BINARY)


@given(step("the skill `{skill:v}` has the file `{relative:v}` ending its lines with CRLF"))
def given_crlf_file(served: ServedScenario, skill: str, relative: str) -> None:
    served.tree.add_file(served.tree.skill_path(skill), relative, b"one\r\ntwo\r\n")


@given(step("the file `{relative:v}` reading `{text:v}` outside the served tree"))
def given_outside_file(served: ServedScenario, relative: str, text: str) -> None:
    served.tree.write_outside(relative, text.encode())


@given(step("the skill `{skill:v}` has the file `{relative:v}` as a symbolic link to `{source:v}`"))
def given_link_out(served: ServedScenario, skill: str, relative: str, source: str) -> None:
    served.tree.add_link_out(served.tree.skill_path(skill), relative, source)


@given(step("the skill `{skill:v}` has the file `{relative:v}` as a hard link to `{source:v}`"))
def given_hard_link(served: ServedScenario, skill: str, relative: str, source: str) -> None:
    served.tree.add_hard_link(served.tree.skill_path(skill), relative, source)


@given(step("the skill `{inner:v}` nested in the skill `{outer:v}`"))
def given_nested(served: ServedScenario, inner: str, outer: str) -> None:
    served.tree.add_skill(f"{served.tree.skill_path(outer)}/{inner}")


@given(step("the skill `{name:v}` written beside the served tree with the description `{text:v}`"))
def given_skill_outside(served: ServedScenario, name: str, text: str) -> None:
    body = f"---\nname: {name}\ndescription: {text}\n---\n\n{text}\n"
    served.tree.write_outside(f"{name}/SKILL.md", body.encode())


# -- When ------------------------------------------------------------------------------------


@when("the suite connects to the server")
def when_connects(served: ServedScenario) -> None:
    served.declared()


@when("the suite lists the server's skills")
def when_lists(served: ServedScenario) -> None:
    served.listing = served.list_all()


@when(step("the suite gets the skill at `{path:v}`"))
def when_gets(served: ServedScenario, path: str) -> None:
    served.need("nested-skills")
    uri = f"skill://{path}/SKILL.md"
    answer = _get_entry(served, uri)
    served.current = answer["skill"]


# -- Then: declaration -----------------------------------------------------------------------


@then("the server declares the skills extension with its settings as an object")
def then_declares_extension(served: ServedScenario) -> None:
    settings = served.client.settings
    expect(
        isinstance(settings, dict),
        f"the server does not declare {EXTENSION} with an object of settings",
        expected=f"capabilities.extensions[{EXTENSION!r}] an object",
        observed=f"on protocol {served.client.protocol}: capabilities "
        f"{_show(served.client.initialized.get('capabilities'))}",
    )


@then("the server declares the resources capability")
def then_declares_resources(served: ServedScenario) -> None:
    capabilities = served.client.initialized.get("capabilities", {})
    expect(
        isinstance(capabilities.get("resources"), dict),
        "the server declares the extension but not the resources capability",
        expected="capabilities.resources an object",
        observed=_show(capabilities),
    )


@then("the listing answers")
def then_listing_answers(served: ServedScenario) -> None:
    expect(served.listing is not None, "no listing", expected="a listing", observed="none")


@then(step("`skills/get` of `{uri:v}` answers"))
def then_get_answers(served: ServedScenario, uri: str) -> None:
    answer = served.get(uri)
    expect(
        isinstance(answer, dict) and isinstance(answer.get("skill"), dict),
        f"skills/get of {uri} does not answer with an entry",
        expected="a result with a 'skill' entry",
        observed=_show(answer),
    )


# -- Then: the listing and entries -----------------------------------------------------------


@then(step("the listed skills are exactly {names:vs}"))
def then_listed_exactly(served: ServedScenario, names: list[str]) -> None:
    listed = [_name(entry) for entry in served.listing or []]
    extra = [name for name in listed if name not in names]
    expect(
        not extra and len(listed) == len(set(listed)),
        f"the listing names skills that were not written, or one twice: {extra or listed}",
        expected=f"only {names}, each once",
        observed=f"listed {listed}",
    )
    for name in names:
        if name not in listed:  # a partial listing is allowed: the skill must still be served
            served.entry_of(name)


@then("each listed skill's URI ends in `/<name>/SKILL.md` for its frontmatter name")
def then_uri_ends_in_name(served: ServedScenario) -> None:
    wrong = [
        (entry.get("uri"), _name(entry))
        for entry in served.listing or []
        if not str(entry.get("uri", "")).endswith(f"/{_name(entry)}/SKILL.md")
    ]
    expect(
        not wrong,
        "a listed skill's URI does not end in its name and /SKILL.md",
        expected="uri ending in /<frontmatter name>/SKILL.md",
        observed=f"(uri, name): {wrong}",
    )


def _files(served: ServedScenario, name: str) -> list[dict[str, Any]]:
    entry = served.entry_of(name)
    resources = entry.get("resources")
    expect(
        isinstance(resources, list),
        f"the entry of {name!r} has no list of files",
        expected="resources: a list of {uri, digest, size}",
        observed=f"resources: {_show(resources)}",
    )
    assert isinstance(resources, list)
    return [r for r in resources if isinstance(r, dict)]


@then(step("the entry of `{name:v}` lists a file whose URI ends in `{suffix:v}`"))
def then_lists_file_ending(served: ServedScenario, name: str, suffix: str) -> None:
    uris = [str(r.get("uri")) for r in _files(served, name)]
    found = [uri for uri in uris if uri.endswith(suffix)]
    expect(
        bool(found),
        f"the entry of {name!r} lists no file ending in {suffix}",
        expected=f"a file ending in {suffix}",
        observed=f"files {uris}",
    )
    data = served.read(found[0])
    served.file_read = data if isinstance(data, bytes) else None
    expect(
        isinstance(data, bytes),
        f"reading {found[0]} fails",
        expected="its content",
        observed=_show(data),
    )


@then(step("reading that file gives `{text:v}`"))
def then_that_file_reads(served: ServedScenario, text: str) -> None:
    expect(
        served.file_read == text.encode(),
        "the file reads back other than written",
        expected=repr(text),
        observed=repr(served.file_read),
    )


@then(step("the entry of `{name:v}` has a URI ending in `{suffix:v}`"))
def then_entry_uri(served: ServedScenario, name: str, suffix: str) -> None:
    uri = str(served.entry_of(name).get("uri"))
    expect(
        uri.endswith(suffix),
        f"the entry of {name!r} is not addressed by its path",
        expected=f"uri ending in {suffix}",
        observed=f"uri {uri}",
    )


@then(step("the entry of `{name:v}` has exactly the frontmatter written"))
def then_frontmatter_verbatim(served: ServedScenario, name: str) -> None:
    written = yaml.safe_load(served.tree.frontmatter[served.tree.skill_path(name)])
    observed = served.entry_of(name).get("frontmatter")
    expect(
        observed == written,
        f"the entry of {name!r} does not carry its frontmatter verbatim",
        expected=repr(written),
        observed=repr(observed),
    )


@then(
    step(
        "the entry of `{name:v}` lists exactly the files written, each once, with their "
        "digests and sizes"
    )
)
def then_files_exactly(served: ServedScenario, name: str) -> None:
    path = served.tree.skill_path(name)
    entry = served.entry_of(name)
    root = str(entry.get("uri", ""))[: -len("SKILL.md")]
    written = served.tree.skills[path]
    listed: dict[str, tuple[object, object]] = {}
    problems: list[str] = []
    for resource in _files(served, name):
        uri = str(resource.get("uri"))
        if not uri.startswith(root):
            problems.append(f"{uri} is not below {root}")
            continue
        relative = uri[len(root) :]
        if relative in listed:
            problems.append(f"{relative} listed twice")
        listed[relative] = (resource.get("digest"), resource.get("size"))
    for relative, data in sorted(written.items()):
        if relative not in listed:
            problems.append(f"{relative} missing")
            continue
        got_digest, got_size = listed[relative]
        if got_digest != digest(data):
            problems.append(f"{relative}: digest {got_digest}, the bytes give {digest(data)}")
        if got_size != len(data):
            problems.append(f"{relative}: size {got_size}, the bytes are {len(data)}")
    problems += [
        f"{relative} listed but not a file of the skill"
        for relative in listed
        if relative not in written
    ]
    expect(
        not problems,
        f"the entry of {name!r} does not list its files as written",
        expected=f"exactly {sorted(written)}, each with its digest and size",
        observed="; ".join(problems),
    )


@then(
    step("the entry of `{name:v}`, if the server serves the skill, lists no file named `{file:v}`")
)
def then_no_file(served: ServedScenario, name: str, file: str) -> None:
    listed = any(_name(entry) == name for entry in served.listing or [])
    if not listed and isinstance(
        served.get(f"skill://{served.tree.skill_path(name)}/SKILL.md"), RpcFailure
    ):
        return  # a skill holding a link out may be refused whole
    uris = [str(r.get("uri")) for r in _files(served, name)]
    expect(
        not any(uri.endswith("/" + file) for uri in uris),
        f"the entry of {name!r} lists {file}, a link out of the served tree",
        expected=f"no {file}",
        observed=f"files {uris}",
    )


@then(step("no answer of the server contains `{secret:v}`"))
def then_no_secret(served: ServedScenario, secret: str) -> None:
    for path, links in served.tree.links.items():
        entry_uri = f"skill://{path}/"
        for relative in links:
            served.read(entry_uri + relative)
    leaking = [answer for answer in served.client.answers if secret in answer]
    expect(
        not leaking,
        f"an answer of the server holds {secret!r}, from a file outside the served tree",
        expected=f"no answer holding {secret!r}",
        observed=_show(leaking[0] if leaking else ""),
    )


@then(step("the entry's frontmatter name is `{name:v}`"))
def then_current_name(served: ServedScenario, name: str) -> None:
    observed = _name(served.current or {})
    expect(
        observed == name, "the entry is of another skill", expected=name, observed=repr(observed)
    )


@then("`skills/get` of each written skill gives the entry the listing gives, without a cursor")
def then_get_same(served: ServedScenario) -> None:
    listed = {_name(entry): entry for entry in served.listing or []}
    for path in served.tree.skills:
        name = path.rsplit("/", 1)[-1]
        uri = str(listed[name]["uri"]) if name in listed else f"skill://{path}/SKILL.md"
        answer = _get_entry(served, uri)
        expect(
            "nextCursor" not in answer,
            f"skills/get of {uri} carries a cursor",
            expected="no nextCursor",
            observed=f"nextCursor {answer.get('nextCursor')!r}",
        )
        if name in listed:
            expect(
                answer["skill"] == listed[name],
                f"skills/get of {uri} gives another entry than the listing",
                expected=_show(listed[name]),
                observed=_show(answer["skill"]),
            )


@then(step("`skills/get` of `{uri:v}` fails with the error -{code:n}"))
def then_get_fails(served: ServedScenario, uri: str, code: int) -> None:
    answer = served.get(uri)
    expect(
        isinstance(answer, RpcFailure) and answer.code == -code,
        f"skills/get of {uri} is not refused with -{code}",
        expected=f"error -{code}",
        observed=_show(answer),
    )


# -- Then: reads -----------------------------------------------------------------------------


@then("every listed file reads back with the bytes written")
def then_reads_back(served: ServedScenario) -> None:
    problems: list[str] = []
    for path in served.tree.skills:
        for resource in _files(served, path.rsplit("/", 1)[-1]):
            uri = str(resource.get("uri"))
            data = served.read(uri)
            if isinstance(data, RpcFailure):
                problems.append(f"{uri}: {_show(data)}")
            elif digest(data) != resource.get("digest") or len(data) != resource.get("size"):
                problems.append(
                    f"{uri}: {len(data)} bytes, {digest(data)[:15]}..., listed "
                    f"{resource.get('size')} bytes, {str(resource.get('digest'))[:15]}..."
                )
    expect(
        not problems,
        "a listed file does not read back as its digest and size say",
        expected="each file's bytes as listed",
        observed="; ".join(problems),
    )


@then(step("reading `{uri:v}` fails with the error -{code:n}"))
def then_read_fails(served: ServedScenario, uri: str, code: int) -> None:
    answer = served.read(uri)
    expect(
        isinstance(answer, RpcFailure) and answer.code == -code,
        f"resources/read of {uri} is not refused with -{code}",
        expected=f"error -{code}",
        observed=_show(answer),
    )


# -- Then: directories -----------------------------------------------------------------------


def _directory(served: ServedScenario, skill: str, relative: str) -> dict[str, Any] | RpcFailure:
    settings = served.declared()
    if settings.get("directoryRead") is not True:
        raise Unsupported(f"the server's settings for {EXTENSION} are {settings}: no directoryRead")
    root = str(served.entry_of(skill).get("uri", ""))[: -len("SKILL.md")]
    return served.call("resources/directory/read", uri=root + relative)


@then(
    step(
        "the directory `{relative:v}` of `{skill:v}` lists exactly `{file:v}` "
        "and the folder `{folder:v}`"
    )
)
def then_directory_with_folder(
    served: ServedScenario, relative: str, skill: str, file: str, folder: str
) -> None:
    _directory_lists(served, relative, skill, {file: False, folder: True})


@then(step("the directory `{relative:v}` of `{skill:v}` lists exactly `{file:v}`"))
def then_directory(served: ServedScenario, relative: str, skill: str, file: str) -> None:
    _directory_lists(served, relative, skill, {file: False})


def _directory_lists(
    served: ServedScenario, relative: str, skill: str, wanted: dict[str, bool]
) -> None:
    answer = _directory(served, skill, relative)
    children: dict[str, bool] = {}
    if isinstance(answer, dict):
        for resource in answer.get("resources", []):
            if isinstance(resource, dict):
                name = str(resource.get("uri", "")).rstrip("/").rsplit("/", 1)[-1]
                children[name] = resource.get("mimeType") == "inode/directory"
    expect(
        children == wanted,
        f"the directory {relative} of {skill!r} does not list exactly its children",
        expected=", ".join(f"{n}{' (inode/directory)' if d else ''}" for n, d in wanted.items()),
        observed=_show(answer),
    )


@then(step("the directory read of `{relative:v}` of `{skill:v}` fails with the error -{code:n}"))
def then_directory_fails(served: ServedScenario, relative: str, skill: str, code: int) -> None:
    answer = _directory(served, skill, relative)
    expect(
        isinstance(answer, RpcFailure) and answer.code == -code,
        f"the directory read of {relative} of {skill!r} is not refused with -{code}",
        expected=f"error -{code}",
        observed=_show(answer),
    )
