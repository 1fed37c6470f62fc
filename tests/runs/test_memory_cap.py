"""The suite's process is bounded in memory: an implementation reading without end fails alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.runs.plugin_run import run_with_plugin

_GREEDY = """
def test_greedy():
    try:
        block = bytearray(768 * 1024 * 1024)
    except MemoryError:
        print("MEMORY-ERROR")
        return
    print("ALLOCATED", len(block))
"""


def _run(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    # The bound is for runs of the suite (which naming an implementation turns on).
    greedy = {"checks/test_greedy.py": _GREEDY}
    return run_with_plugin(tmp_path, greedy, *options, "checks/test_greedy.py")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc (Linux)")
@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_an_allocation_beyond_the_limit_fails_with_memory_error(tmp_path: Path) -> None:
    bounded = _run(tmp_path, "--skill-conformance-memory-limit", "256")
    assert "MEMORY-ERROR" in bounded.stdout, bounded.stdout + bounded.stderr
    unbounded = _run(tmp_path, "--skill-conformance-memory-limit", "0")
    assert "ALLOCATED" in unbounded.stdout, unbounded.stdout + unbounded.stderr


def test_a_negative_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    result = _run(tmp_path, "--skill-conformance-memory-limit", "-1")
    assert result.returncode == 4
    assert "--skill-conformance-memory-limit: -1 is negative; 0 means no bound" in result.stderr
    assert "Traceback" not in result.stderr
