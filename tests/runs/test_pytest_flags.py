"""pytest's own options under ``skill-conformance run``: each works, or is refused in one line.

The fast tests check each case a user met (a test id passed back, ``-p no:cacheprovider``, a typo
in ``-m``, plugin autoloading off, Cucumber JSON under pytest-xdist, the last-failed cache of
another project). The slow one goes over every option of pytest's own ``--help``, as the
installed pytest lists them, so that an option a newer pytest adds is tried too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skill_conformance.commands.run import REFUSED_OPTIONS, pytest_arguments
from skill_conformance.errors import InputError
from skill_conformance.runtime.markers import unknown_markers
from skill_conformance.runtime.options import IMPL, SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
ONE = "cr_line_endings"
"""``-k`` of one quick scenario."""


def _run(cwd: Path, *arguments: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_conformance", "run", "--impl", "reference", *arguments],
        cwd=cwd,
        env={**os.environ, "XDG_CACHE_HOME": str(cwd / ".cache"), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _arguments(*extra: str) -> list[str]:
    return pytest_arguments({IMPL.dest: "reference"}, list(extra))


def test_p_no_cacheprovider_is_given_no_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert any(a.startswith("cache_dir=") for a in _arguments())
    assert not any(a.startswith("cache_dir=") for a in _arguments("-p", "no:cacheprovider"))
    assert not any(a.startswith("cache_dir=") for a in _arguments("-pno:cacheprovider"))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:cacheprovider")
    assert not any(a.startswith("cache_dir=") for a in _arguments())


def test_the_last_failed_cache_is_one_per_implementation_and_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    caches = []
    for project in ("one", "two", "two"):
        (tmp_path / project).mkdir(exist_ok=True)
        monkeypatch.chdir(tmp_path / project)
        caches.append(next(a for a in _arguments() if a.startswith("cache_dir=")))
    assert caches[0] != caches[1]
    assert caches[1] == caches[2]


@pytest.mark.parametrize(
    "given",
    [
        "steps/test_conformance.py::test_x",
        "test_conformance.py::test_x",
        f"{SCENARIOS}::test_x",
        "/elsewhere/site-packages/skill_conformance/steps/test_conformance.py::test_x",
    ],
)
def test_a_test_id_a_run_printed_selects_that_scenario_alone(given: str) -> None:
    arguments = _arguments(given)
    assert f"{SCENARIOS}::test_x" in arguments
    assert str(SCENARIOS) not in arguments  # not every scenario besides
    deselected = _arguments("--deselect", given)
    assert "steps/test_conformance.py::test_x" in deselected  # as pytest writes node ids
    assert str(SCENARIOS) in deselected


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["-c", "pytest.ini"], "-c"),
        (["-cpytest.ini"], "-c"),
        (["--config-file=pytest.ini"], "--config-file"),
        (["--rootdir", "."], "--rootdir"),
        (["-p", "no:skill_conformance"], "-p no:skill_conformance"),
        (["-pno:pytest-bdd"], "-p no:pytest-bdd"),
    ],
)
def test_an_option_that_takes_the_suites_own_away_is_refused_naming_it(
    given: list[str], named: str
) -> None:
    with pytest.raises(InputError, match=f"^{re.escape(named)} cannot be given"):
        _arguments(*given)


def test_an_m_expression_names_only_markers_it_knows() -> None:
    known = {"needs:mcp", "capability:skill-tools", "slow"}
    assert unknown_markers("needs:mcp and not capability:skill-tools", known) == []
    assert unknown_markers("(needs:mcp or slow) and not needs:mpc", known) == ["needs:mpc"]
    assert unknown_markers("slow(reason='x y')", known) == []


def test_the_ids_a_collect_only_run_printed_select_those_scenarios(tmp_path: Path) -> None:
    listed = _run(tmp_path, "--collect-only", "-q", "-k", "unquoted_value_holding_a_colon")
    ids = [line for line in listed.stdout.splitlines() if "::" in line]
    assert len(ids) > 1, listed.stdout[-2000:]
    again = _run(tmp_path, "--collect-only", "-q", *ids[:2])
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr
    assert [line for line in again.stdout.splitlines() if "::" in line] == ids[:2]


def test_p_no_cacheprovider_runs(tmp_path: Path) -> None:
    done = _run(tmp_path, "-q", "-p", "no:cacheprovider", "-k", ONE)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "1 passed" in done.stdout


def test_the_suite_runs_with_plugin_autoloading_off(tmp_path: Path) -> None:
    done = _run(tmp_path, "-q", "-k", ONE, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "1 passed" in done.stdout


def test_an_unknown_marker_in_m_is_one_usage_error_and_markers_lists_needs(
    tmp_path: Path,
) -> None:
    done = _run(tmp_path, "-q", "-m", "needs:mcp or needs:mpc")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    assert done.stderr.strip().splitlines() == [
        "ERROR: -m: 'needs:mpc' is no marker of the scenarios (`--markers` lists them)"
    ]
    listed = _run(tmp_path, "--markers")
    assert re.search(r"@pytest\.mark\.needs: mcp: ", listed.stdout), listed.stdout[-3000:]


def test_cucumber_json_under_xdist_is_refused_in_one_line(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    done = _run(tmp_path, "-q", "-n", "2", f"--cucumberjson={tmp_path / 'c.json'}")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("ERROR: --cucumberjson cannot be written under pytest-xdist (-n)")


# -- every option of pytest's own --help ---------------------------------------------------------

_OPTION = re.compile(r"^  (-{1,2}[\w-]+)(?P<value>[ =]\S)?")
"""An option's line of ``pytest --help``: its first spelling, and whether a value follows."""

