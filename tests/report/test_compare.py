"""``skill-conformance compare BASE HEAD``: the gate over two results files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import ENTRIES, header

from skill_conformance.commands.main import main
from skill_conformance.verdicts.comparison import compare, observation
from skill_conformance.verdicts.results import Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

TMP = "/tmp/pytest-of-ci/pytest-{}/test_a_reference_that_does_not0/skills/x.md"


def _result(
    index: int, verdict: Verdict, reason: str = "", raw: Verdict | None = None, observed: str = ""
) -> ScenarioResult:
    entry = ENTRIES[index]
    return ScenarioResult(
        entry.capability,
        entry.requirement.slug,
        entry.requirement.title,
        entry.id,
        entry.name,
        verdict,
        reason,
        raw,
        observed,
    )


def _run(path: Path, version: str, *scenarios: ScenarioResult, interrupted: bool = False) -> Path:
    write_results(
        path, Results(header("agentpool", version), scenarios, "2026-12-06", 1, interrupted)
    )
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """BASE: 0 passes, 1 fails, 2 passes, 3 fails at a temporary path, 4 passes, 5 passes.

    HEAD: 0 passes, 1 passes (fixed), 2 errors (regressed), 3 fails at another temporary path
    (unchanged), 4 is gone, 5 fails as an expected failure (regressed), 6 is new.
    """
    base = _run(
        tmp_path / "base.json",
        "1.0",
        _result(0, Verdict.PASSED),
        _result(1, Verdict.FAILED, "expected x, observed y"),
        _result(2, Verdict.PASSED),
        _result(3, Verdict.FAILED, f"observed it returned 'not found: {TMP.format(11)}'"),
        _result(4, Verdict.PASSED),
        _result(5, Verdict.PASSED),
    )
    head = _run(
        tmp_path / "head.json",
        "2.0",
        _result(0, Verdict.PASSED),
        _result(1, Verdict.PASSED),
        _result(2, Verdict.ERRORED, "ImplementationCrash: AttributeError: 'function' | for_run"),
        _result(3, Verdict.FAILED, f"observed it returned 'not found: {TMP.format(12)}'"),
        _result(5, Verdict.EXPECTED_FAILURE, "known", Verdict.FAILED, "expected a, observed b"),
        _result(6, Verdict.FAILED, "new and failing"),
    )
    return base, head


def test_a_regression_fails_the_gate_and_is_named(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *map(str, files)]) == 1
    out = capsys.readouterr().out
    assert "the gate fails: 2 scenarios regressed" in out
    regressions = out.split("Regressions")[1].split("Fixes")[0]
    assert f"{ENTRIES[2].name}: passed -> errored" in regressions
    assert f"{ENTRIES[5].name}: passed -> failed" in regressions  # an expected failure's raw
    assert "head: expected a, observed b" in regressions
    assert f"{ENTRIES[1].name}: failed -> passed" in out.split("Fixes")[1]
    assert f"{ENTRIES[6].name}: absent -> failed" in out.split("Scenarios added")[1]
    assert f"{ENTRIES[4].name}: passed -> absent" in out.split("Scenarios removed")[1]
    assert ENTRIES[3].name not in out  # only its temporary folder differs
    assert "2 regressed, 1 fixed, 0 changed verdict, 0 changed observation, 1 added" in out


def test_no_regression_passes_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _run(
        tmp_path / "b.json", "1", _result(0, Verdict.FAILED, "x"), _result(1, Verdict.PASSED)
    )
    head = _run(
        tmp_path / "h.json",
        "2",
        _result(0, Verdict.ERRORED, "crash"),
        _result(1, Verdict.PASSED),
        _result(2, Verdict.FAILED, "new"),
    )
    assert main(["compare", str(base), str(head)]) == 0
    out = capsys.readouterr().out
    assert "the gate passes: no scenario regressed" in out
    assert f"{ENTRIES[0].name}: failed -> errored" in out.split("Other changes of verdict")[1]


def test_an_expectations_file_does_not_hide_a_regression(tmp_path: Path) -> None:
    """BASE passed; HEAD's run lists the scenario as an expected failure: still a regression."""
    base = _run(tmp_path / "b.json", "1", _result(0, Verdict.PASSED))
    head = _run(
        tmp_path / "h.json", "2", _result(0, Verdict.EXPECTED_FAILURE, "known", Verdict.ERRORED)
    )
    assert main(["compare", str(base), str(head)]) == 1


