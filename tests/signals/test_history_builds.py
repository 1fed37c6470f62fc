"""``history`` stopped while a commit's venv builds stops the build's children with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests.signals.processes import processes_with

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

ROOT = Path(__file__).resolve().parents[2]
SKILLS = "src/pkg/skills/loader.py"


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_a_stopped_history_leaves_no_build_process_behind(tmp_path: Path, sig: int) -> None:
    """A uv that starts a helper and waits on it, as its resolver or a build backend does."""
    repo = tmp_path / "repo"
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for path, text in ((SKILLS, "v0\n"), ("uv.lock", "version = 1\n")):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        _git(repo, "add", path)
    _git(repo, "commit", "-qm", "start")
    first = _git(repo, "rev-parse", "HEAD")
    (repo / SKILLS).write_text("v1\n")
    _git(repo, "commit", "-qam", "skills")
    started = tmp_path / "helper-started"
    uv = tmp_path / "uv"
    uv.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(f"""
            import pathlib, subprocess, time
            helper = subprocess.Popen(["sleep", "300"])
            pathlib.Path({str(started)!r}).write_text(str(helper.pid))
            helper.wait()
        """)
    )
    uv.chmod(0o755)
    marker = uuid.uuid4().hex
    env = {**os.environ, "SKILL_CONFORMANCE_HISTORY_TEST": marker}
    command = [
        sys.executable, "-m", "skill_conformance", "history", "--repo", str(repo),
        "--since", first, "--cache", str(tmp_path / "cache"), "--uv", str(uv),
        "--python", sys.executable, "--suite", str(ROOT),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.05)
        process.send_signal(sig)  # to history only, as a supervisor does: not to its group
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    time.sleep(0.2)
    left = processes_with(marker)
    for line in left:  # do not leave them to the next test either
        os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert left == []
    assert (process.returncode, err) == (2, "skill-conformance: interrupted\n"), out + err