_VALUES = {
    "-k": ONE,
    "-m": "not needs:mcp",
    "--maxfail": "1",
    "--pdbcls": "pdb:Pdb",
    "--capture": "no",
    "--lfnf": "all",
    "--durations": "3",
    "--durations-min": "0.5",
    "--verbosity": "1",
    "-r": "a",
    "--tb": "short",
    "--show-capture": "no",
    "--color": "no",
    "--code-highlight": "no",
    "--pastebin": "failed",
    "--junit-xml": "{tmp}/junit.xml",
    "--junitxml": "{tmp}/junit.xml",
    "--junit-prefix": "x",
    "-W": "error",
    "--max-warnings": "5",
    "--ignore": "{tmp}/nothing",
    "--ignore-glob": "*nothing*",
    "--deselect": "steps/test_conformance.py::test_cr_line_endings",
    "--confcutdir": "{tmp}",
    "--import-mode": "importlib",
    "--doctest-report": "udiff",
    "--doctest-glob": "*.txt",
    "-c": "{tmp}/pytest.ini",
    "--config-file": "{tmp}/pytest.ini",
    "--rootdir": "{tmp}",
    "--basetemp": "{tmp}/base",
    "-p": "no:cacheprovider",
    "--debug": "{tmp}/debug.log",
    "-o": "console_output_style=classic",
    "--override-ini": "console_output_style=classic",
    "--assert": "plain",
    "--log-level": "INFO",
    "--log-cli-level": "INFO",
    "--log-file": "{tmp}/log.txt",
    "--log-file-mode": "a",
    "--log-file-level": "INFO",
    "--log-auto-indent": "on",
    "--log-disable": "nothing",
}
"""A value to try each option with, where it takes one (else ``%(message)s``-like text)."""


def _pytest_options() -> list[tuple[str, bool]]:
    """Every option of pytest's own ``--help`` (no plugin's): spelling, whether it takes a value."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        cwd=ROOT / "tests",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    options = []
    for line in done.stdout.splitlines():
        match = _OPTION.match(line)
        if match:
            options.append((match[1], match["value"] is not None))
    return options


_OPTIONS = _pytest_options()


def test_pytests_help_lists_the_options_the_table_knows() -> None:
    names = {name for name, _ in _OPTIONS}
    assert {"-k", "-m", "-p", "-c", "--lf", "--rootdir"} <= names, names
    assert len(names) > 60


@pytest.mark.slow
@pytest.mark.parametrize(("option", "takes_value"), _OPTIONS, ids=[o for o, _ in _OPTIONS])
def test_every_option_of_pytests_help_works_with_run_or_is_refused_naming_it(
    tmp_path: Path, option: str, takes_value: bool
) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    value = _VALUES.get(option, "%(message)s" if option.startswith("--log") else None)
    given = [option] if not takes_value or value is None else [option, value.format(tmp=tmp_path)]
    done = _run(tmp_path, "-q", "-k", f"{ONE} or names_outside_the_format", *given)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output[-3000:]
    if option in REFUSED_OPTIONS:
        assert done.returncode == 2, output[-3000:]
        assert done.stderr.strip().splitlines() == [
            f"skill-conformance: error: {option} cannot be given to `skill-conformance run`: "
            f"{REFUSED_OPTIONS[option]}"
        ]
    else:
        assert done.returncode == 0, output[-3000:]
