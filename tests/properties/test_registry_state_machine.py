"""Stateful property: the extension registry never holds a stale skill, whatever the sequence.

Skills are added to, changed in and removed from the skills directory on disk, and the pool is
rebuilt, in any order. After every step the registry lists (at pool and turn scope) exactly the
skills of the last build, each once; ``resolve_uri`` finds each of them with the instructions it had
on disk at that build and refuses every other name; and the agent is offered exactly the Python
tools of those skills. Names are drawn from a small set of prefixes of each other.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from property_helpers import budget

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import ErrorKind, Scope, SkillSystemError
from skill_conformance.runtime.blocking import BlockingSkillSystem, blocking
from skill_conformance.runtime.world import World

NAMES = st.sampled_from(["a", "ab", "a-b", "a-b-c", "b"])


class RegistryMachine(RuleBasedStateMachine):
    """The disk, the model of the last build, and the reference's pool opened on the disk."""

    def __init__(self) -> None:
        super().__init__()
        self._directory = tempfile.TemporaryDirectory(prefix="sc-state-")
        self.world = World(Path(self._directory.name))
        self.on_disk: dict[str, tuple[str, bool]] = {}
        """Skill name -> (its instructions, whether it has a Python tool ``ping``)."""
        self.built: dict[str, tuple[str, bool]] = {}
        self.version = 0
        self.system: BlockingSkillSystem | None = None

    @initialize(names=st.lists(NAMES, unique=True, max_size=3))
    def start(self, names: list[str]) -> None:
        for name in names:
            self._put(name, with_tool=False)
        self.world.write()
        setup = self.world.setup()
        self.system = blocking(ReferenceImplementation().open(setup), 30.0)
        self.system.start()
        self.built = dict(self.on_disk)

    def _put(self, name: str, *, with_tool: bool) -> None:
        self.version += 1
        text = f"Instructions of {name}, version {self.version}."
        self.world.skill(name).instructions = text
        has_tool = with_tool or self.on_disk.get(name, ("", False))[1]
        if with_tool and not self.on_disk.get(name, ("", False))[1]:
            self.world.add_python_tool(name, "ping")
        self.on_disk[name] = (text, has_tool)

    @rule(name=NAMES, with_tool=st.booleans())
    def add_or_change(self, name: str, with_tool: bool) -> None:
        self._put(name, with_tool=with_tool)
        self.world.write()

    @rule(name=NAMES)
    def remove(self, name: str) -> None:
        if name in self.on_disk:
            del self.on_disk[name]
            self.world.remove_skill(name)

    @rule()
    def rebuild(self) -> None:
        assert self.system is not None
        self.system.rebuild()
        self.built = dict(self.on_disk)

    @invariant()
    def registry_holds_exactly_the_last_build(self) -> None:
        if self.system is None:
            return
        for scope in (Scope.POOL, Scope.TURN):
            names = list(self.system.registry_skill_names(scope))
            assert sorted(names) == sorted(self.built), (scope, names, self.built)
        for name in ["a", "ab", "a-b", "a-b-c", "b"]:
            if name in self.built:
                resolved = self.system.resolve_uri(f"skill://{name}")
                assert (resolved.name, resolved.instructions) == (name, self.built[name][0])
            else:
                with pytest.raises(SkillSystemError) as refused:
                    self.system.resolve_uri(f"skill://{name}")
                assert refused.value.kind is ErrorKind.NOT_FOUND
        tools = [f"{name}__tool__ping" for name, (_, tool) in self.built.items() if tool]
        assert sorted(self.system.tool_names()) == sorted(tools)
        assert list(self.system.problems()) == []

    def teardown(self) -> None:
        try:
            if self.system is not None:
                self.system.close()
        finally:
            self.world.teardown()
            self._directory.cleanup()


RegistryMachine.TestCase.settings = budget(8, stateful_step_count=8)
test_registry_never_holds_a_stale_skill = RegistryMachine.TestCase
