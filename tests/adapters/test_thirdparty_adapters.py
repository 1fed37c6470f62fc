"""The third-party adapters' own logic, tested without any third-party implementation installed.

What the catalogue parsers read is each framework's prompt format as it stands in the pinned
versions (thirdparty/*.txt); `make matrix` runs the adapters themselves against the real thing.
"""

from __future__ import annotations

import json
import logging
import warnings

import pytest

from skill_conformance.adapters.thirdparty.agno_paths import (
    agno_file_call,
    agno_instructions_text,
    agno_result_text,
)
from skill_conformance.adapters.thirdparty.common import (
    ProblemLog,
    child_tools,
    refused,
    unsupported_uri,
)
from skill_conformance.adapters.thirdparty.listing import (
    deferred_capabilities,
    markdown_skill_list,
    markdown_skill_paths,
    skill_load_warnings,
    xml_skill_list,
)
from skill_conformance.adapters.thirdparty.script import CALL_ID, ToolScript, decoded
from skill_conformance.port import ErrorKind, McpChild, ServerCommand, ToolsChild, Unsupported
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.registry import implementations

# -- the catalogues the models are shown --------------------------------------------------------

PYDANTIC_AI = (
    "Be brief.\n"
    '<context id="capability:deferred_capabilities">\n'
    "The following capabilities are deferred and can be loaded using the `load_capability` "
    "tool. A capability's tools stay hidden until it is loaded:\n"
    "- ponytail: Ties hair.\n"
    "- braid: Braids hair: in three strands.\n"
    "  Second line.\n"
    "</context>\n"
    "A later <context> element with the same id replaces the earlier one."
)


def test_deferred_capabilities_lists_each_entry_with_its_continuation_lines() -> None:
    listed = deferred_capabilities(PYDANTIC_AI)
    assert [(e.name, e.description, e.source) for e in listed] == [
        ("ponytail", "Ties hair.", "local"),
        ("braid", "Braids hair: in three strands.\nSecond line.", "local"),
    ]
    assert all(e.uri is None for e in listed)


@pytest.mark.parametrize("instructions", [None, "", "- ponytail: outside any block"])
def test_no_deferred_block_lists_nothing(instructions: str | None) -> None:
    assert deferred_capabilities(instructions) == []


DEEPAGENTS = """## Skills System

**Unnamed Skills**: `/` (higher priority)

**Available Skills:**

- **ponytail**: Ties hair.
  -> Read `/ponytail/SKILL.md` for full instructions
- **braid**: Braids: three **strands**.
  -> Allowed tools: read
  -> Read `/braid/SKILL.md` for full instructions

**How to Use Skills (Progressive Disclosure):**

- **Recognize when a skill applies** is not an entry: it has no colon after the bold part
"""


def test_markdown_skill_list_reads_bold_name_entries() -> None:
    listed = markdown_skill_list(DEEPAGENTS)
    assert [(e.name, e.description) for e in listed] == [
        ("ponytail", "Ties hair."),
        ("braid", "Braids: three **strands**."),
    ]


def test_markdown_skill_paths_reads_each_entry_s_read_line() -> None:
    assert markdown_skill_paths(DEEPAGENTS) == {
        "ponytail": "/ponytail/SKILL.md",
        "braid": "/braid/SKILL.md",
    }


def test_skill_load_warnings_are_decoded_one_per_line() -> None:
    entries = ["Skipping /bad/SKILL.md: no frontmatter", 'a "quoted" <name>']
    block = "\n".join(f"- {json.dumps(e).replace('<', '&lt;')}" for e in entries)
    prompt = f"before\n<skill_load_warnings>\nheading line\n{block}\n</skill_load_warnings>\n"
    assert skill_load_warnings(prompt) == entries
    assert skill_load_warnings("no block") == []


AGNO = """<skills_system>
## Available Skills
<skill>
  <name>ponytail</name>
  <description>Ties hair & more.</description>
  <scripts>none</scripts>
</skill>
<skill>
  <name>braid</name>
  <description>Braids.</description>
  <scripts>run.py</scripts>
  <references>guide.md</references>
</skill>

</skills_system>"""


def test_xml_skill_list_reads_name_and_description_as_written() -> None:
    listed = xml_skill_list(AGNO)
    assert [(e.name, e.description) for e in listed] == [
        ("ponytail", "Ties hair & more."),
        ("braid", "Braids."),
    ]


