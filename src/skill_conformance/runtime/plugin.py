"""The pytest plugin that runs the generated features against an implementation.

With the options of :mod:`skill_conformance.runtime.options`, it turns the features'
``@key:value`` tags into ``spec`` markers, reports a scenario that needs an ability the adapter
lacks as not applicable (with the adapter's reason), classifies every scenario's verdict, and
prints a summary per capability and requirement at the end of the run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import pytest

from skill_conformance import __version__
from skill_conformance.bundled import spec_digest
from skill_conformance.expectations import ExpectationsError
from skill_conformance.expectations_apply import AppliedExpectations, apply_expectations
from skill_conformance.port import Ability, Implementation
from skill_conformance.results import Header, Results, write_results
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.world import World
from skill_conformance.verdicts import NOT_APPLICABLE, Ledger, ScenarioInfo, verdict_of

__all__ = ["NOT_APPLICABLE"]

_LEDGER = pytest.StashKey[Ledger]()
_COLLECTED: dict[str, ScenarioInfo] = {}
"""Scenarios collected in this process (under xdist: in this worker)."""
_IMPLEMENTATION = pytest.StashKey[Implementation]()
_EXPECTATIONS = pytest.StashKey[AppliedExpectations]()
_HEADER = pytest.StashKey[Header]()


class _JunitXml(Protocol):
    def add_global_property(self, name: str, value: object) -> None: ...


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's marker and the ledger that collects verdicts from reports."""
    config.addinivalue_line("markers", "spec(key, value): a tag of the generated features")
    ledger = Ledger()
    config.stash[_LEDGER] = ledger
    config.pluginmanager.register(_LedgerRecorder(ledger), "skill-conformance-ledger")


class _LedgerRecorder:
    """Records verdicts from reports, where they arrive: in-process or from xdist workers."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the verdict that :func:`pytest_runtest_makereport` attached to ``report``."""
        self.ledger.record_report(report)


def implementation_of(config: pytest.Config) -> Implementation:
    """The implementation this run tests, imported on first use."""
    if _IMPLEMENTATION not in config.stash:
        config.stash[_IMPLEMENTATION] = load_implementation(config.getoption("--impl"))
    return config.stash[_IMPLEMENTATION]


@pytest.hookimpl(tryfirst=True)
def pytest_bdd_apply_tag(tag: str, function: Callable[..., object]) -> bool | None:
    """Turn tags into ``spec`` markers: ``@key:value`` by key, a bare ``@word`` as ``tag``.

    pytest-bdd's default would make each tag a marker of its own name, which ``--strict-markers``
    rejects for every tag nobody registered.
    """
    key, colon, value = tag.partition(":")
    pytest.mark.spec(key, value)(function) if colon else pytest.mark.spec("tag", tag)(function)
    return True


def _spec_tags(item: pytest.Item) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for marker in item.iter_markers("spec"):
        key, value = marker.args
        tags.setdefault(key, []).append(value)
    return tags


def _info(item: pytest.Item) -> ScenarioInfo | None:
    tags = _spec_tags(item)
    if "id" not in tags:
        return None
    feature, scenario, rule = _names(item)
    return ScenarioInfo(
        nodeid=item.nodeid,
        capability=tags.get("capability", ["?"])[0],
        requirement=rule or tags.get("requirement", ["?"])[0],
        scenario=scenario,
        feature=feature,
        scenario_id=tags["id"][0],
        needs=tuple(tags.get("needs", ())),
        requirement_slug=tags.get("requirement", [""])[0],
    )


