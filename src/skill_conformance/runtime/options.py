"""The suite's pytest plugin (the ``pytest11`` entry point ``skill_conformance``) and its options.

Installed, the suite adds its options to every pytest run in the environment, and nothing else: a
run that does not name an implementation with ``--skill-conformance-impl`` imports nothing more of
the suite and sees no hook of it. Naming one (``skill-conformance run --impl NAME`` does) loads the
suite: its hooks and step definitions (:mod:`.session`). ``-p no:skill_conformance`` leaves the
suite out altogether, options included.

The options are defined once here, for pytest and for ``skill-conformance run``. In pytest every
option is named ``--skill-conformance-NAME`` (its ``dest`` ``skill_conformance_*``), after the
distribution, as Hypothesis names its ``--hypothesis-*``: installed into another
project's venv, the suite can clash with no option of the project's own. ``skill-conformance run``
takes the same options without the prefix (``--impl``), as the suite's own command line.

Every pytest run of an environment the suite is installed in imports this module: it imports
nothing but pytest and the standard library.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = [
    "ERA",
    "IMPL",
    "OPTIONS",
    "PREFIX",
    "RESULTS",
    "SERVER",
    "SUITE",
    "TRACEBACK",
    "SuiteOption",
    "suite_on",
]

SUITE = "skill_conformance.runtime.session"
"""The plugin that holds the suite's hooks and lists its step definitions."""
SCENARIOS = Path(__file__).resolve().parents[1] / "steps" / "test_conformance.py"
"""The test module that binds every scenario of the features."""

PREFIX = "skill-conformance-"


@dataclass(frozen=True)
class SuiteOption:
    """One option of the suite: its name without the prefix, its help, how it takes a value."""

    name: str
    help: str
    metavar: str | None = None
    """The value's name; ``None`` for a flag (an option that takes no value)."""
    default: str | None = None

    @property
    def flag(self) -> bool:
        """Whether the option takes no value."""
        return self.metavar is None

    @property
    def pytest_flag(self) -> str:
        """How pytest's command line spells it: ``--skill-conformance-impl``."""
        return f"--{PREFIX}{self.name}"

    @property
    def run_flag(self) -> str:
        """How ``skill-conformance run`` spells it: ``--impl``."""
        return f"--{self.name}"

    @property
    def dest(self) -> str:
        """Its attribute on pytest's ``config.option``: ``skill_conformance_impl``."""
        return f"{PREFIX}{self.name}".replace("-", "_")

    def pytest_arguments(self, value: object) -> list[str]:
        """The pytest command line giving ``value`` (a flag: ``True``) to this option."""
        if self.flag:
            return [self.pytest_flag] if value else []
        return [] if value is None else [f"{self.pytest_flag}={value}"]


