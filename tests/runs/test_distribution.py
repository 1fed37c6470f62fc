"""The built wheel, installed alone into a fresh venv, runs the bundled suite from anywhere.

The wheel is built as ``uv build``, ``python -m build`` and ``pip install`` of the sdist or a git
URL build it: from the sdist, which must therefore carry the whole suite. One wheel and one venv
serve every test here (module scope): building and installing take most of the time. The venv gets
the locked versions of the dependencies, then the wheel. It lies inside another project's checkout,
as a project's ``.venv`` does, whose ``conftest.py``, ``pytest.ini`` and ``pyproject.toml`` would
wreck any run they reached: pytest looks for its configuration and conftest files in the folders
above the tests, which here are that project's.
"""

from __future__ import annotations

import email
import os
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from packaging.specifiers import SpecifierSet

from skill_conformance.bundled import features_dir
from tests.runs.runs_helpers import uv

pytestmark = pytest.mark.slow  # a wheel build, a venv and two whole suite runs: `make ci`

ROOT = Path(__file__).resolve().parents[2]

ADAPTER = '''
from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import Ability


class Outside(ReferenceImplementation):
    """An adapter kept outside the suite: the reference, lacking a pool that rebuilds."""

    name = "outside"

    def __init__(self) -> None:
        super().__init__()
        self.unsupported = {Ability.POOL_REBUILD: "outside has no pool"}
'''

HOSTILE_CONFTEST = """
import pytest


def pytest_collection_modifyitems(items):
    items[:] = items[:1]


def pytest_runtest_call(item):
    raise RuntimeError("the hostile conftest.py ran")


def pytest_bdd_apply_tag(tag, function):
    return True
"""

HOSTILE_INI = "[pytest]\naddopts = -k no_such_scenario --maxfail=1\nxfail_strict = false\n"
HOSTILE_PYPROJECT = '[tool.pytest.ini_options]\naddopts = "-k no_such_scenario"\n'


@dataclass(frozen=True)
class Installed:
    """The wheel file and the venv it was installed into."""

    wheel: Path
    venv: Path

    def run(self, cwd: Path, *args: str, pythonpath: Path | None = None) -> str:
        """Run ``skill-conformance ARGS`` of the venv in ``cwd``; its output (it must pass)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "VIRTUAL_ENV"))}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if pythonpath is not None:
            env["PYTHONPATH"] = str(pythonpath)
        done = subprocess.run(
            [str(self.venv / "bin" / "skill-conformance"), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, output[-4000:]
        return output


def _uv(*args: str, cwd: Path = ROOT) -> None:
    done = subprocess.run(
        [uv(), *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("distribution")
    _uv("build", "--quiet", "--out-dir", str(base / "dist"), str(ROOT))  # sdist, then its wheel
    (wheel,) = (base / "dist").glob("skill_conformance-*.whl")
    requirements = base / "requirements.txt"
    _uv(
        "export", "--frozen", "--no-dev", "--no-emit-project", "--no-hashes", "--quiet",
        "--output-file", str(requirements),
    )  # fmt: skip
    project = base / "project"
    project.mkdir()
    (project / "conftest.py").write_text(HOSTILE_CONFTEST)
    (project / "pytest.ini").write_text(HOSTILE_INI)
    (project / "pyproject.toml").write_text(HOSTILE_PYPROJECT)
    venv = project / ".venv"
    _uv("venv", "--quiet", "--python", sys.executable, str(venv))
    python = str(venv / "bin" / "python")
    _uv("pip", "install", "--quiet", "--python", python, "-r", str(requirements), str(wheel))
    return Installed(wheel, venv)


def _testcases(junit: Path) -> list[ElementTree.Element]:
    return list(ElementTree.parse(junit).getroot().iter("testcase"))


def _scenario_count() -> int:
    """The scenarios a run against a skill system is given: all but the MCP server profile's."""
    count = 0
    for feature in features_dir().glob("*.feature"):
        tags = ""
        for line in feature.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("@"):
                tags = line
            elif line.lstrip().startswith("Scenario:"):
                count += "@profile:mcp-server" not in tags
    return count


