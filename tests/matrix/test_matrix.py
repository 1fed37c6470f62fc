"""``make matrix`` (``skill_conformance.commands.matrix``): runs in order, files named by adapter,
badges, status.

Each implementation's Python is a stand-in script here that writes the results file a run
would; ``make matrix`` runs the real suite in the real venvs.
"""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path

import pytest

from skill_conformance.commands.matrix import (
    MEMORY_LIMIT,
    Run,
    badge_summary,
    main,
    parse_run,
    run_matrix,
)


def _results(name: str, version: str, exit_status: int, **counts: int) -> dict[str, object]:
    return {
        "format": "skill-conformance-results/1",
        "header": {
            "suite_version": "0.1.0",
            "spec_digest": "sha256:abc",
            "adapter": {"name": name, "version": version},
            "impl": name,
        },
        "created": "2026-12-03T00:00:00+00:00",
        "exit_status": exit_status,
        "counts": counts,
        "scenarios": [
            {
                "capability": "skill-tools",
                "requirement": {"slug": "r", "title": "R"},
                "id": f"r.{verdict}-{index}",
                "name": f"{verdict} {index}",
                "verdict": verdict,
            }
            for verdict, count in counts.items()
            for index in range(count)
        ],
    }


def _python(tmp_path: Path, name: str, document: dict[str, object] | None, status: int) -> str:
    """A stand-in interpreter: writes ``document`` where --results says, exits."""
    script = tmp_path / f"python-{name}"
    write = ""
    if document is not None:
        payload = json.dumps(document).replace("'", "'\\''")
        write = f"""out=""; prev=""
for a in "$@"; do [ "$prev" = --results ] && out=$a; prev=$a; done
printf '%s' '{payload}' > "$out"
"""
    script.write_text(
        f'#!/usr/bin/env bash\necho running {name} "$@"\n'
        "echo limit $(ulimit -Sv); echo hard $(ulimit -Hv)\n"
        f"{write}exit {status}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_badge_summary_counts_expected_failures_as_failures_and_gives_the_gate() -> None:
    document = _results("agno", "3.1.10", 0, passed=5, **{"expected-failure": 2})
    document["counts"] = {"passed": 5, "expected-failure": 2, "not-applicable": 3}
    summary = badge_summary(document)
    assert summary == {
        "implementation": "agno",
        "version": "3.1.10",
        "suite_version": "0.1.0",
        "spec_digest": "sha256:abc",
        "total": 10,
        "passed": 5,
        "failed": 2,
        "errored": 0,
        "not_applicable": 3,
        "expected_failures": 2,
        "unexpected_passes": 0,
        "gate": "pass",
    }
    document["exit_status"] = 1
    assert badge_summary(document)["gate"] == "fail"


def test_parse_run_takes_impl_equals_python() -> None:
    assert parse_run("agno=build/venvs/agno/bin/python") == Run(
        "agno", "build/venvs/agno/bin/python"
    )
    with pytest.raises(argparse.ArgumentTypeError, match="IMPL=PYTHON"):
        parse_run("agno")
    with pytest.raises(argparse.ArgumentTypeError, match=r"'agnostic' is not registered \(agent"):
        parse_run("agnostic=python")
    assert parse_run("pkg.adapter:Impl=python") == Run("pkg.adapter:Impl", "python")


def test_each_run_writes_its_results_summary_and_log_and_one_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "matrix"
    known = {"passed": 3, "expected-failure": 1, "not-applicable": 2}
    runs = [
        Run("reference", _python(tmp_path, "ref", _results("reference", "0.1.0", 0, **known), 0)),
        Run("agno", _python(tmp_path, "agno", _results("agno", "3.1.10", 1, failed=1), 1)),
    ]
    assert run_matrix(runs, out) == 1
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "agno-3.1.10.json",
        "agno-3.1.10.log",
        "agno-3.1.10.summary.json",
        "index.html",
        "reference-0.1.0.json",
        "reference-0.1.0.log",
        "reference-0.1.0.summary.json",
    ]
    assert json.loads((out / "agno-3.1.10.summary.json").read_text())["failed"] == 1
    log = (out / "agno-3.1.10.log").read_text()
    assert "--impl agno" in log
    assert f"limit {MEMORY_LIMIT // 1024}" in log  # each run's address space is bounded (soft)
    assert "hard unlimited" in log  # not the hard limit: a JSON-lines child may lift it
    page = (out / "index.html").read_text()
    assert page.index("reference 0.1.0") < page.index("agno 3.1.10")
    printed = capsys.readouterr().out
    assert "[1/2] reference" in printed
    assert (
        "reference-0.1.0: 3 passed, 1 failed, 2 not applicable (1 of the failures expected);"
        " gate passes" in printed
    )
    assert "agno-3.1.10: 1 failed; GATE FAILS (exit 1)" in printed


def test_a_run_without_results_fails_the_matrix_with_2(tmp_path: Path) -> None:
    out = tmp_path / "matrix"
    broken = _python(tmp_path, "broken", None, 4)
    good = _python(tmp_path, "good", _results("reference", "0.1.0", 0, passed=1), 0)
    assert main(["--out", str(out), "--run", f"agno={broken}", "--run", f"reference={good}"]) == 2
    assert (out / ".run-1.log").read_text().startswith("running broken")
    assert (out / "index.html").exists()


def test_all_gates_passing_is_0(tmp_path: Path) -> None:
    good = _python(tmp_path, "good", _results("reference", "0.1.0", 0, passed=1), 0)
    assert run_matrix([Run("reference", good)], tmp_path / "m") == 0


@pytest.mark.parametrize("gone", ["missing", "dangling"])
def test_a_run_whose_python_is_gone_is_one_line_and_the_others_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gone: str
) -> None:
    """A venv never built, or one whose base Python was removed (its link dangles)."""
    python = tmp_path / "venv" / "bin" / "python"
    if gone == "dangling":
        python.parent.mkdir(parents=True)
        python.symlink_to(tmp_path / "removed" / "python3.13")
    good = _python(tmp_path, "good", _results("reference", "0.1.0", 0, passed=1), 0)
    out = tmp_path / "matrix"
    assert main(["--out", str(out), "--run", f"reference={good}", "--run", f"agno={python}"]) == 2
    printed = capsys.readouterr().out
    (line,) = [line for line in printed.splitlines() if "agno: no results" in line]
    cause = "which does not exist" if gone == "dangling" else "no such file"
    assert cause in line, printed
    assert str(python) in line, printed
    assert "Traceback" not in printed
    assert (out / "index.html").exists()
