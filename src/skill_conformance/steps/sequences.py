"""Sequences of operations as a state machine ([registration.rebuild.exact] and its neighbours).

The machine starts a system on a few skills, then changes the skills directory and calls the
port step by step: rebuild, enter, exit, run a tool, load, list; the system is closed at the end.
What each step must give is computed here from the specs' rules, on a model of the skills on disk
and of those the system last built from; after every step the invariants are checked:

- the tools offered are exactly those the last build's skills declare, less what their
  ``allowed-tools`` leaves out and what failed (a tool that does not import, a server whose
  command does not exist): a failure costs only its own tool, server or skill;
- no MCP server process outlives an exit, a rebuild (those of the replaced manager) or the close;
- every skill the last build refused is named in ``problems()``, at most once per build.

Rules draw only what the abilities the implementation declares allow: without ``python-tools``
no skill declares a Python tool, without ``mcp`` no skill
declares a server, without ``allowed-tools`` none restricts its tools, without ``lifecycle`` the
manager is never entered, without ``pool-rebuild`` nothing is rebuilt, without ``problems`` the
problems are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from skill_conformance.port import Ability, ErrorKind, SkillSystemError, Unsupported
from skill_conformance.runtime.context import ScenarioContext, wait_for_exit
from skill_conformance.steps.property_runner import Examples, MachineProperty, Sequences
from skill_conformance.verdicts import Mismatch, expect

__all__ = ["SKILL_SEQUENCES"]

SKILLS = ("pdf", "pdf-x", "x-pdf")
"""Names of the skills a sequence writes: each holds another, as tool prefixes do."""
FUNCTIONS = ("loads", "dumps")
BROKEN_TOOL = "broken"
ECHO = "echo"
OPTIONAL = frozenset(
    {
        Ability.MCP,
        Ability.ALLOWED_TOOLS,
        Ability.LIFECYCLE,
        Ability.PROBLEMS,
        Ability.ERROR_KINDS,
        Ability.POOL_REBUILD,
        Ability.PYTHON_TOOLS,
    }
)
"""Abilities the rules use when the implementation declares them, and leave alone otherwise."""


@dataclass(frozen=True)
class Written:
    """One skill as a step wrote it."""

    functions: tuple[str, ...]
    allowed: tuple[str, ...] | None = None
    server: bool = False
    broken: str | None = None
    """``skill`` (its description is white space: refused), ``tool`` (one more tool, whose
    module raises ImportError) or ``server`` (one more MCP server, whose command does not exist)."""
    version: int = 0

    def tools(self, skill: str) -> list[str]:
        """The tools the spec's rules offer for this skill."""
        if self.broken == "skill":
            return []
        bare = [(f"{skill}__tool__{f}", f) for f in self.functions]
        if self.server:
            bare.append((f"{skill}__mcp__{ECHO}", ECHO))
        return sorted(t for t, name in bare if self.allowed is None or name in self.allowed)

    def shown(self) -> str:
        parts = [f"tools {list(self.functions)}"]
        if self.allowed is not None:
            parts.append(f"allowed-tools {list(self.allowed)}")
        if self.server:
            parts.append(f"an MCP server offering {ECHO}")
        if self.broken:
            parts.append(
                {
                    "skill": "a blank description",
                    "tool": "a tool failing its import",
                    "server": "a server whose command does not exist",
                }[self.broken]
            )
        return ", ".join(parts)


def _within(written: Written, declared: set[Ability], version: int) -> Written:
    """``written`` with what the abilities ``declared`` do not allow left out (an edge's)."""
    mcp = Ability.MCP in declared
    python = Ability.PYTHON_TOOLS in declared
    lacking = {"server"} if not mcp else set()
    lacking |= {"tool"} if not python else set()
    return Written(
        functions=written.functions if python else (),
        allowed=written.allowed if Ability.ALLOWED_TOOLS in declared else None,
        server=written.server and mcp,
        broken=None if written.broken in lacking else written.broken,
        version=version,
    )


def _offered(skills: dict[str, Written]) -> list[str]:
    return sorted(t for skill, written in skills.items() for t in written.tools(skill))


def _named(problems: list[str], skill: str) -> int:
    """How many problems name ``skill`` (not a skill whose name holds it)."""
    word = re.compile(rf"(?<![\w-]){re.escape(skill)}(?![\w-])")
    return sum(1 for problem in problems if word.search(problem))


@dataclass
class _Model:
    disk: dict[str, Written] = field(default_factory=dict)
    built: dict[str, Written] = field(default_factory=dict)
    builds: int = 0
    entered: bool = False
    versions: int = 0


