"""Steps of the host profile (``@profile:mcp-host``): a skill system hosting MCP's Skills Extension.

The scenario's skills server is the suite's own (:mod:`skill_conformance.testing.skills_server`),
given to the implementation as an MCP child: its skills are real folders written here, below the
world's root, and its cues (a tampered file, a partial listing, a decoy resource) are options of
its command. It logs every request it receives, which the ``was asked`` steps read. The host is
judged through the port: what ``list_skills`` and ``load_skill`` give its model, the tools it is
offered, its problems.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, then

from skill_conformance.port import McpChild, ServerCommand, SkillSystemError, Unsupported
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.world import SkillDraft
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect

_SERVER = "skill_conformance.testing.skills_server"


def _folder(conformance: ScenarioContext, label: str) -> Path:
    return conformance.world.root / "served" / label


def _log(conformance: ScenarioContext, label: str) -> Path:
    return conformance.world.root / f"served-{label}.log"


def _child(conformance: ScenarioContext, label: str) -> int:
    """The index of the skills server ``label`` among the scenario's children."""
    for index, child in enumerate(conformance.children):
        if isinstance(child, McpChild) and child.label == label:
            return index
    raise AssertionError(f"no skills server {label!r} was described; the step is misplaced")


def _cue(conformance: ScenarioContext, label: str, *args: str) -> None:
    """Give the skills server ``label`` the command-line options ``args`` as well."""
    index = _child(conformance, label)
    child = conformance.children[index]
    assert isinstance(child, McpChild)
    server = child.server
    command = ServerCommand(server.command, (*server.args, *args), server.env)
    conformance.children[index] = McpChild(label=label, server=command)


def _serve(
    conformance: ScenarioContext,
    label: str,
    path: str,
    instructions: str = "",
    allowed_tools: list[str] | None = None,
) -> None:
    """Write the skill at ``path`` (its last segment its name) into the server's folder."""
    name = path.rsplit("/", 1)[-1]
    draft = SkillDraft(name, instructions=instructions, allowed_tools=allowed_tools)
    directory = _folder(conformance, label) / path
    directory.parent.mkdir(parents=True, exist_ok=True)
    draft.write(directory)


@given(step("a skills server `{label:v}` serving the skills {names:vs}"))
def given_skills_server(conformance: ScenarioContext, label: str, names: list[str]) -> None:
    if importlib.util.find_spec("mcp.shared.session") is None:  # the SDK's 2.x line
        raise Unsupported(
            "the suite's skills server is written on the mcp 1.x SDK, and this environment has "
            f"mcp {importlib.metadata.version('mcp')}"
        )
    folder = _folder(conformance, label)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        _serve(conformance, label, name)
    args = ("-m", _SERVER, str(folder), "--log", str(_log(conformance, label)))
    conformance.children.append(McpChild(label=label, server=ServerCommand(sys.executable, args)))


@given(
    step(
        "the skills server `{label:v}` serves the skill `{name:v}` below the folders `{prefix:v}`"
        " with the instructions `{text:v}`"
    )
)
def given_prefixed_skill(
    conformance: ScenarioContext, label: str, name: str, prefix: str, text: str
) -> None:
    _child(conformance, label)
    _serve(conformance, label, f"{prefix}/{name}", text)


@given(
    step(
        "the skills server `{label:v}` serves the skill `{name:v}` with the instructions `{text:v}`"
    )
)
def given_served_skill(conformance: ScenarioContext, label: str, name: str, text: str) -> None:
    _child(conformance, label)
    _serve(conformance, label, name, text)


@given(
    step(
        "the skills server `{label:v}` serves the skill `{inner:v}` nested in `{outer:v}`,"
        " allowing only the tool `{tool:v}`"
    )
)
def given_nested_skill(
    conformance: ScenarioContext, label: str, inner: str, outer: str, tool: str
) -> None:
    _child(conformance, label)
    _serve(conformance, label, f"{outer}/{inner}", allowed_tools=[tool])


@given(step("the skills server `{label:v}` leaves `{path:v}` out of its listing"))
def given_unlisted(conformance: ScenarioContext, label: str, path: str) -> None:
    _cue(conformance, label, "--unlisted", path)


@given(step("the skills server `{label:v}` serves `{path:v}` with bytes its digest does not match"))
def given_tampered(conformance: ScenarioContext, label: str, path: str) -> None:
    _cue(conformance, label, "--tamper", path)


