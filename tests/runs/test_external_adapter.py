"""``--impl package.module:Class`` runs the suite on an adapter that lives outside the repo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ADAPTER = '''
from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import Ability


class Mine(ReferenceImplementation):
    """A throwaway adapter: the reference under another name, lacking pool rebuilds."""

    name = "mine"

    def __init__(self) -> None:
        super().__init__()
        self.version = "9.9"
        self.unsupported = {Ability.POOL_REBUILD: "mine has no pool"}
'''


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "src/skill_conformance/steps",
        "-p",
        "no:cacheprovider",
        *args,
    ]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow  # a whole-suite run: `make ci`
def test_an_outside_adapter_runs_and_reports(tmp_path: Path) -> None:
    (tmp_path / "mine_adapter.py").write_text(ADAPTER)
    report = tmp_path / "cucumber.json"
    done = _run(
        tmp_path,
        "--skill-conformance-impl",
        "mine_adapter:Mine",
        "-k",
        "positional_argument or repeated_rebuilds",
        f"--cucumberjson={report}",
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "skill-conformance: mine 9.9" in done.stdout
    assert "1 passed, 1 not-applicable" in done.stdout
    features = json.loads(report.read_text())
    names = [e["name"] for f in features for e in f["elements"]]
    # Every selected scenario is there, the not-applicable one with its steps skipped.
    assert sorted(names) == [
        "Positional argument substitution",
        "Repeated rebuilds leave no stale registration",
    ]


def test_an_adapter_that_cannot_import_gives_one_line(tmp_path: Path) -> None:
    (tmp_path / "broken_adapter.py").write_text("import no_such_module_sc\n")
    done = _run(
        tmp_path, "--skill-conformance-impl", "broken_adapter:Impl", "-k", "positional_argument"
    )
    assert done.returncode == 4
    output = done.stdout + done.stderr
    assert (
        "--impl 'broken_adapter:Impl': cannot import broken_adapter: ModuleNotFoundError" in output
    )
    assert "Traceback" not in output


SHADOWS = {
    "mcp/__init__.py": "raise ImportError('this folder is not the mcp SDK')\n",
    "yaml.py": "raise ImportError('this file is not PyYAML')\n",
}


def _shadowed(directory: Path, *names: str) -> Path:
    """``directory`` holding, under the names of the suite's own dependencies, modules that fail."""
    for name in names:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SHADOWS[name])
    return directory


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_skill_conformance_run_is_not_swayed_by_modules_named_like_its_dependencies(
    tmp_path: Path,
) -> None:
    """They stay importable, last: an adapter kept beside them is still found."""
    here = _shadowed(tmp_path, "mcp/__init__.py", "yaml.py")
    (here / "here_adapter.py").write_text(ADAPTER)
    command = [str(Path(sys.executable).parent / "skill-conformance"), "run"]  # as installed
    command += ["--impl", "here_adapter:Mine", "-k", "positional"]
    done = subprocess.run(
        command, cwd=here, capture_output=True, text=True, timeout=300, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "skill-conformance: mine 9.9" in output
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("shadow", "shown"),
    [
        ("mcp/__init__.py", "mcp/"),  # hides it from the adapter's import
        ("yaml.py", "yaml.py"),  # hides it from the suite's own import, before any adapter
    ],
)
def test_a_module_of_the_working_directory_hiding_a_dependency_is_named(
    tmp_path: Path, shadow: str, shown: str
) -> None:
    """``python -m pytest`` puts the working directory first: one line names what hides what."""
    here = _shadowed(tmp_path, shadow)
    command = [sys.executable, "-m", "pytest", str(ROOT / "src" / "skill_conformance" / "steps")]
    command += [
        "--skill-conformance-impl",
        "reference",
        "-p",
        "no:cacheprovider",
        "-k",
        "positional",
    ]
    done = subprocess.run(
        command, cwd=here, capture_output=True, text=True, timeout=300, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 4, output[-3000:]
    (line,) = [line for line in output.splitlines() if line.startswith("ERROR: ")]
    assert f"the working directory {here.resolve()} holds {shown}, imported in place of" in line
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
