"""The pytest plugin that runs the generated features against an implementation.

With the options of :mod:`skill_conformance.runtime.options`, it turns the features'
``@key:value`` tags into ``spec`` markers, applies the expectations file, reports a scenario that
needs abilities the adapter lacks as not applicable (with the adapter's reasons), and so a
scenario in which an operation raises :class:`~skill_conformance.port.Unsupported`, and
registers :class:`~skill_conformance.verdicts.reporting.Reporting`, which classifies every
scenario's verdict and shows it.

An interrupt (Ctrl-C, or SIGTERM, which the plugin turns into the same interrupt) stops the run:
the call in flight is cut short, the scenario in flight gets no verdict, every system and server
is closed, and ``--conformance-results`` is written marked ``"interrupted": true``.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path

import pytest

from skill_conformance import __version__
from skill_conformance.bundled import spec_digest
from skill_conformance.options import (
    OptionError,
    positive_seconds,
    whole_mib,
    worker_count,
    writable_file,
)
from skill_conformance.port import Ability, Implementation, Unsupported, cannot_drive, fork_safe
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.interrupts import raise_on_sigterm
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.memory import MemoryCap, cap_memory
from skill_conformance.runtime.parallel import Plan, plan_workers, run_in_workers
from skill_conformance.runtime.world import World
from skill_conformance.testing.zygote import Zygote
from skill_conformance.verdicts.block import TRACEBACK_OPTION
from skill_conformance.verdicts.expectations import ExpectationsError
from skill_conformance.verdicts.expectations_apply import AppliedExpectations, apply_expectations
from skill_conformance.verdicts.ledger import ScenarioInfo
from skill_conformance.verdicts.reporting import (
    Reporting,
    mark_cannot_drive,
    mark_not_applicable,
)
from skill_conformance.verdicts.results import Header

_COLLECTED: dict[str, ScenarioInfo] = {}
"""Scenarios collected in this process (under xdist: in this worker)."""
_IMPLEMENTATION = pytest.StashKey[Implementation]()
_EXPECTATIONS = pytest.StashKey[AppliedExpectations]()
_HEADER = pytest.StashKey[Header]()
_SIGTERM_HANDLED = pytest.StashKey[bool]()
_TIMEOUT = pytest.StashKey[float]()
_MEMORY_LIMIT = pytest.StashKey[int]()
_MEMORY = pytest.StashKey[MemoryCap]()
_ZYGOTE = pytest.StashKey[Zygote]()
_FROZEN = pytest.StashKey[bool]()
_WORKERS = pytest.StashKey[int | None]()
_PLAN = pytest.StashKey[Plan]()


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's marker and the hooks that classify and show the verdicts."""
    config.addinivalue_line("markers", "spec(key, value): a tag of the generated features")
    _check_options(config)
    reporting = Reporting(config, _COLLECTED, lambda: header_of(config), lambda: _notes(config))
    config.pluginmanager.register(reporting, "skill-conformance-reporting")
    if _aims_at_steps(config):
        config.stash[_MEMORY] = cap_memory(config.stash[_MEMORY_LIMIT])
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # leave others' handlers
        config.stash[_SIGTERM_HANDLED] = True
        signal.signal(signal.SIGTERM, raise_on_sigterm)


def _check_options(config: pytest.Config) -> None:
    """Refuse, in one line and before any scenario runs, an option the run could not honour."""
    try:
        config.stash[_TIMEOUT] = positive_seconds(
            "--scenario-timeout", config.getoption("--scenario-timeout")
        )
        config.stash[_MEMORY_LIMIT] = whole_mib(
            "--memory-limit", config.getoption("--memory-limit")
        )
        config.stash[_WORKERS] = worker_count(
            "--scenario-workers", config.getoption("--scenario-workers")
        )
        results: Path | None = config.getoption("--conformance-results")
        if results is not None and not hasattr(config, "workerinput"):
            writable_file("--conformance-results", results)
    except OptionError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the zygote (and any server it still runs); give SIGTERM back its default action."""
    zygote = config.stash.get(_ZYGOTE, None)
    if zygote is not None:
        zygote.stop()
    memory = config.stash.get(_MEMORY, None)
    if memory is not None:
        memory.release()
    if config.stash.get(_FROZEN, False):
        gc.unfreeze()
    if config.stash.get(_SIGTERM_HANDLED, False):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _notes(config: pytest.Config) -> list[str]:
    """The lines above the summary: the expectations file applied; the workers, if any."""
    applied = config.stash.get(_EXPECTATIONS, None)
    plan = config.stash.get(_PLAN, None)
    notes = applied.describe() if applied is not None else []
    return [*notes, plan.note] if plan is not None and plan.note else notes


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


def spec_tags(item: pytest.Item) -> dict[str, list[str]]:
    """The values of an item's feature tags by key (``@id:x`` gives ``{"id": ["x"]}``)."""
    tags: dict[str, list[str]] = {}
    for marker in item.iter_markers("spec"):
        key, value = marker.args
        tags.setdefault(key, []).append(value)
    return tags