@given(
    step(
        "the skills server `{label:v}` also lists the resource `skill://{name:v}/SKILL.md`,"
        " which is no skill"
    )
)
def given_decoy(conformance: ScenarioContext, label: str, name: str) -> None:
    _cue(conformance, label, "--decoy", name)


# -- what the host asked ---------------------------------------------------------------------


def _requests(conformance: ScenarioContext, label: str) -> list[dict[str, Any]]:
    """Every request the skills server ``label`` logged, in order."""
    log = _log(conformance, label)
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]


def _asked(requests: list[dict[str, Any]]) -> list[str]:
    return [f"{r.get('method')} {r.get('params', {}).get('uri', '')}".rstrip() for r in requests]


@then(step("the skills server `{label:v}` was asked `{method:v}`"))
def then_asked_method(conformance: ScenarioContext, label: str, method: str) -> None:
    requests = _requests(conformance, label)
    expect(
        any(r.get("method") == method for r in requests),
        f"the host never sent {method} to {label!r}",
        expected=f"a {method} request in the server's log",
        observed=f"the requests {_asked(requests)}",
    )


@then(step("the skills server `{label:v}` was asked for `{uri:v}`"))
def then_asked_uri(conformance: ScenarioContext, label: str, uri: str) -> None:
    requests = _requests(conformance, label)
    expect(
        any(
            r.get("method") in ("skills/get", "resources/read")
            and r.get("params", {}).get("uri") == uri
            for r in requests
        ),
        f"the host never asked {label!r} for {uri}",
        expected=f"skills/get or resources/read of {uri} in the server's log",
        observed=f"the requests {_asked(requests)}",
    )


# -- what the model is given ------------------------------------------------------------------


@then(step("no listed skill is `{name:v}`"))
def then_not_listed(conformance: ScenarioContext, name: str) -> None:
    assert conformance.listing is not None, "list_skills was not called"
    listed = [entry.name for entry in conformance.listing]
    # However the host qualifies a name (``hub/inner``, ``inner@hub``), ``name`` stays a word of it.
    word = re.compile(rf"(?<![a-z0-9-]){re.escape(name)}(?![a-z0-9-])")
    expect(
        not any(word.search(entry) for entry in listed),
        f"list_skills offers {name!r} as a skill",
        expected=f"no entry naming {name!r}",
        observed=f"list_skills lists {sorted(listed)}",
    )


def _load(conformance: ScenarioContext, skill: str) -> str | SkillSystemError:
    try:
        return conformance.start().load_skill(skill)
    except SkillSystemError as error:
        return error


@then(step("the listed names loading `{first:v}` and `{second:v}` are two different names"))
def then_both_loadable(conformance: ScenarioContext, first: str, second: str) -> None:
    assert conformance.listing is not None, "list_skills was not called"
    names = [entry.name for entry in conformance.listing]
    loaded = {name: _load(conformance, name) for name in names}
    for text in (first, second):
        holding = [n for n, got in loaded.items() if isinstance(got, str) and text in got]
        expect(
            len(holding) == 1,
            f"{len(holding)} listed names load {text!r}",
            expected=f"exactly one listed name whose load_skill gives {text!r}",
            observed=f"list_skills lists {sorted(names)}; loading each gives "
            f"{ {n: str(got)[:120] for n, got in loaded.items()} }",
        )


@then(step("`load_skill` of `{uri:v}` gives `{text:v}`"))
def then_load_gives(conformance: ScenarioContext, uri: str, text: str) -> None:
    got = _load(conformance, uri)
    expect(
        isinstance(got, str) and text in got,
        f"load_skill of {uri} does not give {text!r}",
        expected=f"a text containing {text!r}",
        observed=repr(str(got)[:300]),
    )


@then(step("`load_skill` of `{uri:v}` gives no text containing `{text:v}`"))
def then_load_withholds(conformance: ScenarioContext, uri: str, text: str) -> None:
    got = _load(conformance, uri)
    expect(
        text not in str(got),
        f"load_skill of {uri} gives {text!r}",
        expected=f"a refusal, or a text without {text!r}",
        observed=repr(str(got)[:300]),
    )


@then("the agent is offered the same tools as before")
def then_same_tools(conformance: ScenarioContext) -> None:
    before = conformance.tools()
    after = conformance.refresh_tools()
    expect(
        after == before,
        "the tools the model is offered changed",
        expected=f"{before}",
        observed=f"{after}",
    )