def test_observations_that_changed_are_listed_volatile_parts_not(tmp_path: Path) -> None:
    def run(name: str, reason: str) -> Results:
        return Results(header("a", name), (_result(0, Verdict.FAILED, reason),))

    same = compare(
        run(
            "1",
            "grew by 2611 MiB; took 3.25 s at 0x7f3a2b1c4d50 in "
            + TMP.format(1)
            + "(326 characters)",
        ),
        run(
            "2",
            "grew by 2602 MiB; took 3.75 s at 0x7f3a2b1c9e10 in "
            + TMP.format(22)
            + "(325 characters)",
        ),
    )
    assert (same.unchanged, same.observations) == (1, [])
    other = compare(run("1", "observed the agent sees []"), run("2", "observed it sees ['x']"))
    assert [change.scenario.id for change in other.observations] == [ENTRIES[0].id]
    assert observation(_result(0, Verdict.PASSED, "ignored")) == ""


def test_markdown_for_a_pull_request(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = files
    status = main(["compare", str(base), str(head), "--format", "markdown", "--head-label", "PR"])
    assert status == 1
    out = capsys.readouterr().out
    assert out.startswith("### ❌ skill-conformance: agentpool 1.0 → PR")
    assert "#### Regressions (passed, now failed or errored): 2" in out
    row = next(line for line in out.splitlines() if ENTRIES[2].name in line)
    assert row.count(" | ") == 4, row  # the observation's own "|" is escaped
    assert "'function' \\| for_run" in row
    assert "<details>\n<summary>Fixes (failed or errored, now passed): 1</summary>" in out


def test_json_and_out(files: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "deep" / "compare.json"
    assert main(["compare", *map(str, files), "--format", "json", "--out", str(out)]) == 1
    document = json.loads(out.read_text())
    assert document["gate"] == "fails"
    assert document["base"]["label"] == "agentpool 1.0"
    regressed = {change["key"]: change["head"]["outcome"] for change in document["regressions"]}
    assert regressed == {ENTRIES[2].key: "errored", ENTRIES[5].key: "failed"}
    assert [change["key"] for change in document["removed"]] == [ENTRIES[4].key]


def test_a_head_that_cannot_be_driven_is_its_own_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = "agentpool 0.9: no skill entry point this adapter knows (no SkillManagerCap)"
    base = _run(tmp_path / "b.json", "1", _result(0, Verdict.PASSED), _result(1, Verdict.FAILED))
    head = _run(
        tmp_path / "h.json",
        "0.9",
        _result(0, Verdict.CANNOT_DRIVE, reason),
        _result(1, Verdict.CANNOT_DRIVE, reason),
    )
    assert main(["compare", str(base), str(head)]) == 1
    out = capsys.readouterr().out
    assert "the gate fails: HEAD cannot be driven" in out
    assert out.count(reason) == 1
    assert "0 regressed, 0 fixed, 0 changed verdict" in out
    assert main(["compare", str(head), str(head)]) == 0  # neither judged: nothing regressed


@pytest.mark.parametrize("defect", ["interrupted", "not json"])
def test_an_unusable_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], defect: str
) -> None:
    good = _run(tmp_path / "good.json", "1", _result(0, Verdict.PASSED))
    bad = tmp_path / "bad.json"
    if defect == "interrupted":
        _run(bad, "2", _result(0, Verdict.PASSED), interrupted=True)
    else:
        bad.write_text("{")
    assert main(["compare", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(bad) in err
