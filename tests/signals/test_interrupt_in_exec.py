"""An interrupt ending a string run by exec (dataclasses, namedtuple) still ends a command on 2.

CPython marks a ``python -m`` process to end by SIGINT once a KeyboardInterrupt ended such a
string, even one caught and reported: ``python -m skill_conformance`` then said its interrupted
line and died by the signal (-2), about once a run of tests/signals/test_commands.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "SystemExit(3)"])
def test_an_interrupt_ending_an_exec_string_ends_a_guarded_module_run_with_its_status(
    tmp_path: Path, raised: str
) -> None:
    (tmp_path / "sc_exec_interrupted.py").write_text(
        "import sys\n"
        "from skill_conformance.signals import guarded\n"
        "def body():\n"
        f"    exec('raise {raised}')\n"
        "    return 0\n"
        "sys.exit(guarded(body))\n"
    )
    path = os.pathsep.join([str(tmp_path), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "sc_exec_interrupted"],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if raised == "KeyboardInterrupt":
        assert (done.returncode, done.stderr) == (2, "skill-conformance: interrupted\n")
    else:  # the control: not an interrupt, its own status
        assert done.returncode == 3, done.stderr
