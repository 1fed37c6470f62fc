"""Results files record the versions a run depended on; files of the format before still load."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from skill_conformance.runtime.environment import PACKAGES, environment
from skill_conformance.verdicts.results import FORMAT, Header, Results, load_results, write_results

_HEADER = {
    "suite_version": "0.1.0",
    "spec_digest": "sha256:0",
    "adapter": {"name": "reference", "version": "0.1.0"},
    "impl": "reference",
}


def test_a_results_file_of_format_1_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    document = {"format": "skill-conformance-results/1", "header": _HEADER, "scenarios": []}
    path.write_text(json.dumps(document))
    results = load_results(path)
    assert results.header.adapter == "reference"
    assert results.header.environment == ()


def test_the_environment_is_written_and_read_back(tmp_path: Path) -> None:
    versions = (("python", "3.12.3"), ("pytest", "9.0.1"), ("mypackage", "1.4.0"))
    header = Header("0.1.0", "sha256:0", "reference", "0.1.0", "reference", versions)
    path = tmp_path / "results.json"
    write_results(path, Results(header, ()))
    assert json.loads(path.read_text())["format"] == FORMAT == "skill-conformance-results/2"
    assert load_results(path).header.environment == versions


def test_the_environment_names_python_the_dependencies_and_the_implementation() -> None:
    found = dict(environment("yaml.loader"))  # an implementation in PyYAML's package
    assert found["python"] == platform.python_version()
    assert set(PACKAGES) <= set(found)
    assert all(found[name] != "not installed" for name in PACKAGES), found
    assert found["PyYAML"] == yaml_version()
    assert "skill-conformance" not in dict(environment("skill_conformance.adapters.reference"))


def yaml_version() -> str:
    import yaml

    return str(yaml.__version__)
