"""Steps of the property scenarios: a clause checked over its domain (``@property:<name>``).

The generator writes one such scenario for each clause whose spec states a domain with a property
(``<!-- domain: <id> by <property> ...: ... -->``); these steps run that property through the port,
against the implementation under test, with the run's seed and the property's budget.
"""

from __future__ import annotations

import pytest
from pytest_bdd import given, then, when

from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.steps._parsing import step
from skill_conformance.steps.properties import PROPERTIES
from skill_conformance.steps.property_runner import (
    DEFAULT_SEED,
    Examples,
    MachineProperty,
    check_machine,
    check_property,
)

SEED_OPTION = "skill_conformance_seed"


def run_seed(config: pytest.Config) -> int:
    """The seed of this run's properties: ``--skill-conformance-seed``, or the fixed default."""
    value = config.getoption(SEED_OPTION, None)
    return DEFAULT_SEED if value is None else int(value)


@given(step("the domain of `{clause:v}`"))
def given_domain(conformance: ScenarioContext, clause: str) -> None:
    """The domain is the scenario's description; nothing to set up before the property runs."""


@when(step("the property `{name:v}` is checked over generated examples"))
def when_property_checked(
    conformance: ScenarioContext, pytestconfig: pytest.Config, name: str
) -> None:
    prop = PROPERTIES[name]
    examples = Examples(
        implementation=conformance.implementation,
        root=conformance.world.root / "examples",
        timeout=conformance.timeout,
        zygote=conformance.world.servers.zygote,
        needs=conformance.needs,
    )
    if isinstance(prop, MachineProperty):
        check_machine(prop, examples, run_seed(pytestconfig))
    else:
        check_property(prop, examples, run_seed(pytestconfig))


@then("it holds for every example")
def then_holds(conformance: ScenarioContext) -> None:
    """The property raised no mismatch: it held for every example tried."""
