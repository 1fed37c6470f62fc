"""`skill-conformance run` names each scenario's test by a short id, wherever it is run from.

pytest writes ids relative to the directory it was started in, so from a project's directory
an installed suite's ids ran through the environment (``../.venv/lib/python3.X/site-packages/
skill_conformance/steps/...``); the run prints them as its own root names them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_ID = "steps/test_conformance.py::test_positional_argument_substitution"


def _run(cwd: Path, *args: str) -> list[str]:
    command = [sys.executable, "-m", "skill_conformance", "run", "--impl", "reference", *args]
    done = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout.splitlines()


def test_the_ids_a_run_prints_are_short_and_select_their_scenario(tmp_path: Path) -> None:
    lines = _run(tmp_path, "-k", "test_positional_argument_substitution", "-v", "-p", "no:randomly")
    printed = [line.split(" ")[0] for line in lines if " PASSED" in line]
    assert printed == [_ID], lines[-30:]
    again = _run(tmp_path, printed[0], "--co", "-q")
    assert again[0] == _ID
