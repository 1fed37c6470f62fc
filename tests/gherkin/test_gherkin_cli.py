from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gherkin_helpers import FIXTURES, run_cli, snapshot_tree, write_spec

from skill_conformance.gherkin.render import HEADER_PREFIX

SPEC = "## ADDED Requirements\n### Requirement: R\n#### Scenario: S\n- WHEN a\n- THEN b\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_spec(tmp_path / "openspec" / "specs", "beta", SPEC)
    write_spec(
        tmp_path / "openspec" / "specs", "alpha", SPEC.replace("Requirement: R", "Requirement: Q")
    )
    return tmp_path


def gen(*extra: str) -> tuple[int, str, str]:
    result = run_cli("gherkin", "--specs", "openspec/specs", "--out", "features", *extra)
    return result.code, result.out, result.err


def test_write_then_check(tree: Path) -> None:
    code, out, err = gen()
    assert (code, err) == (0, "")
    assert out == "features: 2 files changed (2 feature files, 2 scenarios from 2 specs)\n"
    assert sorted(p.name for p in (tree / "features").iterdir()) == [
        "alpha.feature",
        "beta.feature",
    ]
    beta = (tree / "features" / "beta.feature").read_text()
    assert beta.startswith(HEADER_PREFIX + "openspec/specs/beta/spec.md\n")

    assert gen("--check") == (
        0,
        "features: up to date (2 feature files, 2 scenarios from 2 specs)\n",
        "",
    )
    before = snapshot_tree(tree / "features")
    assert gen()[1].startswith("features: 0 files changed")
    assert snapshot_tree(tree / "features") == before


def test_check_reports_a_changed_file_with_a_diff(tree: Path) -> None:
    gen()
    write_spec(tree / "openspec" / "specs", "beta", SPEC.replace("- THEN b", "- THEN c"))
    before = snapshot_tree(tree / "features")
    code, out, err = gen("--check")
    assert code == 1
    assert "--- a/features/beta.feature\n+++ b/features/beta.feature\n" in out
    assert "-      Then b\n+      Then c\n" in out
    assert err == (
        "features: 1 feature files out of date; run skill-conformance gherkin without --check\n"
    )
    assert snapshot_tree(tree / "features") == before


def test_check_reports_a_missing_file(tree: Path) -> None:
    gen()
    (tree / "features" / "alpha.feature").unlink()
    code, out, _ = gen("--check")
    assert code == 1
    assert out.startswith("--- /dev/null\n+++ b/features/alpha.feature\n")
    assert not (tree / "features" / "alpha.feature").exists()


def test_check_when_out_does_not_exist(tree: Path) -> None:
    code, out, _ = gen("--check")
    assert code == 1
    assert out.count("--- /dev/null") == 2
    assert not (tree / "features").exists()


def test_stale_generated_file_is_reported_and_removed(tree: Path) -> None:
    gen()
    (tree / "features" / "gone.feature").write_text(HEADER_PREFIX + "x/spec.md\nFeature: gone\n")
    (tree / "features" / "hand-written.feature").write_text("Feature: mine\n")
    code, out, _ = gen("--check")
    assert code == 1
    assert "--- a/features/gone.feature\n+++ /dev/null\n" in out
    assert "hand-written" not in out

    assert gen()[0] == 0
    assert not (tree / "features" / "gone.feature").exists()
    assert (tree / "features" / "hand-written.feature").read_text() == "Feature: mine\n"
    assert gen("--check")[0] == 0


def test_writes_are_atomic_and_leave_no_temp_files(tree: Path) -> None:
    gen()
    target = tree / "features" / "beta.feature"
    target.chmod(0o640)
    inode = target.stat().st_ino
    write_spec(tree / "openspec" / "specs", "beta", SPEC.replace("- THEN b", "- THEN c"))
    assert gen()[0] == 0
    assert target.stat().st_ino != inode  # replaced, not rewritten in place
    assert target.stat().st_mode & 0o777 == 0o640
    assert "Then c" in target.read_text()
    assert sorted(os.listdir(tree / "features")) == ["alpha.feature", "beta.feature"]


def test_relative_to_controls_header_paths(tree: Path) -> None:
    assert gen("--relative-to", "openspec")[0] == 0
    text = (tree / "features" / "beta.feature").read_text()
    assert text.startswith(HEADER_PREFIX + "specs/beta/spec.md\n")


def test_output_is_byte_identical_on_rerun(tree: Path) -> None:
    gen()
    first = snapshot_tree(tree / "features")
    for path in (tree / "features").iterdir():
        path.unlink()
    gen()
    assert snapshot_tree(tree / "features") == first


def test_lenient_warns_and_generates(tree: Path) -> None:
    write_spec(tree / "openspec" / "specs", "gamma", SPEC + SPEC.split("\n", 2)[2])
    assert gen()[0] == 2
    code, out, err = gen("--lenient")
    assert code == 0
    assert err == (
        'openspec/specs/gamma/spec.md:6: warning: duplicate scenario "S" in requirement "R" '
        "(same id as line 3); given a numbered title and id\n"
    )
    assert "3 feature files, 4 scenarios" in out


def test_help_and_version() -> None:
    assert run_cli("--help").code == 0
    assert run_cli("gherkin", "--help").code == 0
    version = run_cli("--version")
    assert version.code == 0
    assert version.out.startswith("skill-conformance ")


def test_pytest_bdd_runs_generated_scenarios(tmp_path: Path) -> None:
    """Bind a generated feature with ``scenarios()`` and run it in a fresh pytest."""
    out = tmp_path / "features"
    assert run_cli("gherkin", "--specs", FIXTURES / "baseline" / "specs", "--out", out).code == 0
    (tmp_path / "pytest.ini").write_text("[pytest]\nbdd_features_base_dir = features\n")
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            """\
            def pytest_bdd_apply_tag(tag, function):
                return True
            """
        )
    )
    (tmp_path / "test_bound.py").write_text(
        textwrap.dedent(
            """\
            from pytest_bdd import given, parsers, scenarios, then, when

            scenarios("widget-store.feature")

            @given(parsers.re(".*"))
            def _given():
                pass

            @when(parsers.re(".*"))
            def _when():
                pass

            @then(parsers.re(".*"))
            def _then():
                pass
            """
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:skill_conformance",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed" in done.stdout
