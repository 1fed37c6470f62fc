"""The Action and the workflows docs/ci-gate.md shows are valid for GitHub, checked offline.

``check-jsonschema`` validates them against its vendored copies of the schemas of GitHub's
workflows and actions (no network); each use of the Action is checked against ``action.yml``:
only inputs it declares, every required one given.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
BLOCK = re.compile(r"^```yaml\n(# \.github/workflows/.*?)^```", re.MULTILINE | re.DOTALL)
WORKFLOWS = BLOCK.findall((ROOT / "docs" / "ci-gate.md").read_text("utf-8"))
CHECK = Path(sys.executable).with_name("check-jsonschema")


def _validate(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    command = [str(CHECK), "--builtin-schema", schema, str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_the_action_is_valid_for_github() -> None:
    done = _validate("vendor.github-actions", ROOT / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_page_shows_the_workflows_checked_here() -> None:
    assert len(WORKFLOWS) == 2


@pytest.mark.parametrize("text", WORKFLOWS, ids=lambda text: text.splitlines()[0][2:])
def test_a_workflow_on_the_page_is_valid_for_github(text: str, tmp_path: Path) -> None:
    path = tmp_path / "workflow.yml"
    path.write_text(text, "utf-8")
    done = _validate("vendor.github-workflows", path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_workflow_is_refused(tmp_path: Path) -> None:
    """The validator bites: a job without `runs-on` is no job GitHub runs."""
    path = tmp_path / "workflow.yml"
    path.write_text(WORKFLOWS[0].replace("runs-on: ubuntu-latest", ""), "utf-8")
    assert _validate("vendor.github-workflows", path).returncode == 1


def _uses_of_the_action(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        step
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if str(step.get("uses", "")).startswith("Leoyzen/skill-conformance@")
    ]


def test_each_use_of_the_action_gives_inputs_it_declares() -> None:
    uses = [step for text in WORKFLOWS for step in _uses_of_the_action(yaml.safe_load(text))]
    assert uses
    declared = set(ACTION["inputs"])
    required = {name for name, spec in ACTION["inputs"].items() if spec.get("required")}
    for step in uses:
        given = set(step.get("with", {}))
        assert given <= declared, given - declared
        assert required <= given, required - given
