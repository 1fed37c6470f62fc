"""The registry of implementations: the entry points ``--impl`` reads, its help and its error."""

from __future__ import annotations

import re

import pytest

from skill_conformance.commands.main import main
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.options import IMPL
from skill_conformance.runtime.registry import implementations

BUNDLED = {
    "reference", "agentpool", "wolfharness", "template", "jsonlines", "pydantic-ai-skills",
    "deepagents", "agno", "fast-agent", "mastra",
}  # fmt: skip


def test_the_bundled_adapters_are_registered_as_entry_points() -> None:
    assert set(implementations()) >= BUNDLED
    assert all(
        target.startswith("skill_conformance.adapters.") and ":" in target
        for name, target in implementations().items()
        if name in BUNDLED
    )


def test_the_help_of_impl_names_every_registered_implementation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    listed = re.search(r"a registered name \(([^)]*)\)", shown)
    assert listed is not None, shown
    assert sorted(listed.group(1).split(", ")) == sorted(implementations())
    assert "run --help` lists them" in IMPL.help  # pytest's own help points there


def test_an_unknown_name_is_refused_with_every_registered_one() -> None:
    with pytest.raises(AdapterLoadError) as error:
        load_implementation("no-such-implementation")
    assert [name for name in implementations() if name not in str(error.value)] == []


def test_a_registered_name_loads_its_adapter() -> None:
    assert load_implementation("reference").name == "reference"