IMPL = SuiteOption(
    "impl",
    "the implementation under test, which turns the suite on: a registered name "
    "(`skill-conformance run --help` lists them) or package.module:Attribute",
    metavar="NAME",
)
RESULTS = SuiteOption(
    "results",
    "write the run's header and one verdict per scenario to FILE (JSON)",
    metavar="FILE",
)
SERVER = SuiteOption(
    "server",
    "test an MCP server instead of a skill system: 'reference' (the suite's own skills server), "
    'a JSON MCP-server entry ({"command", "args", "env"}, {skills} standing for the '
    "folder each scenario writes its skills into) or a file holding one; only the mcp-skills "
    "server profile runs",
    metavar="ENTRY",
)
ERA = SuiteOption(
    "protocol-era",
    "with --server: the MCP protocol revision the suite's client speaks to the server: "
    "2025-11-25 (the initialize handshake; the default) or 2026-07-28 (server/discover; "
    "needs the mcp 2.x SDK); a server not offering it is not applicable",
    metavar="REVISION",
    default="2025-11-25",
)
TRACEBACK = SuiteOption(
    "traceback",
    "under each failing scenario's short block, print pytest's full traceback and the "
    "captured output",
)
OPTIONS = (
    IMPL,
    SERVER,
    ERA,
    SuiteOption(
        "expectations",
        "expectations file of known failures, applied as strict xfail (default: the one "
        "bundled with the suite for the implementation's name and version, its "
        "expectations/<implementation>/<version>.toml, where one exists; not a path of the "
        "current directory)",
        metavar="FILE",
    ),
    SuiteOption("no-expectations", "apply no expectations file: raw verdicts"),
    RESULTS,
    SuiteOption(
        "scenario-timeout",
        "seconds each call into the implementation may take (default 30)",
        metavar="SECONDS",
        default="30",
    ),
    SuiteOption(
        "memory-limit",
        "MiB the suite's process may grow beyond its size at start-up, so that an "
        "implementation reading without bound fails with MemoryError instead of exhausting the "
        "machine (default 4096; 0: no bound)",
        metavar="MIB",
        default="4096",
    ),
    TRACEBACK,
    SuiteOption(
        "seed",
        "seed of the property scenarios' generated examples (default 0: the same examples on "
        "every run; vary it in a nightly run)",
        metavar="N",
    ),
    SuiteOption(
        "no-zygote",
        "start each test MCP server from scratch, importing the mcp SDK, instead of forking it "
        "from a warm parent (slower; the servers are real processes either way)",
    ),
)
"""Every option, in the order ``--help`` lists them."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the suite's options, each named ``--skill-conformance-*``."""
    group = parser.getgroup(
        "skill-conformance", "skill-conformance (on with --skill-conformance-impl)"
    )
    for option in OPTIONS:
        if option.flag:
            group.addoption(
                option.pytest_flag, dest=option.dest, action="store_true", help=option.help
            )
        else:
            group.addoption(
                option.pytest_flag,
                dest=option.dest,
                metavar=option.metavar,
                default=option.default,
                help=option.help,
            )


def suite_on(config: pytest.Config) -> bool:
    """Whether this run names an implementation or a server, and so runs the suite."""
    return (
        config.getoption(IMPL.dest, None) is not None
        or config.getoption(SERVER.dest, None) is not None
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Load the suite when the run names an implementation."""
    if not suite_on(config):
        return
    try:
        config.pluginmanager.import_plugin(SUITE)
    except pytest.UsageError:  # the run's own, already one line
        raise
    except Exception as error:  # one line, not pytest's internal error with a traceback
        from skill_conformance.runtime.shadowing import shadowing

        cause = error.__cause__ or error
        raise pytest.UsageError(
            f"skill-conformance: cannot load the suite: {type(cause).__name__}: {cause}"
            + shadowing(error)
        ) from None


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(
    config: pytest.Config,
) -> Generator[None, int | pytest.ExitCode, int | pytest.ExitCode]:
    """A run of the suite interrupted again while it stops ends on one line, not a traceback.

    One interrupted before its session began (while the suite loads) ends on one line too:
    pytest itself says nothing then.
    """
    try:
        status = yield
        began = config.stash.get(_SESSION_BEGAN, False)
        if status == pytest.ExitCode.INTERRUPTED and suite_on(config) and not began:
            sys.stderr.write("skill-conformance: interrupted\n")
        return status
    except KeyboardInterrupt:
        if not suite_on(config):
            raise
        # Imported here: a host project's run, which names no implementation, loads no more.
        from skill_conformance.runtime.interrupts import interrupted_again

        return interrupted_again(config)


_SESSION_BEGAN = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Note that the session began: pytest reports an interrupt from now on."""
    session.config.stash[_SESSION_BEGAN] = True


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Refuse to collect the scenarios when the run names no implementation to run them on."""
    if collector.path == SCENARIOS and not suite_on(collector.config):
        raise pytest.UsageError(
            f"the conformance scenarios need an implementation: {IMPL.pytest_flag} NAME "
            "(or run them with `skill-conformance run --impl NAME`)"
        )