def _info(item: pytest.Item) -> ScenarioInfo | None:
    tags = spec_tags(item)
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
        path=path,
        line=line,
    )


def _names(item: pytest.Item) -> tuple[str, str, str | None, str, int]:
    """The feature's name, the scenario's, its rule's, the feature file and the scenario's line.

    The feature file is as Cucumber JSON names it: ``features/skill-tools.feature``, below the
    features directory's parent, in a checkout and in the installed wheel alike.
    """
    import importlib

    bdd_scenario = importlib.import_module("pytest_bdd.scenario")
    function = getattr(item, "obj", None)
    registry = getattr(bdd_scenario, "scenario_wrapper_template_registry", {})  # pytest-bdd 9
    template = registry.get(function) if function is not None else None
    template = template or getattr(function, "__scenario__", None)  # pytest-bdd 8
    if template is None:
        return "?", item.name, None, item.nodeid.partition("::")[0], 0
    rule = template.rule.name if template.rule is not None else None
    feature = template.feature
    return feature.name, template.name, rule, feature.rel_filename, template.line_number


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


def _needs(item: pytest.Item) -> frozenset[Ability]:
    """The abilities a scenario's ``@needs`` tags name; an unknown one fails the scenario."""
    needs = set()
    for need in spec_tags(item).get("needs", []):
        try:
            needs.add(Ability(need))
        except ValueError:
            pytest.fail(f"scenario needs unknown ability {need!r}", pytrace=False)
    return frozenset(needs)


