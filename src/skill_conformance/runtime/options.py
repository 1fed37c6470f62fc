"""The suite's command-line options; the module pytest's ``pytest11`` entry point loads.

Installed, the suite adds only its options to every pytest run in that environment, and nothing
else: its hooks and step definitions (:mod:`skill_conformance.runtime.suite`) are loaded when a
run asks for the suite, by ``--impl`` on the command line, by ``skill-conformance run``, or by
this repository's ``conftest.py``. Another project's own tests see no change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skill_conformance.verdicts.block import TRACEBACK_OPTION

SUITE = "skill_conformance.runtime.suite"
"""The plugin that loads the suite's hooks and step definitions."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the suite's options."""
    group = parser.getgroup("skill-conformance")
    group.addoption(
        "--impl",
        default=os.environ.get("SKILL_CONFORMANCE_IMPL", "reference"),
        help="implementation under test: reference (default), agentpool, wolfharness, "
        "or package.module:Class",
    )
    group.addoption(
        "--scenario-timeout",
        default="30",
        help="seconds each call into the implementation may take (default 30)",
    )
    group.addoption(
        "--memory-limit",
        metavar="MIB",
        default="4096",
        help="MiB the suite's process (and each worker) may grow beyond its size at start-up, "
        "so that an implementation reading without bound fails with MemoryError instead of "
        "exhausting the machine (default 4096; 0: no bound)",
    )
    group.addoption(
        "--expectations",
        metavar="FILE",
        type=Path,
        default=None,
        help="expectations file of known failures, applied as strict xfail "
        "(default: expectations/<implementation>/<version>.toml where one exists)",
    )
    group.addoption(
        "--no-expectations",
        action="store_true",
        default=False,
        help="apply no expectations file: raw verdicts",
    )
    group.addoption(
        "--no-zygote",
        action="store_true",
        default=False,
        help="start each test MCP server from scratch, importing the mcp SDK, instead of "
        "forking it from a warm parent (slower; the servers are real processes either way)",
    )
    group.addoption(
        "--scenario-workers",
        metavar="N",
        default=os.environ.get("SKILL_CONFORMANCE_WORKERS", "auto"),
        help="processes that run the scenarios, forked from this one once collection ends: a "
        "number, or auto (default: on Linux, one per CPU and one more, as many as the memory "
        "limit leaves room for, one per 8 scenarios at most); 1 runs them in this process",
    )
    group.addoption(
        "--conformance-results",
        metavar="FILE",
        type=Path,
        default=None,
        help="write the run's header and one verdict per scenario to FILE (JSON)",
    )
    group.addoption(
        TRACEBACK_OPTION,
        action="store_true",
        default=False,
        help="under each failing scenario's short block, print pytest's full traceback "
        "and the captured output",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Load the suite when the command line names an implementation with ``--impl``."""
    asked = any(
        arg == "--impl" or arg.startswith("--impl=") for arg in config.invocation_params.args
    )
    if asked:
        config.pluginmanager.import_plugin(SUITE)
