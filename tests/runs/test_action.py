"""The GitHub Action (``action.yml``): its shell steps run here as a runner would run them.

Each ``run`` step of the composite action is given to bash with the environment the runner would
give it (its ``env`` with the inputs filled in, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``), in
order, its ``if`` evaluated; the ``uses`` steps (the JUnit publisher, the artifact upload) only
run on GitHub, so here they are checked to be pinned to a major version and given the files the
run wrote. The install step is skipped: the suite is installed here already.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
NAME = re.compile(r"\b(inputs|steps\.[\w-]+\.outputs)\.([\w-]+)")


@dataclass
class Runner:
    """What a runner keeps while it runs the action's steps."""

    inputs: dict[str, str]
    workdir: Path
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    failed: bool = False

    def value(self, scope: str, name: str) -> str:
        if scope == "inputs":
            return self.inputs.get(name, "")
        step = scope.split(".")[1]
        return self.outputs.get(step, {}).get(name, "")

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: str(self.evaluate(m.group(1))), text)

    def evaluate(self, expression: str) -> Any:
        """GitHub's expressions as far as action.yml uses them: names, ==, !=, &&, always()."""
        python = NAME.sub(lambda m: repr(self.value(m.group(1), m.group(2))), expression)
        python = python.replace("&&", " and ").replace("||", " or ")
        python = python.replace("always()", "True").replace("success()", "not failed")
        return eval(python, {"__builtins__": {}}, {"failed": self.failed})

    def run(self, step: dict[str, Any]) -> int | None:
        condition = step.get("if", "success()")
        if not self.evaluate(condition):
            return None
        env = {**os.environ, **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()}}
        output, summary = self.workdir / "github-output", self.workdir / "step-summary.md"
        output.write_text("")
        env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary))
        env.update(GITHUB_ACTION_PATH=str(ROOT))
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=self.workdir, env=env, timeout=600, check=False
        )
        if "id" in step:
            lines = output.read_text().splitlines()
            self.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        self.failed = self.failed or done.returncode != 0
        return done.returncode


def _run_action(tmp_path: Path, **given: str) -> tuple[Runner, list[tuple[str, int | None]]]:
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    runner = Runner({**defaults, "install": "false", "python": sys.executable, **given}, tmp_path)
    done = []
    for step in ACTION["runs"]["steps"]:
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]
            done.append((step["name"], None))
        else:
            done.append((step["name"], runner.run(step)))
    return runner, done


def test_the_action_declares_every_input_it_reads() -> None:
    text = (ROOT / "action.yml").read_text("utf-8")
    read = set(re.findall(r"inputs\.([\w-]+)", text))
    assert read == set(ACTION["inputs"])
    assert ACTION["runs"]["using"] == "composite"


def test_the_suite_takes_every_option_the_action_gives_it(tmp_path: Path) -> None:
    """Quick (collection only), so that `make test` sees an option renamed under the action."""
    runner, steps = _run_action(
        tmp_path, impl="reference", expectations="", **{"pytest-args": "--collect-only -q"}
    )
    assert runner.outputs["run"]["exit-status"] == "0"
    assert steps[-1] == ("Gate", 0)


@pytest.mark.slow  # a whole suite run: `make ci`
def test_a_passing_run_gates_green_with_its_reports(tmp_path: Path) -> None:
    runner, steps = _run_action(tmp_path, impl="reference", **{"pytest-args": "-q"})
    assert steps[0] == ("Install skill-conformance", None)
    assert steps[-1] == ("Gate", 0)
    assert runner.outputs["run"]["exit-status"] == "0"
    out = tmp_path / "skill-conformance"
    assert {p.name for p in out.iterdir()} == {
        "results.json",
        "junit.xml",
        "cucumber.json",
        "report.html",
    }
    assert (
        (tmp_path / "step-summary.md")
        .read_text("utf-8")
        .startswith("### ✅ skill-conformance: the gate passes")
    )


@pytest.mark.slow  # a whole suite run: `make ci`
def test_a_failing_run_fails_the_gate_and_says_why_on_the_job_page(tmp_path: Path) -> None:
    known = load_catalogue(specs_dir()).entries()[0].key
    expectations = tmp_path / "known.toml"
    expectations.write_text(
        f'implementation = "template"\nversion = "0.0.0"\n\n[expected-failures]\n'
        f'"{known}" = "the template implements nothing"\n'
    )
    _, steps = _run_action(tmp_path, impl="template", expectations=str(expectations))
    assert dict(steps)["Job summary and HTML report"] == 0
    assert steps[-1] == ("Gate", 1)
    summary = (tmp_path / "step-summary.md").read_text("utf-8")
    assert summary.startswith("### ❌ skill-conformance: the gate fails")
    assert "NotImplementedOperation: start() is not implemented yet" in summary
    assert "template 0.0.0: 1 known failures (expectations file)" in summary
    junit = ElementTree.parse(tmp_path / "skill-conformance" / "junit.xml").getroot()
    assert len(list(junit.iter("testcase"))) > 100
    assert (tmp_path / "skill-conformance" / "report.html").is_file()
