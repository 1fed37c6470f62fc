"""Running a property: a clause checked over generated examples, against the implementation.

A :class:`Property` says what one example is (a Hypothesis strategy, and the edges of its domain,
always tried first), and how one example is checked: in a world of its own, on a system the
implementation opens, starts and closes for that example alone (:class:`Examples`). The expected
outcome is computed from the spec's rule by the property itself, never by asking the reference.

A run is bounded: at most :attr:`Property.budget` generated examples beyond the edges, and at most
:data:`SHRINK_BUDGET` more while a failing example is made smaller. It is deterministic: a fixed
seed (:data:`DEFAULT_SEED`, or ``--skill-conformance-seed N``), no example database. A failure is
the smallest failing example found, shown as the observation of the scenario's failure block.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, example, given, seed, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from skill_conformance.port import Ability, Implementation, Unsupported
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.world import World
from skill_conformance.verdicts import Mismatch

__all__ = [
    "DEFAULT_SEED",
    "SHRINK_BUDGET",
    "Examples",
    "MachineProperty",
    "Property",
    "Sequences",
    "check_machine",
    "check_property",
]

T = TypeVar("T")

DEFAULT_SEED = 0
"""The seed of every run that names none: the same examples, run after run."""
SHRINK_BUDGET = 40
"""Examples tried, at most, to make a failing example smaller; the smallest failing one found by
then is the one reported."""


@dataclass(frozen=True)
class Property(Generic[T]):
    """A clause's rule over its domain.

    Attributes:
        name: The name a spec's ``<!-- domain: <id> by <name> ... -->`` line gives.
        strategy: What one example is.
        edges: Examples always tried first, in order: the domain's edges.
        check: Checks one example in a fresh world: raises :class:`Mismatch` when the rule fails.
        show: The example as the failure block shows it.
        budget: Generated examples at most, beyond the edges.

    """

    name: str
    strategy: st.SearchStrategy[T]
    edges: Sequence[T]
    check: Callable[[Examples, T], None]
    show: Callable[[T], str] = repr
    budget: int = 10


@dataclass
class Examples:
    """Makes each example's world and system: nothing carries over from one example to the next."""

    implementation: Implementation
    root: Path
    timeout: float
    zygote: str | None
    needs: frozenset[Ability] | None
    count: int = 0
    contexts: list[ScenarioContext] = field(default_factory=list)

    @contextlib.contextmanager
    def fresh(self) -> Iterator[ScenarioContext]:
        """A scenario context on a world of its own, closed (its servers checked) at the end."""
        self.count += 1
        world = World(self.root / f"example-{self.count}", zygote=self.zygote)
        context = ScenarioContext(
            implementation=self.implementation, world=world, timeout=self.timeout, needs=self.needs
        )
        failed = True
        try:
            yield context
            failed = False
        finally:
            leftovers = context.close()
            if leftovers and not failed:
                raise Mismatch(
                    "the implementation left MCP server processes running after close",
                    expected="no process of the example running once it is closed",
                    observed=f"pids {leftovers} (killed)",
                )


@dataclass
class _Outcomes:
    """What each example gave, so that Hypothesis's final replay costs no second system."""

    known: dict[str, BaseException | None] = field(default_factory=dict)
    unsupported: Unsupported | None = None
    calls: int = 0


