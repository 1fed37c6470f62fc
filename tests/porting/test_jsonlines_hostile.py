"""The JSON-lines adapter against a hostile implementation process.

Memory stays bounded per message and per stream, every process the adapter started (and every
process those started, even in a session of its own) is killed on every path, and no call waits
longer than the scenario timeout.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

import pytest

from skill_conformance.adapters.jsonlines import JsonlinesImplementation, ProtocolError
from skill_conformance.port import Setup, SkillSystemError
from skill_conformance.runtime.blocking import ImplementationCrash, ImplementationHang, blocking
from tests.porting.porting_helpers import faulty, pids_in, still_alive

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_an_endless_line_is_a_crash_and_memory_stays_bounded(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    implementation = JsonlinesImplementation(
        faulty("--at", "tool_names", "--do", "endless", "--pids", str(pids))
    )
    try:
        system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=20)
        system.start()
        before = _peak_rss_mib()
        with pytest.raises(ImplementationCrash, match=r"tool_names: a line longer than \d+ MiB"):
            system.tool_names()
        grown = _peak_rss_mib() - before
        system.close()
    finally:
        implementation.close()
    assert grown < 128, f"the suite grew by {grown:.0f} MiB reading one line"
    assert still_alive(pids_in(pids), within=3.0) == []


@pytest.mark.parametrize(
    ("do", "message"),
    [("refuse-hello", "reported crash: go away"), ("unknown-ability", "teleport")],
)
def test_a_refused_handshake_leaves_no_process(tmp_path: Path, do: str, message: str) -> None:
    pids = tmp_path / "pids"
    with pytest.raises((ProtocolError, SkillSystemError), match=message):
        JsonlinesImplementation(faulty("--do", do, "--pids", str(pids)))
    started = pids_in(pids)
    assert len(started) == 2
    assert still_alive(started, within=3.0) == []


def test_a_grandchild_in_its_own_session_holding_the_pipes_is_killed_in_time(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    implementation = JsonlinesImplementation(
        faulty("--at", "tool_names", "--do", "grandchild", "--pids", str(pids))
    )
    try:
        system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=1)
        system.start()
        began = time.monotonic()
        with pytest.raises(ImplementationHang):
            system.tool_names()
        system.close()
        took = time.monotonic() - began
    finally:
        implementation.close()
    started = pids_in(pids)
    assert len(started) == 3
    assert still_alive(started, within=3.0) == []
    assert took < 6, f"the hang and the close took {took:.1f} s with a 1 s scenario timeout"


def _deleted_open_file_bytes() -> int:
    total = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            if os.readlink(fd).endswith(" (deleted)"):
                total += os.stat(fd).st_size
        except OSError:
            pass
    return total


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_stderr_is_kept_as_a_bounded_tail(tmp_path: Path) -> None:
    implementation = JsonlinesImplementation(faulty("--at", "tool_names", "--do", "stderr-flood"))
    try:
        system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=20)
        system.start()
        before = _peak_rss_mib()
        assert list(system.tool_names()) == []  # after 64 MiB on stderr
        kept = _deleted_open_file_bytes()
        grown = _peak_rss_mib() - before
        with pytest.raises(ImplementationCrash, match=r"exited.*the last words") as crash:
            system.list_skills()
        system.close()
    finally:
        implementation.close()
    assert len(str(crash.value)) < 1000
    assert kept < 1 << 20, f"{kept} bytes of stderr kept in a temporary file"
    assert grown < 32, f"the suite grew by {grown:.0f} MiB keeping stderr"


def test_a_fresh_process_that_hangs_on_hello_is_cut_off_at_the_scenario_timeout(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    implementation = JsonlinesImplementation(
        faulty("--at", "tool_names", "--do", "slow-hello-again", "--pids", str(pids))
    )
    try:
        first = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=5)
        first.start()
        with pytest.raises(ImplementationCrash):
            first.tool_names()  # the process dies; the next scenario needs a fresh one
        first.close()
        second = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=1)
        began = time.monotonic()
        with pytest.raises(ImplementationHang, match=r"start\(\) did not finish within 1 s"):
            second.start()  # the fresh process hangs on hello
        second.close()
        assert time.monotonic() - began < 4
        started = pids_in(pids)
        assert len(started) == 4
        assert still_alive(started, within=3.0) == [], (
            "the process hanging on hello outlived its scenario"
        )
    finally:
        implementation.close()