def _names(item: pytest.Item) -> tuple[str, str, str | None]:
    import importlib

    bdd_scenario = importlib.import_module("pytest_bdd.scenario")
    function = getattr(item, "obj", None)
    registry = getattr(bdd_scenario, "scenario_wrapper_template_registry", {})
    template = registry.get(function) if function is not None else None
    if template is None:
        return "?", item.name, None
    rule = template.rule.name if template.rule is not None else None
    return template.feature.name, template.name, rule


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Record which scenarios were collected, for the summary."""
    for item in items:
        info = _info(item)
        if info is not None:
            _COLLECTED[item.nodeid] = info
    if _COLLECTED:
        try:
            implementation = implementation_of(config)
            applied = apply_expectations(config, implementation, items, _COLLECTED)
        except (AdapterLoadError, ExpectationsError) as error:
            pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
        config.stash[_EXPECTATIONS] = applied


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip, as not applicable, a scenario whose needs the implementation lacks."""
    needs = _spec_tags(item).get("needs", [])
    if not needs:
        return
    implementation = implementation_of(item.config)
    unsupported = dict(implementation.unsupported)
    if Ability.SYMLINKS.value in needs and not _can_symlink():
        unsupported.setdefault(Ability.SYMLINKS, "this platform cannot create symbolic links")
    for need in needs:
        try:
            ability = Ability(need)
        except ValueError:
            pytest.fail(f"scenario needs unknown ability {need!r}", pytrace=False)
        if ability in unsupported:
            pytest.skip(f"{NOT_APPLICABLE}: {implementation.name}: {unsupported[ability]}")


def _can_symlink() -> bool:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        try:
            os.symlink("target", Path(directory) / "link")
        except OSError:
            return False
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Classify each scenario's verdict; attach it to the report for JUnit and the summary."""
    report = yield
    info = _COLLECTED.get(item.nodeid)
    if info is not None:
        verdict = verdict_of(report, call)
        if verdict is not None:
            report.user_properties.extend(info.as_properties(verdict))
    return report


def header_of(config: pytest.Config) -> Header | None:
    """The run's header, or ``None`` while the adapter cannot be loaded."""
    if _HEADER not in config.stash:
        try:
            implementation = implementation_of(config)
        except AdapterLoadError:
            return None
        config.stash[_HEADER] = Header(
            suite_version=__version__,
            spec_digest=spec_digest(),
            adapter=implementation.name,
            adapter_version=implementation.version,
            impl=config.getoption("--impl"),
        )
    return config.stash[_HEADER]


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Name the suite, the specs and the implementation under test at the top of the run."""
    header = header_of(config)
    if header is None:
        return [f"skill-conformance: --impl {config.getoption('--impl')} (cannot be loaded)"]
    return [header.line()]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Put the header into JUnit XML and write ``--conformance-results`` (not in xdist workers)."""
    config = session.config
    ledger = config.stash[_LEDGER]
    if hasattr(config, "workerinput") or not ledger.verdicts:
        return
    header = header_of(config)
    if header is None:
        return
    junit = _junit_xml(config)
    if junit is not None:
        for name, value in header.properties():
            junit.add_global_property(name, value)
    path: Path | None = config.getoption("--conformance-results")
    if path is not None:
        created = datetime.now(UTC).isoformat(timespec="seconds")
        write_results(path, Results(header, tuple(ledger.results()), created, int(exitstatus)))


def _junit_xml(config: pytest.Config) -> _JunitXml | None:
    """The JUnit XML writer of this run, if ``--junitxml`` was given."""
    from _pytest.junitxml import xml_key  # what the record_testsuite_property fixture uses

    return config.stash.get(xml_key, None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the per-capability, per-requirement summary."""
    ledger = terminalreporter.config.stash[_LEDGER]
    if not ledger.verdicts:
        return
    implementation = implementation_of(terminalreporter.config)
    terminalreporter.section(f"skill-conformance: {implementation.name} {implementation.version}")
    applied = terminalreporter.config.stash.get(_EXPECTATIONS, None)
    if applied is not None:
        for line in applied.describe():
            terminalreporter.write_line(line)
    header = header_of(terminalreporter.config)
    if header is not None:
        terminalreporter.write_line(header.line())
    width = max(80, shutil.get_terminal_size((100, 24)).columns)
    for line in ledger.summary_lines(width):
        terminalreporter.write_line(line)


@pytest.fixture
def conformance(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ScenarioContext]:
    """The context of one scenario: its world, its system under test, what steps observed."""
    context = ScenarioContext(
        implementation=implementation_of(request.config),
        world=World(tmp_path),
        timeout=request.config.getoption("--scenario-timeout"),
    )
    yield context
    leftovers = context.close()
    if leftovers:
        pytest.fail(
            f"{context.implementation.name} left MCP server processes running after close: "
            f"{leftovers} (killed)",
            pytrace=False,
        )
