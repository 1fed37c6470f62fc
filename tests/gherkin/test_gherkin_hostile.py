"""Nothing of a spec is lost silently, and no file-system oddity gives a traceback.

Every case is one ``path:line: message`` line (or one usage line) and exit 2; ``--check``
callers read exit 1 as "stale", so an oddity must never exit 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gherkin_helpers import gherkin_scenarios, run_cli, write_spec

REQ = "## ADDED Requirements\n### Requirement: R\n"
GOOD = "#### Scenario: Fine\n- WHEN a\n- THEN b\n"


def _generate(tmp_path: Path, text: str, *flags: str) -> tuple[int, str, Path]:
    specs, out = tmp_path / "specs", tmp_path / "out"
    write_spec(specs, "cap", text)
    result = run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path, *flags)
    assert "Traceback" not in result.err
    return result.code, result.err, out


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (REQ + GOOD + "```\nfenced\n#### Scenario: Lost\n- WHEN x\n- THEN y\n", 6, "never closed"),
        (REQ + GOOD + "~~~~python\n", 6, "code fence ~~~~ is never closed"),
        (REQ + GOOD + "<!-- a note\n#### Scenario: Lost\n- WHEN x\n- THEN y\n", 6, "never closed"),
    ],
    ids=["backtick-fence", "tilde-fence", "comment"],
)
def test_an_unclosed_fence_or_comment_is_an_error_at_its_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    for flags in ((), ("--lenient",)):
        code, err, out = _generate(tmp_path, text, *flags)
        assert code == 2
        assert err.splitlines() == [err.strip()]
        assert err.startswith(f"specs/cap/spec.md:{line}: ")
        assert message in err
        assert not out.exists()


@pytest.mark.parametrize("indent", [" ", "  ", "   "])
def test_a_heading_indented_by_up_to_three_spaces_is_a_heading(tmp_path: Path, indent: str) -> None:
    text = REQ + GOOD + f"{indent}#### Scenario: Second\n- WHEN c\n- THEN d\n"
    text += f"{indent}### Requirement: Other\n{indent}#### Scenario: Third\n- WHEN e\n- THEN f\n"
    code, err, out = _generate(tmp_path, text)
    assert code == 0, err
    scenarios = gherkin_scenarios((out / "cap.feature").read_text())
    assert [s["name"] for s in scenarios] == ["Fine", "Second", "Third"]
    assert [len(s["steps"]) for s in scenarios] == [2, 2, 2]


def test_a_heading_indented_by_four_spaces_stays_step_text(tmp_path: Path) -> None:
    code, err, out = _generate(tmp_path, REQ + "#### Scenario: S\n- WHEN a\n    #### b\n- THEN c\n")
    assert code == 0, err
    steps = gherkin_scenarios((out / "cap.feature").read_text())[0]["steps"]
    assert steps[0]["text"] == "a #### b"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "spec has no requirements"),
        ("# Title\n\n## Purpose\nNothing yet.\n", 1, "spec has no requirements"),
        (REQ + "The system SHALL work.\n", 2, 'requirement "R" has no scenarios'),
        (
            REQ + GOOD + "### Requirement: Bare\nText.\n",
            6,
            'requirement "Bare" has no scenarios',
        ),
    ],
    ids=["empty", "only-purpose", "requirement-only", "second-requirement"],
)
def test_empty_specs_and_requirements_without_scenarios_fail_strict_and_warn_lenient(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    code, err, out = _generate(tmp_path, text)
    assert (code, err.strip()) == (2, f"specs/cap/spec.md:{line}: {message}")
    assert not out.exists()
    code, err, out = _generate(tmp_path, text, "--lenient")
    assert code == 0
    assert f"specs/cap/spec.md:{line}: warning: {message}" in err
    assert (out / "cap.feature").exists()


def test_removed_and_renamed_requirements_need_no_scenarios(tmp_path: Path) -> None:
    text = (
        "## REMOVED Requirements\n### Requirement: Old\n**Reason**: gone.\n\n"
        "## RENAMED Requirements\n- FROM: `### Requirement: A`\n- TO: `### Requirement: B`\n"
    )
    code, err, _ = _generate(tmp_path, text)
    assert code == 0, err


def _specs_with(tmp_path: Path, make: str) -> Path:
    specs = tmp_path / "specs"
    write_spec(specs, "good", REQ + GOOD)
    odd = specs / "odd" / "spec.md"
    odd.parent.mkdir(parents=True)
    if make == "symlink-loop":
        odd.symlink_to(odd)
    elif make == "dangling-symlink":
        odd.symlink_to(tmp_path / "missing.md")
    elif make == "directory":
        odd.mkdir()
        (odd / "x").write_text("x")
    elif make == "fifo":
        os.mkfifo(odd)
    elif make == "unreadable":
        odd.write_text(REQ + GOOD)
        odd.chmod(0)
    elif make == "unreadable-folder":
        odd.parent.chmod(0)
    return specs


ODDITIES = [
    "symlink-loop",
    "dangling-symlink",
    "directory",
    "fifo",
    "unreadable",
    "unreadable-folder",
]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file types")
@pytest.mark.parametrize("make", ODDITIES)
@pytest.mark.parametrize("check", [False, True], ids=["write", "check"])
def test_a_file_system_oddity_is_one_line_and_exit_2(
    tmp_path: Path, make: str, check: bool
) -> None:
    if make.startswith("unreadable") and os.geteuid() == 0:
        pytest.skip("root reads everything")
    specs = _specs_with(tmp_path, make)
    out = tmp_path / "out"
    try:
        flags = ("--check",) if check else ()
        result = run_cli(
            "gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path, *flags
        )
    finally:
        (specs / "odd").chmod(0o755)
        if (specs / "odd" / "spec.md").is_file() and not (specs / "odd" / "spec.md").is_symlink():
            (specs / "odd" / "spec.md").chmod(0o644)
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "odd" in lines[0]
    assert not out.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="a line break in a file name")
def test_a_folder_name_holding_a_line_break_stays_on_one_line(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    write_spec(specs, "bad\nname", REQ + "The system SHALL work.\n")
    result = run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path)
    assert (result.code, result.err) == (
        2,
        'specs/bad\\nname/spec.md:2: requirement "R" has no scenarios\n',
    )
    write_spec(specs, "bad\nname", REQ + GOOD)
    result = run_cli("gherkin", "--specs", specs, "--out", out, "--relative-to", tmp_path)
    assert result.code == 0, result.err
    (feature,) = out.iterdir()
    header = [line for line in feature.read_text().splitlines() if line.startswith("#")]
    assert any("specs/bad\\nname/spec.md" in line for line in header), header


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_while_writing_leaves_no_temporary_file(tmp_path: Path) -> None:
    """Sent once the first feature is written: most of writing one is its fsync."""
    specs, out = tmp_path / "specs", tmp_path / "out"
    for index in range(300):
        write_spec(specs, f"cap{index:03d}", REQ + GOOD)
    command = [sys.executable, "-m", "skill_conformance.commands.main", "gherkin"]
    command += ["--specs", str(specs), "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out.is_dir() and any(out.glob("*.feature"))):
        assert process.poll() is None, "finished before it could be stopped: write more specs"
        assert time.monotonic() < deadline
        time.sleep(0.001)
    process.terminate()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert err == "skill-conformance: interrupted\n"
    assert [path.name for path in out.iterdir() if not path.name.endswith(".feature")] == []