def test_the_wheel_installs_only_skill_conformance(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"skill_conformance", installed.wheel.name.split("-")[0] + "-0.1.0.dist-info"}
    bundled = {
        "skill_conformance/reference/manager.py",
        "skill_conformance/steps/test_conformance.py",
        "skill_conformance/_bundled/features/skill-tools.feature",
        "skill_conformance/_bundled/openspec/specs/skill-tools/spec.md",
        "skill_conformance/_bundled/expectations/README.md",
        "skill_conformance/runtime/suite.ini",
        "skill_conformance/py.typed",  # an adapter subclassing the port is type-checked
    }
    features = {
        f"skill_conformance/_bundled/features/{path.name}" for path in features_dir().iterdir()
    }
    bundled |= features
    assert bundled <= set(names)
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names
    entry_points = zipfile.ZipFile(installed.wheel).read(
        next(name for name in names if name.endswith("entry_points.txt"))
    )
    assert b"[pytest11]" in entry_points


def test_the_metadata_tells_an_index_and_a_resolver_what_they_need(installed: Installed) -> None:
    wheel = zipfile.ZipFile(installed.wheel)
    metadata = wheel.read(next(n for n in wheel.namelist() if n.endswith("/METADATA")))
    message = email.message_from_bytes(metadata)
    classifiers = message.get_all("Classifier")
    assert "Framework :: Pytest" in classifiers
    assert message["License-Expression"] == "MIT"
    assert message["License-File"] == "LICENSE"
    urls = dict(url.split(", ", 1) for url in message.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Issues", "Source"} <= set(urls)
    # Every Python the classifiers name is one Requires-Python admits, and the other way round.
    named = {c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)}
    admitted = SpecifierSet(message["Requires-Python"])
    assert named == {f"3.{minor}" for minor in range(20) if f"3.{minor}" in admitted}
    # pytest-bdd is bounded above: the suite reaches into its internals.
    (bdd,) = [r for r in message.get_all("Requires-Dist") if r.startswith("pytest-bdd")]
    assert any(s.operator == "<" for s in SpecifierSet(bdd.removeprefix("pytest-bdd")))
    # The long description is the README, its links made absolute: they work on the index.
    description = message.get_payload()
    assert message["Description-Content-Type"] == "text/markdown"
    assert description.startswith("# skill-conformance\n")
    links = re.findall(r"\]\(([^)\s]+)\)", description)
    assert links, "the README has links"
    relative = [link for link in links if not re.match(r"[a-z]+://|#", link)]
    assert relative == []


def test_the_bundled_suite_passes_on_the_reference_from_an_empty_directory(
    installed: Installed, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    junit = tmp_path / "junit.xml"
    output = installed.run(empty, "run", "--impl", "reference", f"--junitxml={junit}")
    cases = _testcases(junit)
    assert len(cases) == _scenario_count()
    outcomes = ("failure", "error", "skipped")
    assert not [case for case in cases if any(case.find(o) is not None for o in outcomes)]
    assert f"{_scenario_count()} passed" in output
    assert list(empty.iterdir()) == []


def test_an_outside_adapter_runs_unswayed_by_a_hostile_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    adapters = tmp_path / "adapters"
    adapters.mkdir()
    (adapters / "outside_adapter.py").write_text(ADAPTER)
    checkout = installed.venv.parent
    before = sorted(path.name for path in checkout.iterdir())
    junit = tmp_path / "junit.xml"
    output = installed.run(
        checkout,
        "run",
        "--impl",
        "outside_adapter:Outside",
        f"--junitxml={junit}",
        pythonpath=adapters,
    )
    cases = _testcases(junit)
    assert len(cases) == _scenario_count()
    skipped = [case for case in cases if case.find("skipped") is not None]
    assert skipped, "no scenario was not applicable: the outside adapter was not the one run"
    reasons = [str(case.find("skipped").get("message")) for case in skipped]  # type: ignore[union-attr]
    assert all("outside has no pool" in reason for reason in reasons), reasons
    assert not [case for case in cases if case.find("failure") is not None]
    assert not [case for case in cases if case.find("error") is not None]
    assert "outside" in output
    assert sorted(path.name for path in checkout.iterdir()) == before
