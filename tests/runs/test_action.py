"""The GitHub Action (``action.yml``): its shell steps run here as a runner would run them.

Each ``run`` step of the composite action is given to bash with the environment the runner would
give it (its ``env`` with the inputs filled in, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``), in
order, its ``if`` evaluated; the ``uses`` steps (the cache, the JUnit publisher, the artifact
upload) only run on GitHub, so here they are checked to be pinned to a commit, the tag it is
named in a comment. The install step is skipped: the suite is installed here already.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

from skill_conformance import github_action
from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue

ROOT = Path(__file__).resolve().parents[2]
ACTION_TEXT = (ROOT / "action.yml").read_text("utf-8")
ACTION = yaml.safe_load(ACTION_TEXT)
PINNED = re.compile(r"uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$", re.MULTILINE)
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

    def run(self, step: dict[str, Any], path: str | None = None) -> int | None:
        condition = step.get("if", "success()")
        if not self.evaluate(condition):
            return None
        env = {**os.environ, **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()}}
        output, summary = self.workdir / "github-output", self.workdir / "step-summary.md"
        output.write_text("")
        env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary))
        env.update(GITHUB_ACTION_PATH=str(ROOT))
        # A temporary directory of its own, as a job's machine is: pytest's numbered directories
        # under a shared /tmp/pytest-of-USER race when runs end side by side (its clean-up of
        # the `pytest-current` link raised FileNotFoundError in another run's test).
        temporary = self.workdir / "tmp"
        temporary.mkdir(exist_ok=True)
        env.update(TMPDIR=str(temporary))
        if path is not None:
            env["PATH"] = path
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
            assert step["uses"].split("@")[1] in {sha for _, sha, _ in PINNED.findall(ACTION_TEXT)}
            done.append((step["name"], None))
        else:
            done.append((step["name"], runner.run(step)))
    return runner, done


def test_the_action_declares_every_input_it_reads() -> None:
    text = (ROOT / "action.yml").read_text("utf-8")
    read = set(re.findall(r"inputs\.([\w-]+)", text))
    assert read == set(ACTION["inputs"])
    assert ACTION["runs"]["using"] == "composite"


def test_every_sub_action_is_pinned_to_a_commit_named_with_its_tag() -> None:
    """A tag can be moved under a workflow; a commit cannot (the tag is the comment beside it)."""
    used = [step["uses"] for step in ACTION["runs"]["steps"] if "uses" in step]
    pinned = PINNED.findall(ACTION_TEXT)
    assert len(pinned) == len(used) == 3
    assert {f"{name}@{sha}" for name, sha, _ in pinned} == set(used)


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
    assert dict(steps)["Install skill-conformance"] is None
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


def test_a_quoted_expression_in_pytest_args_stays_one_argument(tmp_path: Path) -> None:
    """`-k "not needs:mcp"` was split on white space into `"not` and `needs:mcp"` (exit 4)."""
    args = '-k "Positional and not needs:mcp"\n-p no:randomly'
    runner, steps = _run_action(tmp_path, impl="reference", **{"pytest-args": args})
    outputs = runner.outputs["run"]
    assert outputs["exit-status"] == "0", outputs
    selected = json.loads(Path(tmp_path / outputs["results"]).read_text("utf-8"))["scenarios"]
    assert len(selected) >= 3
    assert len(selected) < 20  # the expression selected, as one argument
    assert (outputs["passed"], outputs["failed"], outputs["errored"]) == (
        str(len(selected)),
        "0",
        "0",
    )
    assert outputs["not-applicable"] == outputs["expected-failure"] == "0"
    assert steps[-1] == ("Gate", 0)
    header = json.loads(Path(tmp_path / outputs["results"]).read_text("utf-8"))["header"]
    assert header["environment"]["python"] == platform.python_version()
    assert {"pytest", "pytest-bdd", "mcp", "pydantic-ai-slim", "hypothesis"} <= set(
        header["environment"]
    )


def test_pytest_args_that_cannot_be_split_stop_the_job_in_one_line(tmp_path: Path) -> None:
    runner, steps = _run_action(tmp_path, impl="reference", **{"pytest-args": '-k "not x'})
    assert dict(steps)["Run the conformance suite"] == 2
    assert "exit-status" not in runner.outputs["run"]
    assert runner.failed  # the job fails there; the later steps do not run
    assert steps[-1] == ("Gate", None)


@pytest.mark.parametrize(
    ("given", "split"),
    [
        ('-k "not needs:mcp"', ["-k", "not needs:mcp"]),
        ("--lf\n\n  -m 'not needs:mcp-http'  \n", ["--lf", "-m", "not needs:mcp-http"]),
        ('["-k", "not needs:mcp", "$HOME"]', ["-k", "not needs:mcp", "$HOME"]),
        ("-k $(touch pwned) `id` $HOME", ["-k", "$(touch", "pwned)", "`id`", "$HOME"]),
        ("", []),
    ],
)
def test_pytest_args_are_split_as_a_shell_would_with_nothing_expanded(
    given: str, split: list[str]
) -> None:
    assert github_action.split_args(given) == split


@pytest.mark.parametrize("given", ['-k "open', '["-k", 1]', '["-k",', "[not json"])
def test_pytest_args_that_cannot_be_split_are_refused(given: str) -> None:
    with pytest.raises(github_action.ArgsError, match=r"^pytest-args"):
        github_action.split_args(given)


def test_the_default_artifact_name_differs_between_matrix_jobs() -> None:
    """upload-artifact refuses a second artifact of one name in a run: each job names its own."""
    env = {"GITHUB_JOB": "conformance", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"}
    names = {
        github_action.artifact_name("auto", impl, {**env, "RUNNER_OS": system})
        for impl in ("reference", "mypackage.adapter:Impl")
        for system in ("Linux", "macOS")
    }
    assert len(names) == 4
    assert all(re.fullmatch(r"skill-conformance-[\w.+-]+", name) for name in names), names
    assert github_action.artifact_name("mine", "reference", env) == "mine"
    assert github_action.artifact_name("", "reference", env) == ""
    assert ACTION["inputs"]["artifact-name"]["default"] == "auto"


@pytest.mark.parametrize(("has_uv", "tool"), [(True, "uv"), (False, "pip")])
def test_the_suite_is_installed_with_uv_where_the_job_has_it(
    tmp_path: Path, has_uv: bool, tool: str
) -> None:
    """A venv uv made has no pip: `python -m pip` failed in it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "sha256sum", "cut", "dirname"):
        found = shutil.which(name)
        assert found is not None
        (bin_dir / name).symlink_to(found)
    if has_uv:
        (bin_dir / "uv").write_text("#!/bin/sh\necho /cache/of/uv\n")
        (bin_dir / "uv").chmod(0o755)
    runner = Runner({"install": "true", "python": sys.executable}, tmp_path)
    step = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "installer")
    assert runner.run(step, path=str(bin_dir)) == 0
    assert runner.outputs["installer"]["tool"] == tool
    assert runner.outputs["installer"]["key"].startswith(f"py{sys.version_info[0]}.")
    install = next(step for step in ACTION["runs"]["steps"] if step["name"].startswith("Install"))
    assert 'if [ "$TOOL" = uv ]; then\n  uv pip install' in install["run"]


def test_a_fork_pull_request_gets_annotations_instead_of_a_check_run() -> None:
    """A fork's token cannot write checks; the publisher then only annotates (and we summarise)."""
    publish = next(
        step for step in ACTION["runs"]["steps"] if "junit-report" in step.get("uses", "")
    )
    condition = publish["with"]["annotate_only"]
    assert "github.event.pull_request.head.repo.full_name != github.repository" in condition
    assert publish["with"]["job_summary"] is False
