"""The pytest plugin that runs the generated features against an implementation.

With the options of :mod:`skill_conformance.runtime.options`, it turns the features'
``@key:value`` tags into ``spec`` markers, applies the expectations file, reports a scenario
that needs an ability the adapter lacks as not applicable (with the adapter's reason), and
registers :class:`~skill_conformance.verdicts.reporting.Reporting`, which classifies every
scenario's verdict and shows it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from skill_conformance import __version__
from skill_conformance.bundled import spec_digest
from skill_conformance.port import Ability, Implementation
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.world import World
from skill_conformance.verdicts.expectations import ExpectationsError
from skill_conformance.verdicts.expectations_apply import AppliedExpectations, apply_expectations
from skill_conformance.verdicts.ledger import ScenarioInfo
from skill_conformance.verdicts.reporting import Reporting, mark_not_applicable
from skill_conformance.verdicts.results import Header

_COLLECTED: dict[str, ScenarioInfo] = {}
"""Scenarios collected in this process (under xdist: in this worker)."""
_IMPLEMENTATION = pytest.StashKey[Implementation]()
_EXPECTATIONS = pytest.StashKey[AppliedExpectations]()
_HEADER = pytest.StashKey[Header]()


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's marker and the hooks that classify and show the verdicts."""
    config.addinivalue_line("markers", "spec(key, value): a tag of the generated features")
    reporting = Reporting(
        config, _COLLECTED, lambda: header_of(config), lambda: _expectation_notes(config)
    )
    config.pluginmanager.register(reporting, "skill-conformance-reporting")


def _expectation_notes(config: pytest.Config) -> list[str]:
    applied = config.stash.get(_EXPECTATIONS, None)
    return applied.describe() if applied is not None else []


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
    feature, scenario, rule, path, line = _names(item)
    return ScenarioInfo(
        nodeid=item.nodeid,
        capability=tags.get("capability", ["?"])[0],
        requirement=rule or tags.get("requirement", ["?"])[0],
        scenario=scenario,
        feature=feature,
        scenario_id=tags["id"][0],
        needs=tuple(tags.get("needs", ())),
        requirement_slug=tags.get("requirement", [""])[0],
        path=_shown(path, item.config.rootpath),
        line=line,
    )


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` where it lies below it, else whole."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _names(item: pytest.Item) -> tuple[str, str, str | None, Path, int]:
    """The feature's name, the scenario's, its rule's, the feature file and the scenario's line."""
    import importlib

    bdd_scenario = importlib.import_module("pytest_bdd.scenario")
    function = getattr(item, "obj", None)
    registry = getattr(bdd_scenario, "scenario_wrapper_template_registry", {})
    template = registry.get(function) if function is not None else None
    if template is None:
        return "?", item.name, None, item.path, 0
    rule = template.rule.name if template.rule is not None else None
    feature = template.feature
    return feature.name, template.name, rule, Path(feature.filename), template.line_number


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
            mark_not_applicable(item, f"{implementation.name}: {unsupported[ability]}")


def _can_symlink() -> bool:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        try:
            os.symlink("target", Path(directory) / "link")
        except OSError:
            return False
    return True


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
