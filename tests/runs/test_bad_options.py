"""Every option and input file is checked before any work: one line naming it, no traceback.

``pytest steps`` refuses a bad option with pytest's usage error (exit 4: in pytest, exit 2 means
*interrupted*); the ``skill-conformance`` commands exit 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from skill_conformance.commands.main import main

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "notes" / "real-codebase-results" / "reference.json"
"""A results file of a whole run, as the suite wrote it."""


def _pytest_steps(*args: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "src/skill_conformance/steps",
        "-p",
        "no:cacheprovider",
        "-q",
        "--skill-conformance-impl=reference",
        *args,
    ]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output, output[-2000:]
    assert len(lines) == 1, output[-2000:]
    return lines[0]


_BAD_VALUES = [
    # not a positive, finite number of seconds
    *(
        ("--skill-conformance-scenario-timeout", value)
        for value in ("0", "-1", "nan", "inf", "1e400", "soon")
    ),
    # not a whole number of MiB, or negative
    *(("--skill-conformance-memory-limit", value) for value in ("-1", "lots", "1.5")),
    # not a protocol era the server profile speaks
    ("--skill-conformance-protocol-era", "2025-06-18"),
]


@pytest.mark.parametrize(("option", "value"), _BAD_VALUES)
def test_an_option_value_that_cannot_be_used_is_refused_in_one_line(
    option: str, value: str
) -> None:
    done = _pytest_steps(f"{option}={value}", "-k", "tool_merging")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    line = _one_error_line(done.stdout + done.stderr)
    assert option in line
    assert value in line


def test_conformance_results_naming_a_directory_is_refused_before_the_run(
    tmp_path: Path,
) -> None:
    done = _pytest_steps(f"--skill-conformance-results={tmp_path}", "-k", "tool_merging")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    line = _one_error_line(done.stdout + done.stderr)
    assert "--skill-conformance-results" in line
    assert str(tmp_path) in line
    assert "passed" not in done.stdout


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else False, reason="root")
def test_conformance_results_in_an_unwritable_directory_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    done = _pytest_steps(f"--skill-conformance-results={locked / 'r.json'}", "-k", "tool_merging")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    assert "--skill-conformance-results" in _one_error_line(done.stdout + done.stderr)


def _results_file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "results.json"
    path.write_bytes(data)
    return path


_BAD_INPUTS = {
    "not-utf8": b'{"format": "\xff\xfe"}',
    "deeply-nested": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("content", list(_BAD_INPUTS), ids=list(_BAD_INPUTS))
@pytest.mark.parametrize("command", ["report", "expectations"])
def test_report_and_expectations_refuse_a_bad_results_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, content: str
) -> None:
    source = _results_file(tmp_path, _BAD_INPUTS[content])
    out = tmp_path / "out"
    args = [str(source)] if command == "report" else ["--from", str(source)]
    assert main([command, *args, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert str(source) in _one_error_line(captured.err)
    assert not out.exists()


@pytest.mark.parametrize("command", ["report", "expectations"])
@pytest.mark.parametrize("where", ["directory", "under-a-file"])
def test_report_and_expectations_refuse_an_unwritable_out_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, where: str
) -> None:
    source = RESULTS
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = tmp_path if where == "directory" else blocker / "out.html"
    args = [str(source)] if command == "report" else ["--from", str(source)]
    assert main([command, *args, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "--out" in _one_error_line(captured.err)


def test_a_bad_expectations_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = RESULTS
    previous = tmp_path / "expected.toml"
    previous.write_bytes(b'implementation = "\xff"\n')
    assert main(["expectations", "--from", str(source), "--out", str(previous)]) == 2
    assert str(previous) in _one_error_line(capsys.readouterr().err)
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["expectations", "--from", str(source), "--out", str(deep)]) == 2
    assert str(deep) in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("value", ["0", "nan", "inf", "-3"])
def test_smoke_refuses_a_timeout_that_is_not_a_positive_finite_number(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["smoke", "--timeout", value]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "--timeout" in line
    assert value in line


def test_an_interrupted_run_is_no_baseline_and_the_report_says_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(RESULTS.read_text())
    scenarios = data["scenarios"][:3]
    counts = Counter(scenario["verdict"] for scenario in scenarios)
    data.update(interrupted=True, exit_status=2, scenarios=scenarios, counts=counts)
    source = tmp_path / "interrupted.json"
    source.write_text(json.dumps(data))
    out = tmp_path / "expected.toml"
    assert main(["expectations", "--from", str(source), "--out", str(out)]) == 2
    assert "interrupted" in _one_error_line(capsys.readouterr().err)
    assert not out.exists()
    page = tmp_path / "report.html"
    assert main(["report", str(source), "--out", str(page)]) == 0
    assert "interrupted: partial run" in page.read_text()
