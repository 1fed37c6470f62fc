"""The suite's pytest plugin stays out of other projects' runs and behaves as a pytest user expects.

Installed, it adds options named ``--skill-conformance-*`` and nothing else; ``-p
no:skill_conformance`` removes it; a run names an implementation to turn the suite on; scenarios
are selected by their tags with ``-k`` and ``-m``; the command ``skill-conformance run`` lists
every option and becomes pytest; errors are pytest's exit statuses, in one line.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from skill_conformance.bundled import features_dir
from skill_conformance.commands.main import main
from skill_conformance.runtime.options import OPTIONS
from tests.porting.porting_helpers import pids_in
from tests.runs.plugin_run import run_with_plugin

ROOT = Path(__file__).resolve().parents[2]

_HOST_CONFTEST = """
def pytest_addoption(parser):
    for name in ("--impl", "--expectations", "--results", "--memory-limit", "--traceback"):
        parser.addoption(name, default="the host's")
"""
_HOST_TEST = """
import sys

def test_host(request):
    assert request.config.getoption("impl") == "the host's"
    print("LOADED", sorted(name for name in sys.modules if name.startswith("skill_conformance")))
"""


def test_a_host_project_keeps_its_own_options_and_loads_nothing_more_of_the_suite(
    tmp_path: Path,
) -> None:
    files = {"conftest.py": _HOST_CONFTEST, "test_host.py": _HOST_TEST}
    done = run_with_plugin(tmp_path, files, "test_host.py", suite=False)
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    modules = [
        "skill_conformance",
        "skill_conformance.runtime",
        "skill_conformance.runtime.options",
    ]
    assert loaded == f"LOADED {modules}"


def test_p_no_skill_conformance_leaves_the_plugin_out(tmp_path: Path) -> None:
    files = {"test_x.py": "def test_x():\n    pass\n"}
    with_it = run_with_plugin(tmp_path, files, "--help", suite=False)
    without = run_with_plugin(tmp_path, files, "-p", "no:skill_conformance", "--help", suite=False)
    assert "--skill-conformance-impl" in with_it.stdout
    assert without.returncode == 0, without.stderr
    assert "skill-conformance" not in without.stdout


def _pytest(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments]
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_scenarios_without_an_implementation_are_one_usage_error() -> None:
    done = _pytest("src/skill_conformance/steps")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "ERROR: the conformance scenarios need an implementation: --skill-conformance-impl NAME "
        "(or run them with `skill-conformance run --impl NAME`)"
    ]


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_a_collection_error_is_pytests_own(tmp_path: Path) -> None:
    """Exit 2, as pytest gives it, and nothing of the suite's after pytest's error."""
    broken = tmp_path / "test_broken.py"
    broken.write_text("def test_x(:\n")
    junit = tmp_path / "junit.xml"
    done = _pytest(
        "src/skill_conformance/steps",
        str(broken),
        "--skill-conformance-impl=reference",
        f"--junitxml={junit}",
    )
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "1 error during collection" in output
    assert "INTERNALERROR" not in output
    assert "Traceback (most recent call last)" not in output
    assert 'errors="1"' in junit.read_text()


def _tagged(tag: str) -> int:
    """How many scenarios of the features carry ``tag``, on themselves, their feature or rule."""
    count = 0
    for feature in sorted(features_dir().glob("*.feature")):
        pending, on_feature, on_rule = False, False, False
        for line in feature.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith("@"):
                pending = pending or tag in stripped.split()
                continue
            if stripped.startswith("Feature:"):
                on_feature = pending
            elif stripped.startswith("Rule:"):
                on_rule = pending
            elif stripped.startswith(("Scenario:", "Scenario Outline:")):
                count += pending or on_feature or on_rule
            if stripped:
                pending = False
    return count


def _collected(*selection: str) -> int:
    command = [sys.executable, "-m", "skill_conformance", "run", "--impl", "reference"]
    done = subprocess.run(
        [*command, "--collect-only", "-q", *selection],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", done.stdout)
    assert found is not None, done.stdout[-2000:] + done.stderr
    return int(found.group(1))


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_scenarios_are_selected_by_capability_requirement_id_and_ability() -> None:
    requirement = "requirement:list-skills-shall-return-all-visible-skills"
    mcp = _tagged("@needs:mcp")
    every = _tagged("@capability:skill-tools") + _tagged("@capability:skill-loading")
    assert 0 < mcp < every
    assert _collected("-m", "needs:mcp") == mcp
    assert _collected("-k", "capability:skill-tools") == _tagged("@capability:skill-tools")
    assert _collected("-k", "skill-tools") >= _tagged("@capability:skill-tools")  # a substring
    assert _collected("-m", requirement) == _tagged(f"@{requirement}") > 0
    scenario = "id:list-skills-shall-return-all-visible-skills.list-skills-from-multiple-sources"
    assert _collected("-k", scenario) == 1
    assert _collected("-m", "capability:skill-tools and not needs:mcp") == (
        _tagged("@capability:skill-tools")
        - _collected("-m", "capability:skill-tools and needs:mcp")
    )


def test_run_help_lists_every_option_of_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--help"]) == 0
    shown = capsys.readouterr().out
    for option in OPTIONS:
        assert option.run_flag in shown
    assert "-m 'needs:mcp'" in shown
    assert "--lf" in shown


@pytest.mark.parametrize(
    "command", [[], ["run"], ["smoke"], ["report"], ["trace"], ["expectations"], ["gherkin"]]
)
def test_help_texts_hold_no_markup(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--help"]) == 0
    shown = capsys.readouterr().out
    assert "``" not in shown
    assert not re.search(r":(mod|class|func|data):`", shown), shown


def test_python_m_skill_conformance_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skill_conformance", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("skill-conformance ")


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_run_becomes_pytest(tmp_path: Path) -> None:
    """The pid a CI runner signals is pytest's: no wrapper is left to die alone."""
    script = "import os, sys; print(os.getpid(), flush=True); sys.exit(0)"
    plugin = tmp_path / "pid_probe.py"
    plugin.write_text(f"def pytest_configure(config):\n    {script}\n")
    command = [sys.executable, "-m", "skill_conformance", "run", "--impl", "reference"]
    process = subprocess.Popen(
        [*command, "-p", "pid_probe", "--collect-only"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        text=True,
    )
    output, _ = process.communicate(timeout=120)
    assert output.split()[0] == str(process.pid)


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_a_forked_helper_of_the_implementation_does_not_hold_the_run(tmp_path: Path) -> None:
    """A helper forked without exec inherits the run's descriptors; the run ends all the same."""
    pids, log = tmp_path / "pids", tmp_path / "run.log"
    env = {**os.environ, "SC_HELPER_PIDS": str(pids)}
    command = [sys.executable, "-m", "skill_conformance", "run"]
    # 17 scenarios: enough that the forked workers of earlier versions ran them (one per 8), and
    # waited the helpers out. A helper lives ten minutes: a run that waited for one would end
    # past the timeout; one that did not leaves every helper alive, however loaded the machine.
    selection = "list_skills or bare_name or by_uri or argument"
    command += ["--impl", "tests.misbehaving.adapters:ForksHelper", "-k", selection]
    try:
        with log.open("wb") as sink:
            done = subprocess.run(
                command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=300
            )
        helpers = pids_in(pids)
        assert helpers, log.read_text()
        assert all(_alive(pid) for pid in helpers)  # the run did not wait for any of them
        assert done.returncode == 0, log.read_text()[-3000:]
    finally:
        for pid in pids_in(pids):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _run(
    cwd: Path, *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_conformance", *arguments],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_usage_error_is_an_errored_test_case_in_junit(tmp_path: Path) -> None:
    """Not an empty, green file: a dashboard shows the run could not start, and why."""
    junit = tmp_path / "junit.xml"
    junit.write_text("<testsuites/>")  # an earlier run's file must not stand for this one
    done = _run(tmp_path, "run", "--impl", "no_such_module:Impl", f"--junitxml={junit}")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    text = junit.read_text()
    assert 'errors="1"' in text
    assert "cannot import no_such_module" in text


@pytest.mark.slow  # among make test's costliest (docs/benchmarks.md): make ci
def test_run_reruns_the_last_failures_of_that_implementation(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = _run(ROOT, "run", "--impl", "template", "-q", "-k", "load_skill_by_bare_name", env=env)
    assert "1 errored" in first.stdout, first.stdout[-2000:]
    again = _run(ROOT, "run", "--impl", "template", "-q", "--lf", "--collect-only", env=env)
    assert re.search(r"\b1/\d+ tests? collected", again.stdout), again.stdout[-2000:]
    other = _run(ROOT, "run", "--impl", "reference", "-q", "--lf", "--collect-only", env=env)
    assert re.search(r"\b(\d+) tests? collected", other.stdout), other.stdout[-2000:]
    # the reference's own cache: nothing failed (the server profile's scenarios are deselected)
    assert not re.search(r"\b1/\d+ tests? collected", other.stdout), other.stdout[-2000:]


def test_smoke_imports_an_adapter_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / "here_adapter.py").write_text(
        "from skill_conformance.adapters.reference import ReferenceImplementation as Here\n"
    )
    done = _run(tmp_path, "smoke", "--impl", "here_adapter:Here")
    assert done.returncode == 0, done.stdout + done.stderr