# -- agno's file readers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "tool", "argument"),
    [
        ("references/guide.md", "get_skill_reference", "guide.md"),
        ("references/../../../secret.md", "get_skill_reference", "../../../secret.md"),
        ("../../secret.md", "get_skill_reference", "../../../secret.md"),
        ("notes.md", "get_skill_reference", "../notes.md"),
        ("/etc/passwd", "get_skill_reference", "/etc/passwd"),
        ("scripts/run.py", "get_skill_script", "run.py"),
    ],
)
def test_agno_file_call_names_the_same_file_from_agno_s_base(
    path: str, tool: str, argument: str
) -> None:
    name, arguments = agno_file_call("my-skill", path)
    assert name == tool
    assert arguments["skill_name"] == "my-skill"
    key = "script_path" if tool == "get_skill_script" else "reference_path"
    assert arguments[key] == argument


def test_agno_result_text_gives_the_field_or_a_refusal_whole() -> None:
    assert agno_result_text({"content": "GUIDE"}, "content") == "GUIDE"
    refusal = {"error": "Reference 'x' not found", "available_references": ["g.md"]}
    assert json.loads(agno_result_text(refusal, "content")) == refusal
    assert agno_result_text("plain text", "content") == "plain text"


def test_agno_instructions_text_puts_the_instructions_first() -> None:
    text = agno_instructions_text({"skill_name": "a", "instructions": "Do it.", "refs": ["g"]})
    assert text.splitlines() == ["Do it.", "skill_name: a", "refs: ['g']"]


# -- the scripted model and what the adapters share ---------------------------------------------


def test_tool_script_makes_its_calls_in_order_and_keeps_the_last_result() -> None:
    script = ToolScript(("read", {"path": "x"}), before=[("load", {"id": "s"})])
    first = script.request(["load", "read"], "PROMPT")
    assert first is not None
    assert (first.name, first.arguments, first.id) == ("load", {"id": "s"}, f"{CALL_ID}-0")
    script.returned(first.id, "loaded")
    second = script.request(["other"], "other prompt")
    assert second is not None
    assert (second.name, second.id, second.json_arguments()) == ("read", CALL_ID, '{"path": "x"}')
    script.returned(CALL_ID, "content", refused=True)
    assert script.request([], None) is None
    assert (script.offered, script.prompt) == (("load", "read"), "PROMPT")
    assert (script.result, script.refused) == ("content", True)


def test_a_script_without_calls_only_notes_the_offer() -> None:
    script = ToolScript()
    assert script.request(["a", "b"], None) is None
    assert script.offered == ("a", "b")
    assert script.result is None


def test_decoded_reads_json_text_only() -> None:
    assert decoded('{"a": 1}') == {"a": 1}
    assert decoded("not json") == "not json"
    assert decoded(["block"]) == ["block"]


def test_problem_log_keeps_warnings_and_logged_warnings_once_each_on_one_line() -> None:
    log = ProblemLog(loggers=("sc-test-impl",))
    logger = logging.getLogger("sc-test-impl.child")
    with log.recording():
        warnings.warn("Skipping a/SKILL.md:\n  bad YAML", UserWarning, stacklevel=1)
        warnings.warn("Skipping a/SKILL.md:\n  bad YAML", UserWarning, stacklevel=1)
        logger.warning("skill %s skipped", "b")
        logger.info("not a problem")
    logger.warning("logged after the block")
    assert log.lines() == ["skill b skipped", "Skipping a/SKILL.md: bad YAML"]
    assert not logging.getLogger("sc-test-impl").handlers


def test_refusals_are_unclassified_errors_on_one_line() -> None:
    error = refused("No capability found\nwith id 'x'.")
    assert error.kind is ErrorKind.UNCLASSIFIED
    assert error.message == "No capability found with id 'x'."


def test_uris_and_mcp_children_are_unsupported_not_crashes() -> None:
    unsupported_uri("my-skill")
    with pytest.raises(Unsupported, match="skill:// URI"):
        unsupported_uri("skill://my-skill")
    tools = ToolsChild("tools", ("ping",))
    assert child_tools((tools,)) == [tools]
    with pytest.raises(Unsupported, match="MCP server"):
        child_tools((tools, McpChild("hub", ServerCommand("python"))))


# -- registration -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("impl", "missing"),
    [("pydantic-ai-skills", "pydantic_ai_skills"), ("deepagents", "deepagents"), ("agno", "agno")],
)
def test_each_third_party_is_registered_and_names_what_is_missing(impl: str, missing: str) -> None:
    assert impl in implementations()
    try:
        __import__(missing)
    except ImportError:
        with pytest.raises(AdapterLoadError, match=f"--impl '{impl}': cannot import"):
            load_implementation(impl)
    else:  # pragma: no cover - only in that implementation's own venv
        implementation = load_implementation(impl)
        assert implementation.name == impl
