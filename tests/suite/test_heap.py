"""A run of the scenarios keeps what collection built out of the garbage collector's way."""

from __future__ import annotations

from pathlib import Path

from tests.suite.plugin_run import run_with_plugin

_PROBE = """
import gc

def test_probe():
    print("FROZEN", gc.get_freeze_count())
"""

_AFTER = """
import gc
import pytest

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    print("AFTER", gc.get_freeze_count())
"""


def _run(tmp_path: Path, *, suite: bool) -> str:
    files = {"checks/test_probe.py": _PROBE, "conftest.py": _AFTER}
    done = run_with_plugin(tmp_path, files, "checks/test_probe.py", suite=suite)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _count(output: str, label: str) -> int:
    return next(int(line.split()[-1]) for line in output.splitlines() if line.startswith(label))


def test_the_scenarios_run_with_the_collected_heap_frozen_and_it_is_thawed_after(
    tmp_path: Path,
) -> None:
    output = _run(tmp_path, suite=True)
    assert _count(output, "FROZEN") > 10_000, output
    assert _count(output, "AFTER") == 0, output


def test_a_run_without_the_suite_leaves_the_heap_alone(tmp_path: Path) -> None:
    output = _run(tmp_path, suite=False)
    assert _count(output, "FROZEN") == 0, output
