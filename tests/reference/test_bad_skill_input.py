"""Bad skill input, through the port: one clear line per problem, and every other skill works.

Each case writes one broken ``SKILL.md`` (raw text, so the YAML itself can be broken) next to a
healthy skill, opens the reference through the port and checks that the problem is reported as
exactly one line ``{SKILL.md}:{line}: skill '{name}': {field}: ...`` and that the healthy skill's
tools (and the broken skill's healthy entries) are still offered and still run. The messages are
snapshotted (``--snapshot-update`` to renew) with the temporary directory replaced by ``<skills>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.runtime.blocking import BlockingSkillSystem, blocking
from skill_conformance.runtime.world import World


@dataclass(frozen=True)
class Case:
    """One broken skill: its SKILL.md text and what its one problem must say."""

    skill: str
    text: str
    line: int
    field: str
    words: str
    still_offered: tuple[str, ...] = ()


def _md(*lines: str) -> str:
    return "\n".join(lines) + "\n"


CASES = {
    "malformed-yaml": Case(
        "yamlbad",
        _md("---", "name: yamlbad", "description: [unclosed", "---", "Body."),
        3,
        "frontmatter",
        "malformed YAML",
    ),
    "yaml-bad-indentation": Case(
        "indented",
        _md("---", "name: indented", "description: x", "  tools: []", "---", "Body."),
        4,
        "frontmatter",
        "malformed YAML",
    ),
    "frontmatter-not-closed": Case(
        "unclosed", _md("---", "name: unclosed", "description: x"), 1, "frontmatter", "not closed"
    ),
    "frontmatter-not-a-mapping": Case(
        "listy", _md("---", "- name", "---", "Body."), 2, "frontmatter", "not a mapping"
    ),
    "invalid-name": Case(
        "badname",
        _md("---", "description: x", "name: Bad_Name", "---", "Body."),
        3,
        "name",
        "'Bad_Name' is not 1-64 lowercase letters",
    ),
    "name-missing": Case("nameless", _md("---", "description: x", "---"), 2, "name", "missing"),
    "name-differs-from-directory": Case(
        "here",
        _md("---", "name: there", "description: x", "---"),
        2,
        "name",
        "differs from the directory name 'here'",
    ),
    "description-missing": Case(
        "mute", _md("---", "name: mute", "---"), 2, "description", "non-empty string"
    ),
    "unknown-field": Case(
        "colourful",
        _md("---", "name: colourful", "description: x", "colour: blue", "---"),
        4,
        "colour",
        "unknown frontmatter field",
    ),
    "import-path-module-missing": Case(
        "noimport",
        _md(
            "---",
            "name: noimport",
            "description: x",
            "tools:",
            "  - import_path: json:dumps",
            "  - import_path: no_such_module_sc_bad:tool",
            "---",
        ),
        6,
        "tools[1].import_path",
        "cannot import 'no_such_module_sc_bad'",
        ("noimport__tool__dumps",),
    ),
    "import-path-function-missing": Case(
        "nofunction",
        _md(
            "---",
            "name: nofunction",
            "description: x",
            "tools:",
            "  - type: python",
            "    import_path: json:no_such_function",
            "  - import_path: json:dumps",
            "---",
        ),
        5,
        "tools[0].import_path",
        "has no 'no_such_function'",
        ("nofunction__tool__dumps",),
    ),
    "import-path-without-colon": Case(
        "nocolon",
        _md(
            "---",
            "name: nocolon",
            "description: x",
            "tools:",
            "  - import_path: json.dumps",
            "  - import_path: json:dumps",
            "---",
        ),
        5,
        "tools[0]",
        "import_path 'json.dumps' is not 'module:function'",
        ("nocolon__tool__dumps",),
    ),
    "mcp-server-without-command": Case(
        "nocommand",
        _md(
            "---",
            "name: nocommand",
            "description: x",
            "tools:",
            "  - import_path: json:dumps",
            "mcp-servers:",
            "  ghost:",
            "    args: ['-m', 'nothing']",
            "---",
        ),
        7,
        "mcp-servers.ghost",
        "has neither command nor url",
        ("nocommand__tool__dumps",),
    ),
}


CASES |= {
    "empty-file": Case("blank", "", 1, "frontmatter", "missing"),
    "frontmatter-missing": Case("plain", _md("Just text."), 1, "frontmatter", "missing"),
    "yaml-control-character": Case(
        "bell",
        _md("---", "name: bell", "tools: []", "description: ding\x07", "---"),
        4,
        "frontmatter",
        "character '\\x07' is not allowed in YAML",
    ),
    "description-not-a-string": Case(
        "wordy",
        _md("---", "name: wordy", "tools: []", "description: 7", "---"),
        4,
        "description",
        "non-empty string",
    ),
    "frontmatter-empty": Case(
        "hollow", _md("---", "---", "Body."), 2, "frontmatter", "not a mapping"
    ),
    "tools-not-a-list": Case(
        "toolword",
        _md("---", "name: toolword", "description: x", "tools: json:dumps", "---"),
        4,
        "tools",
        "must be a list",
    ),
    "tools-entry-not-a-mapping": Case(
        "toolentry",
        _md(
            "---",
            "name: toolentry",
            "description: x",
            "tools:",
            "  - json:loads",
            "  - import_path: json:dumps",
            "---",
        ),
        5,
        "tools[0]",
        "must be a mapping with an import_path",
        ("toolentry__tool__dumps",),
    ),
    "allowed-tools-not-a-list": Case(
        "allowword",
        _md("---", "name: allowword", "description: x", "allowed-tools: 7", "---"),
        4,
        "allowed-tools",
        "must be a list of tool names",
    ),
}


def _server_case(skill: str, ghost: str, *entry: str, words: str) -> Case:
    """A skill with one healthy Python tool and the MCP server entry ``ghost`` (line 7)."""
    lines = ("---", f"name: {skill}", "description: x", "tools:", "  - import_path: json:dumps")
    text = _md(*lines, "mcp-servers:", ghost, *entry, "---")
    return Case(skill, text, 7, "mcp-servers.ghost", words, (f"{skill}__tool__dumps",))


CASES |= {
    "mcp-servers-not-a-mapping": Case(
        "serverlist",
        _md("---", "name: serverlist", "description: x", "mcp-servers: [ghost]", "---"),
        4,
        "mcp-servers",
        "must be a mapping of server names to servers",
    ),
    "mcp-server-not-a-mapping": _server_case(
        "serverword", "  ghost: just-a-word", words="must be a mapping"
    ),
    "mcp-server-unknown-field": _server_case(
        "servercolour",
        "  ghost:",
        "    command: x",
        "    colour: blue",
        words="unknown field 'colour'",
    ),
    "mcp-server-command-and-url": _server_case(
        "serverboth",
        "  ghost:",
        "    command: x",
        "    url: http://127.0.0.1:1/mcp",
        words="has both command and url",
    ),
    "mcp-server-empty-command": _server_case(
        "serverempty", "  ghost:", "    command: ''", words="command must be a non-empty string"
    ),
    "mcp-server-url-not-a-string": _server_case(
        "serverurl", "  ghost:", "    url: 42", words="url must be a non-empty string"
    ),
    "mcp-server-args-not-a-list": _server_case(
        "serverargs", "  ghost:", "    command: x", "    args: -m", words="args must be a list"
    ),
    "mcp-server-env-not-a-mapping": _server_case(
        "serverenv", "  ghost:", "    command: x", "    env: [A]", words="env must map names"
    ),
    "mcp-server-header-not-a-string": _server_case(
        "serverheader",
        "  ghost:",
        "    url: http://127.0.0.1:1/mcp",
        "    headers: {X-Token: [1]}",
        words="headers must map names to strings",
    ),
}

_LAUGHS = ", ".join(
    [f"&a [{', '.join(['x'] * 10)}]"]
    + [f"&{b} [{', '.join([f'*{a}'] * 10)}]" for a, b in zip("abcdefg", "bcdefgh", strict=True)]
)
"""A flow sequence whose aliases stand for 10**8 values."""

# A frontmatter past a limit refuses the skill; its problem names the entry the limit is in.
CASES |= {
    "aliases-in-a-tool": Case(
        "laughing",
        _md(
            "---",
            "name: laughing",
            "description: x",
            "tools:",
            "  - import_path: json:dumps",
            f"  - import_path: [{_LAUGHS}]",
            "---",
        ),
        6,
        "tools[1]",
        "stands for more than 10000 values",
    ),
    "nesting-in-a-server": Case(
        "deepserver",
        _md(
            "---",
            "name: deepserver",
            "description: x",
            "mcp-servers:",
            "  ghost:",
            f"    args: {'[' * 70}{']' * 70}",
            "---",
        ),
        6,
        "mcp-servers.ghost",
        "collections nest deeper than 64 levels",
    ),
    "aliases-in-a-field": Case(
        "laughfield",
        _md("---", "name: laughfield", "description: x", f"metadata: {{a: [{_LAUGHS}]}}", "---"),
        4,
        "metadata:",
        "stands for more than 10000 values",
    ),
}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path)
    world.add_python_tool("healthy", "ping")
    world.write()
    yield world
    world.teardown()


def _open(world: World) -> BlockingSkillSystem:
    system = blocking(ReferenceImplementation().open(world.setup()), 30.0)
    system.start()
    return system


def _write_raw(world: World, case: Case) -> Path:
    directory = world.skills_dir / case.skill
    directory.mkdir()
    path = directory / "SKILL.md"
    path.write_text(case.text)
    return path


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_one_line_naming_file_line_skill_and_field(world: World, case: Case, snapshot: Any) -> None:
    path = _write_raw(world, case)
    system = _open(world)
    try:
        problems = list(system.problems())
        names = list(system.tool_names())
        healthy = system.run_tool("healthy__tool__ping", {}).result
        offered_results = {
            name: system.run_tool(name, {"obj": 1}).result for name in case.still_offered
        }
    finally:
        system.close()
    assert len(problems) == 1, problems
    [problem] = problems
    assert "\n" not in problem
    assert problem.startswith(f"{path}:{case.line}: skill {case.skill!r}: {case.field}"), problem
    assert case.words in problem
    assert names == ["healthy__tool__ping", *case.still_offered]
    assert healthy == "healthy:ping"
    assert all(result == "1" for result in offered_results.values()), offered_results
    assert problem.replace(str(world.skills_dir), "<skills>") == snapshot


def test_all_at_once_each_reported_and_the_healthy_skill_untouched(world: World) -> None:
    for case in CASES.values():
        _write_raw(world, case)
    system = _open(world)
    try:
        problems = list(system.problems())
        names = list(system.tool_names())
        instructions = system.load_skill("healthy")
    finally:
        system.close()
    assert len(problems) == len(CASES), problems
    for case in CASES.values():
        mine = [p for p in problems if f"skill {case.skill!r}: {case.field}" in p]
        assert len(mine) == 1, (case, problems)
    expected = ["healthy__tool__ping"] + [n for c in CASES.values() for n in c.still_offered]
    assert sorted(names) == sorted(expected)
    assert "Instructions of healthy." in instructions