def check_property(prop: Property[Any], examples: Examples, chosen_seed: int) -> int:
    """Check ``prop`` over its edges and generated examples; how many examples were run.

    Raises:
        Mismatch: The rule fails on an example; its observation names the smallest one found.
        Unsupported: The implementation has no equivalent for an example the domain holds.

    """
    outcomes = _Outcomes()
    limit = len(prop.edges) + prop.budget + SHRINK_BUDGET

    def run_one(value: Any) -> None:
        key = repr(value)
        if key in outcomes.known:
            known = outcomes.known[key]
            if known is not None:
                raise known
            return
        if outcomes.unsupported is not None or outcomes.calls >= limit:
            return  # out of budget: what failed so far stands, nothing more is tried
        outcomes.calls += 1
        try:
            prop.check(examples, value)
        except Unsupported as unsupported:
            outcomes.unsupported = unsupported
            outcomes.known[key] = None
            return
        except Mismatch as mismatch:
            shown = Mismatch(
                mismatch.what,
                expected=mismatch.expected,
                observed=f"{mismatch.observed}; smallest failing example found: {prop.show(value)}",
            )
            outcomes.known[key] = shown
            raise shown from None
        except Exception as error:
            outcomes.known[key] = error
            raise
        outcomes.known[key] = None

    test = given(prop.strategy)(run_one)
    for edge in reversed(prop.edges):
        test = example(edge)(test)
    test = settings(
        max_examples=max(prop.budget, 1),
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
    )(test)
    test = seed(chosen_seed)(test)
    # Hypothesis keeps what it caches (its character tables) in .hypothesis/ of the working
    # directory, the user's: the scenario's own folder holds it instead.
    set_hypothesis_home_dir(examples.root / ".hypothesis")
    try:
        test()
    finally:
        set_hypothesis_home_dir(None)
    if outcomes.unsupported is not None:
        raise outcomes.unsupported
    return outcomes.calls


@dataclass(frozen=True)
class MachineProperty:
    """A clause's rule over sequences of operations: a Hypothesis state machine.

    Attributes:
        name: The name a spec's domain line gives.
        build: The machine's class for one run, given where its examples come from and a record
            shared by the machines of the run (:class:`Sequences`).
        budget: Sequences generated at most.
        steps: Steps of one sequence at most.
        edges: Sequences always run first, each a list of (rule, its arguments).

    """

    name: str
    build: Callable[[Examples, Sequences], type[RuleBasedStateMachine]]
    budget: int = 3
    steps: int = 8
    edges: Sequence[Sequence[tuple[str, Mapping[str, Any]]]] = ()


@dataclass
class Sequences:
    """What the sequences of one run gave, step by step, so that a replay costs no system.

    A sequence is the steps done so far, each described; a failure is known by the sequence
    that ended in it. Past the budget a new sequence is not run (its steps pass unchecked), so a
    shrink stops there and the smallest failing sequence found stands.
    """

    limit: int
    failures: dict[tuple[str, ...], BaseException] = field(default_factory=dict)
    unsupported: Unsupported | None = None
    runs: int = 0

    def admit(self) -> bool:
        """Whether one more sequence may run on a system of its own."""
        if self.unsupported is not None or self.runs >= self.limit:
            return False
        self.runs += 1
        return True


def check_machine(prop: MachineProperty, examples: Examples, chosen_seed: int) -> int:
    """Run ``prop``'s state machine over generated sequences; how many sequences were run.

    Raises:
        Mismatch: A step broke the rule; its observation names the smallest failing sequence.
        Unsupported: The implementation has no equivalent for an operation a step needed.

    """
    sequences = Sequences(limit=len(prop.edges) + prop.budget + SHRINK_BUDGET // 4)
    machine = seed(chosen_seed)(prop.build(examples, sequences))
    for edge in prop.edges:
        edge_run = machine()
        try:
            for rule_name, arguments in edge:
                getattr(edge_run, rule_name)(**arguments)
        finally:
            edge_run.teardown()
    set_hypothesis_home_dir(examples.root / ".hypothesis")
    try:
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=max(prop.budget, 1),
                stateful_step_count=prop.steps,
                database=None,
                deadline=None,
                phases=(Phase.generate, Phase.shrink),
                suppress_health_check=list(HealthCheck),
                report_multiple_bugs=False,
                print_blob=False,
                verbosity=Verbosity.quiet,
            ),
        )
    finally:
        set_hypothesis_home_dir(None)
    if sequences.unsupported is not None:
        raise sequences.unsupported
    return sequences.runs