def _machine(examples: Examples, sequences: Sequences) -> type[RuleBasedStateMachine]:
    implementation = examples.implementation
    declared = {a for a in OPTIONAL if a not in implementation.unsupported}
    examples.needs = (examples.needs or frozenset()) | declared

    def has(ability: Ability) -> bool:
        return ability in declared

    written = st.builds(
        Written,
        functions=st.lists(st.sampled_from(FUNCTIONS), max_size=2, unique=True).map(tuple),
        allowed=(
            st.none()
            | st.lists(
                st.sampled_from([*FUNCTIONS, ECHO, BROKEN_TOOL]), max_size=3, unique=True
            ).map(tuple)
            if has(Ability.ALLOWED_TOOLS)
            else st.none()
        ),
        server=st.booleans() if has(Ability.MCP) else st.just(False),
        broken=st.sampled_from(
            [None, None, "skill", "tool", *(["server"] if has(Ability.MCP) else [])]
        ),
    )

    class SkillSequences(RuleBasedStateMachine):
        """One sequence: a system of its own, its steps, its close."""

        def __init__(self) -> None:
            super().__init__()
            self.model = _Model()
            self.done: list[str] = []
            self.context: ScenarioContext | None = None
            self.fresh: Any = None
            self.running = sequences.admit()

        # -- running one step ---------------------------------------------------------------

        def step(self, shown: str, action: Callable[[ScenarioContext], None]) -> None:
            self.done.append(shown)
            key = tuple(self.done)
            if key in sequences.failures:
                raise sequences.failures[key]
            if not self.running:
                return
            try:
                if self.context is None:
                    self.fresh = examples.fresh()
                    self.context = self.fresh.__enter__()
                action(self.context)
            except Unsupported as unsupported:
                sequences.unsupported = unsupported
                self.running = False
            except Mismatch as mismatch:
                failure = Mismatch(
                    mismatch.what,
                    expected=mismatch.expected,
                    observed=f"{mismatch.observed}; smallest failing sequence found: "
                    + " / ".join(self.done),
                )
                sequences.failures[key] = failure
                self.running = False
                raise failure from None

        def teardown(self) -> None:
            if self.running:
                self.step("close", lambda _context: self.close())
            fresh, self.fresh, self.context = self.fresh, None, None
            if fresh is not None:  # a step failed: closed, its leftovers killed, not judged
                failed = Mismatch("a step failed", expected="", observed="")
                fresh.__exit__(Mismatch, failed, None)

        def close(self) -> None:
            """Close the system: no process of it may outlive the close (checked on exit)."""
            fresh, self.fresh, self.context = self.fresh, None, None
            if fresh is not None:
                fresh.__exit__(None, None, None)

        # -- the model's rules --------------------------------------------------------------

        def write(self, context: ScenarioContext, skill: str, skill_written: Written) -> None:
            self.model.versions += 1
            skill_written = _within(skill_written, declared, self.model.versions)
            world = context.world
            if skill in world.skills:
                world.remove_skill(skill)
            draft = world.skill(skill)
            draft.instructions = f"Instructions of {skill}, version {self.model.versions}."
            draft.description = " " if skill_written.broken == "skill" else ""
            draft.tools = [f"json:{f}" for f in skill_written.functions]
            if skill_written.broken == "tool":
                world.add_failing_python_tool(skill, BROKEN_TOOL, "ImportError")
            if skill_written.server:
                world.add_mcp_server(skill, f"{skill}-srv", [ECHO])
            if skill_written.broken == "server":
                world.add_broken_mcp_server(skill, f"{skill}-gone", "missing")
            if skill_written.allowed is not None:
                draft.allowed_tools = list(skill_written.allowed)
            self.model.disk[skill] = skill_written
            if context.started:
                world.write()

        def built(self, context: ScenarioContext) -> None:
            self.model.built = dict(self.model.disk)
            self.model.builds += 1
            self.check(context)

        def check(self, context: ScenarioContext) -> None:
            """The invariants, after every step."""
            offered = sorted(
                t for t in context.refresh_tools() if "__tool__" in t or "__mcp__" in t
            )
            wanted = _offered(self.model.built)
            expect(
                offered == wanted,
                "the tools offered are not those the skills of the last build give",
                expected=f"exactly {wanted}",
                observed=f"offered {offered}",
            )
            if has(Ability.PROBLEMS):
                problems = [str(p) for p in context.start().problems()]
                for skill, skill_written in self.model.built.items():
                    if skill_written.broken != "skill":
                        continue
                    count = _named(problems, skill)
                    expect(
                        1 <= count <= self.model.builds,
                        f"the refused skill {skill!r} is not named once in problems()",
                        expected=f"{skill!r} named once per build at most, at least once",
                        observed=f"named {count} times in {problems}",
                    )

        @initialize(skills=st.dictionaries(st.sampled_from(SKILLS), written, max_size=3))
        def begin(self, skills: dict[str, Written]) -> None:
            shown = (
                "; ".join(f"{s}: {_within(w, declared, 0).shown()}" for s, w in skills.items())
                or "no skill"
            )

            def action(context: ScenarioContext) -> None:
                for skill, skill_written in skills.items():
                    self.write(context, skill, skill_written)
                context.start()
                self.built(context)

            self.step(f"start on {shown}", action)

        @rule(skill=st.sampled_from(SKILLS), skill_written=written)
        def change(self, skill: str, skill_written: Written) -> None:
            def action(context: ScenarioContext) -> None:
                self.write(context, skill, skill_written)
                self.check(context)

            self.step(f"write {skill}: {_within(skill_written, declared, 0).shown()}", action)

        @rule(skill=st.sampled_from(SKILLS))
        def remove(self, skill: str) -> None:
            def action(context: ScenarioContext) -> None:
                if skill in self.model.disk:
                    del self.model.disk[skill]
                    context.world.remove_skill(skill)
                self.check(context)

            self.step(f"remove {skill}", action)

        @rule()
        def rebuild(self) -> None:
            if not has(Ability.POOL_REBUILD):
                return

            def action(context: ScenarioContext) -> None:
                context.rebuild()
                before = context.running_before_rebuild
                alive = wait_for_exit(before, timeout=5.0)
                expect(
                    not alive,
                    "MCP server processes of the replaced skill manager still run",
                    expected=f"the processes {sorted(before)} stopped by the rebuild",
                    observed=f"still running: {alive}",
                )
                self.built(context)

            self.step("rebuild", action)

        @rule()
        def enter_or_exit(self) -> None:
            if not has(Ability.LIFECYCLE):
                return
            entering = not self.model.entered

            def action(context: ScenarioContext) -> None:
                if entering:
                    context.enter()
                else:
                    context.exit()
                    running = context.wait_until_no_server_runs()
                    expect(
                        not running,
                        "MCP servers still run after the skill manager was exited",
                        expected="no server of the skills running",
                        observed=f"still running: {running}",
                    )
                self.model.entered = entering
                self.check(context)

            self.step("enter" if entering else "exit", action)

        @rule(pick=st.integers(min_value=0, max_value=7))
        def run_tool(self, pick: int) -> None:
            tools = _offered(self.model.built)
            if not tools:
                return
            tool = tools[pick % len(tools)]

            def action(context: ScenarioContext) -> None:
                if "__mcp__" in tool:
                    arguments, wanted = '{"text": "hi"}', f"{tool.split('__mcp__')[0]}-srv:echo:hi"
                elif tool.endswith("__loads"):
                    arguments, wanted = '{"s": "[1]"}', "[1]"
                else:
                    arguments, wanted = '{"obj": [1]}', "[1]"
                result = str(context.call_tool(tool, arguments).result)
                expect(
                    wanted in result,
                    f"calling {tool} did not return what its function or server gives",
                    expected=f"a result holding {wanted!r}",
                    observed=repr(result[:300]),
                )
                self.check(context)

            self.step(f"run {tool}", action)

        @rule(skill=st.sampled_from(SKILLS))
        def load(self, skill: str) -> None:
            if self.model.disk != self.model.built:
                return  # the directory changed since the build: what loads is not settled

            def action(context: ScenarioContext) -> None:
                written_ = self.model.built.get(skill)
                outcome = context.attempt(lambda: context.start().load_skill(skill))
                if written_ is not None and written_.broken != "skill":
                    wanted = f"Instructions of {skill}, version {written_.version}."
                    expect(
                        outcome.error is None and wanted in str(outcome.value),
                        f"load_skill({skill!r}) did not return the instructions last built",
                        expected=f"a text holding {wanted!r}",
                        observed=f"{outcome.error or repr(str(outcome.value)[:300])}",
                    )
                else:
                    expect(
                        isinstance(outcome.error, SkillSystemError)
                        and (
                            not has(Ability.ERROR_KINDS)
                            or outcome.error.kind is ErrorKind.NOT_FOUND
                        ),
                        f"load_skill({skill!r}) of a skill not loaded did not fail as not found",
                        expected="a not-found error",
                        observed=f"{outcome.error or repr(str(outcome.value)[:300])}",
                    )
                self.check(context)

            self.step(f"load {skill}", action)

        @rule()
        def list_skills(self) -> None:
            if self.model.disk != self.model.built:
                return

            def action(context: ScenarioContext) -> None:
                listed = sorted(entry.name for entry in context.start().list_skills())
                wanted = sorted(s for s, w in self.model.built.items() if w.broken != "skill")
                expect(
                    listed == wanted,
                    "list_skills does not list exactly the skills of the last build",
                    expected=f"exactly {wanted}",
                    observed=f"listed {listed}",
                )
                self.check(context)

            self.step("list", action)

    return SkillSequences


_EDGE: list[tuple[str, Mapping[str, Any]]] = [
    (
        "begin",
        {
            "skills": {
                "pdf": Written(("loads",), broken="tool"),
                "pdf-x": Written(FUNCTIONS, server=True),
                "x-pdf": Written(("dumps",), allowed=("dumps", ECHO), broken="server"),
            }
        },
    ),
    ("enter_or_exit", {}),
    ("run_tool", {"pick": 1}),
    ("change", {"skill": "pdf", "skill_written": Written(("dumps",), broken="skill")}),
    ("rebuild", {}),
    ("list_skills", {}),
    ("load", {"skill": "pdf"}),
    ("load", {"skill": "pdf-x"}),
    ("enter_or_exit", {}),
]
"""A failing tool, skill and server beside healthy skills whose names hold theirs; the manager
entered across a rebuild."""

SKILL_SEQUENCES = MachineProperty(
    name="skill-sequences", build=_machine, budget=3, steps=8, edges=(_EDGE,)
)