def missing_abilities(needs: frozenset[Ability], unsupported: Mapping[Ability, str]) -> str | None:
    """Why a scenario needing ``needs`` is not applicable: every lacking ability, with its reason.

    ``None`` when nothing it needs is lacking.
    """
    lacking = [ability for ability in Ability if ability in needs and ability in unsupported]
    if not lacking:
        return None
    return "; ".join(f"{ability.value}: {unsupported[ability]}" for ability in lacking)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Take what start-up and collection built out of the cyclic garbage collector's way.

    The modules imported, the features parsed and the items live until the run ends, yet every
    full collection during the scenarios walked them all again (measured: 0.7 s of collecting
    garbage after collection, 0.3 s frozen). Frozen, they are never scanned (nor freed: they
    would not have been); :func:`pytest_unconfigure` gives them back to the collector.
    """
    if _aims_at_steps(session.config):
        gc.freeze()
        session.config.stash[_FROZEN] = True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """Run the scenarios in workers forked now, when the run and the machine suit it.

    ``None`` leaves the run to pytest's own loop, in this process.
    """
    config = session.config
    collection_failed = session.testsfailed and not config.option.continue_on_collection_errors
    if config.option.collectonly or collection_failed or not _COLLECTED:
        return None
    plan = plan_workers(
        session.items,
        config.stash[_WORKERS],
        is_scenario=lambda item: item.nodeid in _COLLECTED,
        memory_limit_mib=config.stash[_MEMORY_LIMIT],
        unsuitable=_unsuitable_for_workers(config),
    )
    config.stash[_PLAN] = plan
    if plan.workers < 2:
        return None
    why_not = run_in_workers(session, plan.workers, in_worker=lambda: _leave_zygote(config))
    if why_not is not None:
        config.stash[_PLAN] = Plan(1, f"scenarios ran in this process: {why_not}")
        return None
    return True


def _unsuitable_for_workers(config: pytest.Config) -> str | None:
    """Why this run (its implementation, its options) needs the scenarios in this process."""
    implementation = implementation_of(config)
    if not fork_safe(implementation):
        return f"{implementation.name} does not declare itself fork_safe (docs/porting.md)"
    option = config.option
    if getattr(option, "usepdb", False) or getattr(option, "trace", False):
        return "--pdb and --trace debug in this process"
    if any(getattr(option, name, False) for name in ("setuponly", "setupplan", "setupshow")):
        return "--setup-show, --setup-only and --setup-plan print from this process"
    if config.getoption("log_cli_level", None) is not None or config.getini("log_cli"):
        return "live logging (log_cli) prints from this process"
    if _xdist_controller(config) or hasattr(config, "workerinput"):
        return "pytest-xdist distributes them"
    if _traced():
        return "a tracer (coverage, a debugger) watches this process, and not its workers"
    return None


def _traced() -> bool:
    """Whether a trace function or a ``sys.monitoring`` tool (coverage's, say) is installed."""
    if sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+
    return monitoring is not None and any(monitoring.get_tool(tool) for tool in range(6))


def _leave_zygote(config: pytest.Config) -> None:
    zygote = config.stash.get(_ZYGOTE, None)
    if zygote is not None:
        zygote.leave()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the zygote now when this run is aimed at the scenarios: it warms up meanwhile."""
    config = session.config
    if not config.option.collectonly and not _xdist_controller(config) and _aims_at_steps(config):
        _zygote_address(config)


def _xdist_controller(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def _aims_at_steps(config: pytest.Config) -> bool:
    """Whether the run's paths (or, without any, its testpaths) include a ``steps`` directory."""
    paths = config.args or [str(config.rootpath / p) for p in config.getini("testpaths")]
    return any("steps" in Path(arg.partition("::")[0]).parts for arg in paths)


ZYGOTE_VARIABLE = "SKILL_CONFORMANCE_ZYGOTE"
"""Names the address of a zygote that an outer process owns, to be used instead of one's own."""


def _zygote_address(config: pytest.Config) -> str | None:
    """The zygote's address: the outer one, else this run's, started on first use; or ``None``.

    ``None`` (each server imports ``mcp`` itself) with ``--no-zygote``.
    """
    if config.getoption("--no-zygote"):
        return None
    outer = os.environ.get(ZYGOTE_VARIABLE)
    if outer:
        return outer
    if _ZYGOTE not in config.stash:
        config.stash[_ZYGOTE] = Zygote()
    return config.stash[_ZYGOTE].address


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Have pytest format a scenario's exception as a plain traceback, unless it will be shown.

    Without ``--scenario-traceback`` nobody reads pytest's own traceback of a scenario: a failure
    shows the suite's block instead, an expected failure its reason. pytest's default style parses
    the source file of every frame, once per failure: most of a run's time where many scenarios
    fail deep inside a large implementation. The plain style reads only the lines it prints.
    """
    option = item.config.option
    if (
        call.excinfo is None
        or item.nodeid not in _COLLECTED
        or item.config.getoption(TRACEBACK_OPTION)
        or option.tbstyle != "auto"
    ):
        return (yield)
    option.tbstyle = "native"
    try:
        return (yield)
    finally:
        option.tbstyle = "auto"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a scenario whose needs the implementation lacks, or that its adapter cannot drive."""
    undriven = cannot_drive(implementation_of(item.config)) if item.nodeid in _COLLECTED else None
    if undriven is not None:
        mark_cannot_drive(item, undriven)
    needs = _needs(item)
    if not needs:
        return
    implementation = implementation_of(item.config)
    unsupported = dict(implementation.unsupported)
    if Ability.SYMLINKS in needs and not _can_symlink():
        unsupported.setdefault(Ability.SYMLINKS, "this platform cannot create symbolic links")
    reason = missing_abilities(needs, unsupported)
    if reason is not None:
        mark_not_applicable(item, f"{implementation.name}: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Report a scenario whose implementation raised :class:`Unsupported` as not applicable."""
    try:
        return (yield)
    except Unsupported as unsupported:
        name = implementation_of(item.config).name
        mark_not_applicable(item, f"{name}: {unsupported.reason}")


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
        world=World(tmp_path, zygote=_zygote_address(request.config)),
        timeout=request.config.stash[_TIMEOUT],
        needs=_needs(request.node) if spec_tags(request.node).get("id") else None,
    )
    yield context
    leftovers = context.close()
    if leftovers:
        pytest.fail(
            f"{context.implementation.name} left MCP server processes running after close: "
            f"{leftovers} (killed)",
            pytrace=False,
        )
