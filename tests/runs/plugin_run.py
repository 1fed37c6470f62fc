"""Run pytest, with the suite's plugin, on test files written into a scratch directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_with_plugin(
    directory: Path, files: dict[str, str], *arguments: str, suite: bool = True
) -> subprocess.CompletedProcess[str]:
    """Write ``files`` (path below ``directory`` -> text), then run pytest there on ``arguments``.

    The suite is on (``--skill-conformance-impl reference``) unless ``suite`` is false; its
    plugin is the installed entry point's. Output is captured as text.
    """
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider"),
            *(["--skill-conformance-impl=reference"] if suite else []),
            *arguments,
        ],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
