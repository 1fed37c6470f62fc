"""The suite's process is bounded in memory: an implementation reading without end fails alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
    (tmp_path / "steps").mkdir(exist_ok=True)  # the bound is for runs of the scenarios
    (tmp_path / "steps" / "test_greedy.py").write_text(_GREEDY)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider"),
            *("-p", "skill_conformance.runtime.plugin", *options, "steps/test_greedy.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc (Linux)")
def test_an_allocation_beyond_the_limit_fails_with_memory_error(tmp_path: Path) -> None:
    bounded = _run(tmp_path, "--memory-limit", "256")
    assert "MEMORY-ERROR" in bounded.stdout, bounded.stdout + bounded.stderr
    unbounded = _run(tmp_path, "--memory-limit", "0")
    assert "ALLOCATED" in unbounded.stdout, unbounded.stdout + unbounded.stderr


def test_a_negative_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    result = _run(tmp_path, "--memory-limit", "-1")
    assert result.returncode == 4
    assert "--memory-limit: -1 is negative; 0 means no bound" in result.stderr
    assert "Traceback" not in result.stderr
