"""An adapter that cannot drive what is installed gives every scenario one verdict: cannot drive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ADAPTER = '''
from skill_conformance.port import Setup


class Undriven:
    """Installed, but with no entry point its adapter knows."""

    name = "undriven"
    version = "0.1"
    unsupported = {}
    cannot_drive = "undriven 0.1 has no undriven.AgentPool"

    def open(self, setup: Setup):
        raise AssertionError("no scenario may start on an implementation it cannot drive")

    def close(self):
        pass
'''


def test_every_scenario_gets_the_reason_once_and_the_run_fails(tmp_path: Path) -> None:
    (tmp_path / "undriven_adapter.py").write_text(ADAPTER)
    results = tmp_path / "results.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "src/skill_conformance/steps", "-p"),
            *("no:cacheprovider", "--skill-conformance-impl", "undriven_adapter:Undriven"),
            "--skill-conformance-no-expectations",
            *("-k", "positional_argument or named_pipe", f"--skill-conformance-results={results}"),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-3000:]
    scenarios = json.loads(results.read_text())["scenarios"]
    assert len(scenarios) >= 3
    assert {(s["verdict"], s["reason"]) for s in scenarios} == {
        ("cannot-drive", "undriven 0.1 has no undriven.AgentPool")
    }
    summary = done.stdout.split("skill-conformance: undriven 0.1")[1]
    assert f"cannot drive: undriven 0.1 has no undriven.AgentPool ({len(scenarios)} scenarios" in (
        summary
    )
    assert "FAILED" not in summary
    assert "AssertionError" not in done.stdout
