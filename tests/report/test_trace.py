"""``skill-conformance trace``: each of its checks can fail, and says where."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.main import main

SPEC = """# {name}

## Purpose
Demo.

## Requirements

### Requirement: Greeting SHALL be polite
[demo.greet] The system SHALL greet.

#### Scenario: {title}
<!-- tags: @clause:demo.greet -->
- **WHEN** the user says `hello`
- **THEN** the reply is polite
"""


def _trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["trace", *args])
    return status, capsys.readouterr().out


def test_the_suite_has_a_scenario_for_every_requirement(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _trace(capsys, "--no-steps")
    assert status == 0
    assert "every requirement has at least one scenario" in out
    assert "normative text in no clause" not in out
    assert " 0 unchecked" in out.splitlines()[0]


def _specs(tmp_path: Path, text: str) -> str:
    spec = tmp_path / "specs" / "demo" / "spec.md"
    spec.parent.mkdir(parents=True)
    spec.write_text(text)
    return str(tmp_path / "specs")


def test_each_clause_is_listed_with_the_scenarios_that_check_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = _specs(tmp_path, SPEC.format(name="demo", title="Morning"))
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 0, out
    assert "clauses: 1: 1 checked, 0 untestable (with a reason), 0 unchecked" in out
    assert "    [demo.greet] points: 1 scenario\n        Morning\n" in out


def test_a_clause_stating_a_domain_is_checked_over_it_or_says_why_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SPEC.format(name="demo", title="Morning")
    domain = "<!-- domain: demo.greet: every greeting word; edges: the empty one -->\n"
    with_domain = text.replace("The system SHALL greet.\n", "The system SHALL greet.\n" + domain)
    specs = _specs(tmp_path, with_domain)
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 1, out
    assert "1 at points without a reason" in out
    assert "only point scenarios check" in out
    assert "  [demo.greet] demo\n" in out
    spec = tmp_path / "specs" / "demo" / "spec.md"
    reason = "<!-- points-only: demo.greet: the words are few and all listed -->\n"
    spec.write_text(with_domain.replace(domain, domain + reason))
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 0, out
    assert "[demo.greet] points (its domain: the words are few and all listed)" in out
    spec.write_text(with_domain.replace("demo.greet:", "demo.greet by greetings @needs:x:"))
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 0, out
    assert "checked over it by 1 properties" in out
    assert "[demo.greet] domain: 2 scenarios\n        Morning\n" in out
    assert "        [demo.greet] holds over its domain\n" in out


def test_a_clause_no_scenario_checks_fails_unless_it_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SPEC.format(name="demo", title="Morning").replace(
        "The system SHALL greet.", "The system SHALL greet. [demo.wave] It SHALL wave."
    )
    specs = _specs(tmp_path, text)
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 1
    assert "[demo.wave] UNCHECKED: It SHALL wave." in out
    status, out = _trace(capsys, "--no-steps", "--specs", specs, "--allow-unchecked")
    assert status == 0, out
    reason = "<!-- untestable: demo.wave: no camera sees a wave -->\n"
    (tmp_path / "specs" / "demo" / "spec.md").write_text(
        text.replace("It SHALL wave.\n", "It SHALL wave.\n" + reason)
    )
    status, out = _trace(capsys, "--no-steps", "--specs", specs)
    assert status == 0, out
    assert "[demo.wave] untestable: no camera sees a wave" in out


def test_a_shall_in_no_clause_fails_even_when_unchecked_clauses_are_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SPEC.format(name="demo", title="Morning").replace(
        "The system SHALL greet.", "The system SHALL greet. It MUST smile."
    )
    status, out = _trace(
        capsys, "--no-steps", "--specs", _specs(tmp_path, text), "--allow-unchecked"
    )
    assert status == 1
    assert "normative text in no clause: 1" in out
    assert "demo/spec.md:9: It MUST smile." in out


def test_a_tag_naming_no_clause_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = SPEC.format(name="demo", title="Morning").replace("@clause:demo.greet", "@clause:x.y")
    status, out = _trace(
        capsys, "--no-steps", "--specs", _specs(tmp_path, text), "--allow-unchecked"
    )
    assert status == 1
    assert "@clause:x.y names no clause of these specs" in out


def test_a_requirement_without_scenario_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "specs" / "demo" / "spec.md"
    spec.parent.mkdir(parents=True)
    spec.write_text(
        SPEC.format(name="demo", title="Morning")
        + "\n### Requirement: Bye SHALL be said\nThe system SHALL say bye.\n"
    )
    status, out = _trace(capsys, "--no-steps", "--specs", str(tmp_path / "specs"))
    assert status == 1
    assert "Bye SHALL be said" in out


def test_an_undefined_step_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "demo.feature").write_text(
        "Feature: demo\n  Scenario: Greeting\n    When the user says hello\n"
        "    Then the reply is polite\n"
    )
    (tmp_path / "test_demo.py").write_text(
        "from pytest_bdd import scenarios, when\n\n"
        "scenarios('features')\n\n\n"
        "@when('the user says hello')\n"
        "def _hello():\n    pass\n"
    )
    status, out = _trace(
        capsys,
        "--root",
        str(tmp_path),
        "--steps",
        "test_demo.py",
        "--features",
        "features",
    )
    assert status == 1, out
    assert 'Step Then "the reply is polite" is not defined in the scenario "Greeting"' in out
    assert "undefined steps: 1, unbound: 0" in out


def test_coverage_against_another_tree_by_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = tmp_path / "other" / "specs"
    for name, title in [("skill-tools", "load SKILL by `bare` name"), ("elsewhere", "Unrelated")]:
        (specs / name).mkdir(parents=True)
        (specs / name / "spec.md").write_text(SPEC.format(name=name, title=title))
    status, out = _trace(capsys, "--no-steps", "--against", str(tmp_path / "other"))
    assert status == 0
    assert "covered by title: 1 of 2 scenarios of the other tree" in out
    assert "  skill-tools: 1 of 1 covered" in out
    assert "none covered in 1 capabilities: elsewhere (1)" in out
    ours = len(load_catalogue(specs_dir()).entries())
    assert f"this suite's scenarios the other tree lacks: {ours - 1}" in out


def test_a_spec_of_the_other_tree_that_cannot_be_read_is_an_error_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = tmp_path / "other" / "specs"
    (specs / "skill-tools").mkdir(parents=True)
    (specs / "skill-tools" / "spec.md").write_text(
        SPEC.format(name="skill-tools", title="Unrelated")
    )
    (specs / "looping").mkdir()
    (specs / "looping" / "spec.md").symlink_to("spec.md")
    status = main(["trace", "--no-steps", "--against", str(tmp_path / "other")])
    out, err = capsys.readouterr()
    assert status == 2
    assert "  skill-tools: 0 of 1 covered" in out or "skill-tools (1)" in out, out
    (line,) = err.splitlines()
    assert line.startswith("skill-conformance: error: --against: looping/spec.md:1: cannot read")
    assert "symbolic links" in line
    assert "looping/spec.md" not in out


def test_a_reader_that_stops_early_ends_the_command_quietly() -> None:
    """`trace | head -1`: no traceback when `head` is gone before the command writes."""
    command = [sys.executable, "-m", "skill_conformance", "trace"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()  # gone before the command writes: its first write meets no reader
        errors = process.stderr.read().decode()
        status = process.wait(timeout=120)
    assert status == 128 + signal.SIGPIPE, errors
    assert errors == "", errors
