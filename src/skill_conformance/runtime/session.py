"""The suite's pytest hooks, each handing its work to the run's :class:`ConformanceRun`.

Loaded by :mod:`.options` (the ``pytest11`` entry point) when a run names an implementation, with
the step definitions listed in ``pytest_plugins`` and :mod:`.interrupts`. An interrupt (Ctrl-C,
or SIGTERM, which the run turns into the same interrupt) stops the run: the call in flight is cut
short, the scenario in flight gets no verdict, every system and server is closed, and the results
file is written marked ``"interrupted": true``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from skill_conformance import _compat
from skill_conformance.port import Unsupported
from skill_conformance.runtime import interrupts
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.markers import MARKERS, registered_names, unknown_markers
from skill_conformance.runtime.run import ConformanceRun

pytest_plugins = [
    "skill_conformance.steps.shared",
    "skill_conformance.steps.skill_manager_cap",
    "skill_conformance.steps.extension_registry",
    "skill_conformance.steps.agent_factory",
    "skill_conformance.steps.skill_tool_registration",
    "skill_conformance.steps.skill_tools",
    "skill_conformance.steps.skill_loading",
    "skill_conformance.steps.mcp_skills",
    "skill_conformance.steps.mcp_skills_host",
    "skill_conformance.steps.domains",
]

_RUN = pytest.StashKey[ConformanceRun]()
_TAGS: set[str] = set()
"""Every tag of the features, as pytest-bdd applies them: the markers ``-m`` can name."""


def run_of(config: pytest.Config) -> ConformanceRun:
    """The run ``config`` configured."""
    return config.stash[_RUN]


def pytest_configure(config: pytest.Config) -> None:
    """Start the run: its options checked, its implementation loaded, its marker registered."""
    config.addinivalue_line("markers", "spec(key, value): a tag of the generated features")
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    if config.getoption("numprocesses", None) and config.getoption("cucumber_json_path", None):
        # pytest-bdd keeps a scenario's steps beside its report in the process that ran it: the
        # controller of pytest-xdist's workers would write an empty list.
        raise pytest.UsageError(
            "--cucumberjson cannot be written under pytest-xdist (-n): run without -n, or write "
            "--junitxml or --skill-conformance-results instead"
        )
    # Registered, not listed in pytest_plugins: `run` imported it before pytest started, and a
    # listed module already imported is one pytest 8.0 warns it cannot rewrite (an error here).
    config.pluginmanager.register(interrupts, interrupts.__name__)
    config.stash[_RUN] = ConformanceRun.start(config)
    if config.inipath == _SUITE_INI:  # `skill-conformance run`, from wherever the user is
        # Test ids as the run names them (steps/test_conformance.py::test_x), not by the way
        # from the user's directory into the installed package (../.venv/lib/.../site-packages/
        # skill_conformance/steps/...), in -v's lines and the short summary's FAILED lines.
        config.cwd_relative_nodeid = _as_given  # type: ignore[method-assign,assignment]


_SUITE_INI = Path(__file__).with_name("suite.ini")


def _as_given(nodeid: str) -> str:
    return nodeid


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the run's servers; give back what it took."""
    if _RUN in config.stash:
        config.stash[_RUN].stop()


@pytest.hookimpl(tryfirst=True)
def pytest_bdd_apply_tag(tag: str, function: Callable[..., object]) -> bool | None:
    """Mark a scenario with each tag: ``@needs:mcp`` as the marker ``needs:mcp`` (``-m``, ``-k``).

    Also as ``spec(key, value)``, by which the suite reads them. pytest-bdd's own would refuse,
    under ``--strict-markers``, every tag nobody registered.
    """
    key, colon, value = tag.partition(":")
    pytest.mark.spec(key, value)(function) if colon else pytest.mark.spec("tag", tag)(function)
    _compat.named_mark(tag)(function)
    _TAGS.add(tag)
    return True


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Name the suite, the specs and the implementation under test at the top of the run."""
    run = run_of(config)
    seed = "0 (fixed)" if run.options.seed is None else str(run.options.seed)
    return [
        run.header.line(),
        f"property scenarios: seed {seed} (--skill-conformance-seed N varies it), each example "
        "on a system of its own, a budget of examples per property",
    ]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a ``-m`` naming no marker; know the collected scenarios; apply the expectations."""
    expression = config.getoption("markexpr", "") or ""
    known = registered_names(config.getini("markers")) | _TAGS
    known |= {mark.name for item in items for mark in item.iter_markers()}
    unknown = unknown_markers(expression, known)
    if unknown:
        raise pytest.UsageError(
            f"-m: '{unknown[0]}' is no marker of the scenarios (`--markers` lists them)"
        )
    run_of(config).collected(items)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the test MCP servers' zygote: it warms up during collection."""
    run_of(session.config).start_servers(session)


@pytest.hookimpl(trylast=True)
def pytest_bdd_before_scenario(request: pytest.FixtureRequest) -> None:
    """Skip, as not applicable, a scenario whose needs the implementation lacks."""
    run_of(request.config).before_scenario(request.node)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Report a scenario whose implementation raised :class:`Unsupported` as not applicable."""
    try:
        return (yield)
    except Unsupported as unsupported:
        run_of(item.config).unsupported(item, unsupported)


def pytest_bdd_step_error(request: pytest.FixtureRequest, step: Any) -> None:
    """Remember the step during which the scenario failed."""
    run_of(request.config).reporting.step_failed(request.node, step)


def pytest_bdd_step_func_lookup_error(request: pytest.FixtureRequest, step: Any) -> None:
    """Remember the step no definition matches."""
    run_of(request.config).reporting.step_failed(request.node, step)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Give the report its verdict; have pytest format a scenario's exception plainly.

    Unless ``--skill-conformance-traceback`` shows it, nobody reads pytest's own traceback of a
    scenario, and its default style parses the source file of every frame, once per failure: most
    of a run where many scenarios fail deep inside a large implementation.
    """
    run = run_of(item.config)
    option = item.config.option
    plain = call.excinfo is not None and not run.options.traceback and option.tbstyle == "auto"
    if plain and item.nodeid in run.scenarios:
        option.tbstyle = "native"
    try:
        report = yield
    finally:
        if plain:
            option.tbstyle = "auto"
    return run.reporting.made(item, call, report)


@pytest.fixture
def conformance(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ScenarioContext]:
    """The context of one scenario: its world, its system under test, what steps observed."""
    yield from run_of(request.config).context(request, tmp_path)
