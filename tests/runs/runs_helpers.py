"""What several of the suite's tests share: the uv that ``make`` uses."""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def uv() -> str:
    """The uv of ``make`` (its ``UV``, exported to the tests it runs; else ``make uv-path``).

    ``make`` takes the uv on PATH, else installs its own under ``build/``: a test run by ``make
    test`` on a machine whose uv is not on PATH finds the same one.
    """
    given = os.environ.get("UV")
    if given:
        return given
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", "uv-path"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"`make uv-path` failed: {done.stderr}"
    return done.stdout.strip().splitlines()[-1]
