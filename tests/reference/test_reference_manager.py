"""The skill manager under real pydantic-ai toolsets, RunContexts and agent runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage
from reference_helpers import called, offered

from skill_conformance.reference.capabilities import ToolsetCap
from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap
from skill_conformance.reference.skill import McpServerSpec, PythonToolSpec, Skill

pytestmark = pytest.mark.anyio


def skill(name: str, *tools: str, allowed: list[str] | None = None, **kwargs: Any) -> Skill:
    return Skill(
        name=name,
        description=f"Skill {name}.",
        instructions=f"Instructions of {name}.",
        allowed_tools=None if allowed is None else frozenset(allowed),
        tools=tuple(PythonToolSpec(path) for path in tools),
        **kwargs,
    )


def ping_child(*names: str) -> ToolsetCap:
    def make(name: str) -> Any:
        def tool() -> str:
            return f"child:{name}"

        tool.__name__ = name
        return tool

    return ToolsetCap(FunctionToolset([make(name) for name in names]))


def run_context() -> RunContext[None]:
    def idle(*_: object) -> ModelResponse:
        return ModelResponse(parts=[TextPart("")])

    return RunContext(deps=None, model=FunctionModel(idle), usage=RunUsage())


async def test_toolset_names_under_a_real_run_context() -> None:
    manager = SkillManagerCap([skill("my-skill", "json:loads", "json:dumps")], [ping_child("ping")])
    toolset = manager.get_toolset()
    assert toolset is not None
    async with toolset:
        tools = await toolset.get_tools(run_context())
    assert list(tools) == ["my-skill__tool__loads", "my-skill__tool__dumps", "ping"]


async def test_tools_the_agent_sees_and_calls() -> None:
    manager = SkillManagerCap(
        [skill("alpha", "os:getcwd"), skill("beta", "os:getcwd"), skill("plain")],
        [ping_child("ping", "pong")],
    )
    assert await offered([manager]) == [
        "alpha__tool__getcwd",
        "beta__tool__getcwd",
        "ping",
        "pong",
    ]
    import os

    assert await called([manager], "beta__tool__getcwd", {}) == os.getcwd()
    assert await called(
        [SkillManagerCap([skill("js", "json:loads")])], "js__tool__loads", {"s": "[1, 2]"}
    ) == [1, 2]
    assert await called([manager], "pong", {}) == "child:pong"


async def test_python_tools_are_imported_when_built(tool_module: Any, tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    module = tool_module("probe", header=f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    SkillManagerCap([skill("my-skill", f"{module}:probe")])
    assert marker.exists()


async def test_a_failed_import_is_a_problem_and_spares_the_rest(
    skills_dir: Path, make_skill: Any
) -> None:
    make_skill(
        "broken",
        tools=[{"import_path": "no_such_module_sc:missing"}, {"import_path": "json:loads"}],
    )
    make_skill(
        "healthy", tools=[{"import_path": "json:loads"}, {"import_path": "simplejson_sc:loads"}]
    )
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    assert await offered([manager]) == ["broken__tool__loads", "healthy__tool__loads"]
    assert len(manager.problems) == 2
    assert "broken" in manager.problems[0]
    assert "no_such_module_sc:missing" in manager.problems[0]


async def test_two_tools_of_one_name_in_one_skill() -> None:
    manager = SkillManagerCap([skill("twice", "json:loads", "pickle:loads")])
    assert manager.python_tool_names("twice") == ["twice__tool__loads"]
    assert "already declared" in manager.problems[0]


@pytest.mark.parametrize(
    ("skills", "expected"),
    [
        (
            [skill("restricted", "json:loads", "json:dumps", allowed=["loads"])],
            ["restricted__tool__loads", "ping"],
        ),
        (
            [skill("open", "json:loads", "json:dumps")],
            ["open__tool__loads", "open__tool__dumps", "ping"],
        ),
        ([skill("blocked", "json:loads", "json:dumps", allowed=[])], ["ping"]),
        (
            [
                skill("alpha", "json:loads", "json:dumps", allowed=["loads"]),
                skill("beta", "json:loads", "json:dumps", allowed=["dumps"]),
            ],
            ["alpha__tool__loads", "beta__tool__dumps", "ping"],
        ),
        (
            [
                skill("data", "json:loads", "json:dumps", allowed=["loads"]),
                skill("data-extra", "json:loads", "json:dumps"),
            ],
            ["data__tool__loads", "data-extra__tool__loads", "data-extra__tool__dumps", "ping"],
        ),
        ([skill("open", "json:loads", allowed=["ping"])], ["ping"]),
    ],
)
async def test_allowed_tools_filter(skills: list[Skill], expected: list[str]) -> None:
    assert await offered([SkillManagerCap(skills, [ping_child("ping")])]) == expected


async def test_a_bare_name_may_contain_double_underscores(tool_module: Any) -> None:
    module = tool_module("get__item", "drop__item")
    store = skill("store", f"{module}:get__item", f"{module}:drop__item", allowed=["get__item"])
    manager = SkillManagerCap([store])
    assert await offered([manager]) == ["store__tool__get__item"]
    assert await called([manager], "store__tool__get__item", {}) == "get__item"


async def test_no_filter_without_allowed_tools() -> None:
    from pydantic_ai.toolsets import FunctionToolset as Toolset

    assert SkillManagerCap([skill("open", "json:loads")]).get_wrapper_toolset(Toolset()) is None


class SpyManager(SkillManagerCap):
    """Records which instance pydantic-ai asks for what, and when."""

    calls: list[tuple[str, int]]

    async def for_run(self, ctx: RunContext[Any]) -> SkillManagerCap:
        copy = await super().for_run(ctx)
        self.calls.append(("for_run", id(copy)))
        return copy

    def get_toolset(self) -> Any:
        self.calls.append(("get_toolset", id(self)))
        return super().get_toolset()

    def get_wrapper_toolset(self, toolset: Any) -> Any:
        self.calls.append(("get_wrapper_toolset", id(self)))
        return super().get_wrapper_toolset(toolset)


async def test_each_run_uses_a_for_run_copy_with_the_same_tools(tool_module: Any) -> None:
    module = tool_module("count")
    manager = SpyManager([skill("my-skill", f"{module}:count", allowed=["count"])])
    manager.calls = []
    assert await called([manager], "my-skill__tool__count", {}) == "count"
    kinds = [kind for kind, _ in manager.calls]
    assert kinds[0] == "get_toolset"
    copy_id = manager.calls[kinds.index("for_run")][1]
    assert copy_id != id(manager)
    assert ("get_toolset", copy_id) in manager.calls
    assert ("get_wrapper_toolset", copy_id) in manager.calls


async def test_for_run_copy_shares_tools_and_servers() -> None:
    server = McpServerSpec("server1", command="/bin/false")
    manager = SkillManagerCap(
        [skill("my-skill", "json:loads", mcp_servers=(server,))], [ping_child("ping")]
    )
    copy = await manager.for_run(run_context())
    assert copy is not manager
    assert copy != manager
    assert copy.python_tool_names("my-skill") == manager.python_tool_names("my-skill")
    assert copy.skill_mcp_children("my-skill")[0] is manager.skill_mcp_children("my-skill")[0]
    assert copy.children[0] is manager.children[0]
    assert not copy.entered


async def test_building_starts_no_server(mcp_log: Path, server_entry: Any) -> None:
    entry = server_entry("server1")
    servers = tuple(
        McpServerSpec(f"s{index}", command=entry["command"], args=tuple(entry["args"]))
        for index in range(5)
    )
    manager = SkillManagerCap([skill("many", mcp_servers=servers)])
    assert len(manager.skill_mcp_children("many")) == 5
    assert not any(child.server.is_running for child in manager.skill_mcp_children("many"))
    assert not mcp_log.exists()


async def test_registering_twice_the_same_tool_name_across_children_is_not_hidden() -> None:
    manager = SkillManagerCap([], [ping_child("ping"), ping_child("ping")])
    from pydantic_ai.exceptions import UserError

    with pytest.raises(UserError):
        await offered([manager])


async def test_a_skill_without_servers_has_no_server_children() -> None:
    manager = SkillManagerCap([skill("plain", "json:loads")])
    assert manager.skill_mcp_children("plain") == []
    assert manager.skill_mcp_children("nobody") == []


async def test_a_child_without_a_toolset_hides_no_later_child() -> None:
    class Silent(ToolsetCap):
        def get_toolset(self) -> Any:
            return None

    manager = SkillManagerCap([], [Silent(FunctionToolset()), ping_child("ping")])
    assert await offered([manager]) == ["ping"]


async def test_a_child_returning_a_non_toolset_is_named() -> None:
    class Broken(ToolsetCap):
        def get_toolset(self) -> Any:
            return "not a toolset"

    manager = SkillManagerCap([], [Broken(FunctionToolset())], name="mine")
    with pytest.raises(TypeError, match="of 'mine' returned a non-toolset"):
        manager.get_toolset()


async def test_a_non_skill_tool_sharing_a_filtered_skill_name_stays() -> None:
    manager = SkillManagerCap(
        [skill("restricted", "json:loads", "json:dumps", allowed=["loads"])],
        [ping_child("restricted__raw")],
    )
    assert await offered([manager]) == ["restricted__tool__loads", "restricted__raw"]


async def test_nested_entering_keeps_the_manager_entered_until_the_outer_exit() -> None:
    manager = SkillManagerCap([skill("plain")], name="mine")
    async with manager:
        async with manager:
            assert manager.entered
        assert manager.entered, "the inner exit must not close an outer entry"
    assert not manager.entered
    with pytest.raises(RuntimeError, match="'mine' exited more often than entered"):
        await manager.__aexit__(None, None, None)


async def test_a_run_copy_hands_the_run_context_to_each_child() -> None:
    seen: list[object] = []

    class Recording(ToolsetCap):
        async def for_run(self, ctx: RunContext[Any]) -> Recording:
            seen.append(ctx)
            return self

    manager = SkillManagerCap([], [Recording(FunctionToolset())])
    ctx = run_context()
    run_copy = await manager.for_run(ctx)
    assert seen == [ctx]
    await run_copy.aclose()
    assert not run_copy.entered


async def test_a_manager_with_nothing_to_offer_has_no_toolset() -> None:
    assert SkillManagerCap([skill("plain")]).get_toolset() is None


async def test_a_failed_import_without_a_line_names_the_skill_file_alone() -> None:
    where = Path("/skills/broken/SKILL.md")
    manager = SkillManagerCap([skill("broken", "no_such_module_sc:x", directory=where.parent)])
    assert manager.problems == [
        f"{where}: skill 'broken': tools.import_path: cannot import 'no_such_module_sc' for "
        "'no_such_module_sc:x': ModuleNotFoundError: No module named 'no_such_module_sc'; "
        "tool skipped"
    ]


async def test_a_callable_pydantic_ai_cannot_wrap_is_a_problem(tool_module: Any) -> None:
    module = tool_module(header="import functools\nhalf = functools.partial(divmod, 9)\n")
    manager = SkillManagerCap([skill("maths", f"{module}:half", "json:loads")])
    assert manager.problems == [
        f"maths: skill 'maths': tools.import_path: '{module}:half': AttributeError: "
        "'functools.partial' object has no attribute '__name__'; tool skipped"
    ]
    assert await offered([manager]) == ["maths__tool__loads"]


async def test_a_manager_never_entered_closes_quietly() -> None:
    manager = SkillManagerCap([skill("plain")])
    assert manager.name == "skills"
    await manager.aclose()
    assert not manager.entered
