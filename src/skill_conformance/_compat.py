"""Every private name of pytest and pytest-bdd the suite uses, each for what no public API does.

Each function names the versions it was checked against; ``tests/runs/test_compat.py`` runs
them at the locked pins and ``make conformance-oldest`` runs the suite at the oldest.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

import pytest

__all__ = ["junit_error", "junit_writer", "named_mark", "scenario_of", "steps_not_run"]


class _JunitNode(Protocol):
    def add_attribute(self, name: str, value: object) -> None: ...
    def add_property(self, name: str, value: object) -> None: ...


class JunitWriter(Protocol):
    """pytest's JUnit XML writer, as far as the suite uses it."""

    def add_global_property(self, name: str, value: object) -> None: ...
    def node_reporter(self, report: pytest.TestReport) -> _JunitNode: ...


def scenario_of(function: object) -> Any | None:
    """pytest-bdd's scenario (feature, rule, name, line) a test function runs, or ``None``.

    pytest-bdd 9 keeps it in a registry, 8 on the function.
    """
    module = importlib.import_module("pytest_bdd.scenario")
    registry = getattr(module, "scenario_wrapper_template_registry", None)
    found = registry.get(function) if registry is not None else None
    return found if found is not None else getattr(function, "__scenario__", None)


def steps_not_run(item: pytest.Item) -> None:
    """Record in pytest-bdd's report of ``item`` that none of its steps ran.

    Cucumber JSON then lists the scenario with each step ``skipped``: a scenario skipped before
    its first step would otherwise be left out of the file. pytest-bdd 9 keeps the report in a
    registry, 8 on the item.
    """
    module = importlib.import_module("pytest_bdd.reporting")
    registry = getattr(module, "scenario_reports_registry", None)
    report = registry.get(item) if registry is not None else None
    report = report if report is not None else getattr(item, "__scenario_report__", None)
    if report is None:
        return
    for step in report.scenario.steps:
        step_report = module.StepReport(step=step)
        step_report.finalize(failed=True)
        report.add_step_report(step_report)


def named_mark(name: str) -> pytest.MarkDecorator:
    """A marker named ``name`` whatever it holds (``needs:mcp``), for ``-m`` to select by.

    ``pytest.mark.NAME`` refuses, under ``--strict-markers``, a name the ``markers`` setting
    cannot register, and a colon ends a name there. The decorator is built as ``pytest.mark``
    builds it (pytest 8 and 9).
    """
    from _pytest.mark.structures import Mark

    return pytest.MarkDecorator(Mark(name, (), {}, _ispytest=True), _ispytest=True)


def junit_writer(config: pytest.Config) -> JunitWriter | None:
    """The JUnit XML writer of this run (``--junitxml``), as ``record_testsuite_property`` uses."""
    from _pytest.junitxml import xml_key

    writer: JunitWriter | None = config.stash.get(xml_key, None)
    return writer


def junit_error(config: pytest.Config, report: pytest.TestReport) -> None:
    """Make the ``<failure>`` JUnit XML recorded last for ``report`` an ``<error>``.

    pytest writes ``<error>`` only for a failed setup or teardown; a scenario that crashed in its
    steps is an error all the same. Its writer keeps the elements of a test case and the counts of
    each kind (pytest 8 and 9).
    """
    writer: Any = junit_writer(config)
    if writer is None:
        return
    reporter = writer.node_reporter(report)
    for node in reversed(reporter.nodes):
        if node.tag == "failure":
            node.tag = "error"
            writer.stats["failure"] -= 1
            writer.stats["error"] += 1
            return
