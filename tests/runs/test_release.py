"""The release workflow: trusted publishing of the sdist and the wheel built from it, on a tag.

Its build (sdist, then wheel) and the wheel's run from an empty directory are what
``test_distribution.py`` does; here, the guard that a tag names the version being released runs
as the runner would run it, and the publishing job is checked for what trusted publishing needs.
"""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from tests.runs.runs_helpers import uv

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW: dict[Any, Any] = yaml.safe_load(
    (ROOT / ".github" / "workflows" / "release.yml").read_text("utf-8")
)
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
VERSION = PROJECT["version"]
FLOOR_SET_BY_OTHERS = {"typing-extensions": "pydantic and the mcp SDK ask for newer than ours"}
"""Dependencies whose oldest version is decided by other dependencies' own floors."""


def _step(job: str, name: str) -> dict[str, Any]:
    (step,) = [s for s in WORKFLOW["jobs"][job]["steps"] if s.get("name") == name]
    return step


def _run_tag_check(tag: str) -> subprocess.CompletedProcess[str]:
    script = _step("build", "The tag names the version being released")["run"]
    # The step calls `uv` by name, as on the runner: make's uv, first on PATH.
    path = f"{Path(uv()).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "GITHUB_REF_NAME": tag, "PATH": path}
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_tag_naming_the_version_is_released() -> None:
    done = _run_tag_check(f"v{VERSION}")
    assert done.returncode == 0, done.stderr


def test_a_tag_naming_another_version_stops_the_release() -> None:
    done = _run_tag_check("v99.0.0")
    assert done.returncode == 1
    assert f"tag v99.0.0 does not name pyproject.toml's version {VERSION}" in done.stderr


def test_it_runs_on_a_version_tag_only() -> None:
    triggers = WORKFLOW[True]  # YAML 1.1 reads the key `on` as true
    assert triggers == {"push": {"tags": ["v*"]}}
    assert WORKFLOW["permissions"] == {"contents": "read"}


def test_the_build_is_the_sdist_then_its_wheel_checked_and_run() -> None:
    runs = [s.get("run", "") for s in WORKFLOW["jobs"]["build"]["steps"]]
    assert "uv build --out-dir dist" in runs  # no --wheel: the wheel is built from the sdist
    assert any("twine check --strict" in run for run in runs)
    assert any("skill-conformance run --impl reference" in run for run in runs)


def test_publishing_uses_trusted_publishing_and_nothing_else() -> None:
    publish = WORKFLOW["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"] == "pypi"
    uses = [s.get("uses", "") for s in publish["steps"]]
    assert uses[-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert "password" not in str(publish)  # no token: the index trusts this workflow


def _oldest_pins() -> dict[str, Version]:
    (line,) = [
        line
        for line in (ROOT / "Makefile").read_text("utf-8").splitlines()
        if line.startswith("OLDEST :=")
    ]
    pins = [Requirement(pin.strip('"')) for pin in line.split(":=", 1)[1].split()]
    return {pin.name: Version(next(iter(pin.specifier)).version) for pin in pins}


def test_the_oldest_versions_ci_runs_are_the_floors_the_package_declares() -> None:
    """make conformance-oldest runs the suite at each dependency's declared floor, so a floor
    lowered without running it there, or a pin moved without the floor, fails here."""
    pins = _oldest_pins()
    for requirement in map(Requirement, PROJECT["dependencies"]):
        if requirement.name in FLOOR_SET_BY_OTHERS:
            assert requirement.name not in pins
            continue
        pin = pins.pop(requirement.name)
        assert requirement.specifier.contains(pin), (requirement, pin)
        (floor,) = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
        assert pin.release[: len(floor.release)] == floor.release, (requirement, pin)
    assert pins == {}, "pinned in OLDEST but not a dependency"
