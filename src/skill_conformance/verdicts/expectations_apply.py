"""Apply an expectations file to a collected run: each known failure becomes a strict xfail."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_conformance.bundled import expectations_dir
from skill_conformance.port import Implementation
from skill_conformance.verdicts.expectations import (
    Expectations,
    ExpectationsError,
    default_path,
    load_expectations,
    scenario_key,
)
from skill_conformance.verdicts.ledger import ScenarioInfo

__all__ = ["AppliedExpectations", "apply_expectations", "expectations_root"]


@dataclass(frozen=True)
class AppliedExpectations:
    """Which expectations file a run applied, and what in it matched nothing."""

    path: Path | None
    expectations: Expectations | None
    applied: int
    unmatched: Sequence[str]
    note: str

    def describe(self) -> list[str]:
        """Lines for the run's summary."""
        lines = [f"expectations: {self.note}"]
        lines += [f"  names no collected scenario: {key}" for key in self.unmatched]
        return lines


def expectations_root() -> Path:
    """The directory holding ``expectations/``: the checkout's, or the wheel's bundled copy."""
    return expectations_dir().parent


def apply_expectations(
    config: pytest.Config,
    implementation: Implementation,
    items: Sequence[pytest.Item],
    collected: Mapping[str, ScenarioInfo],
) -> AppliedExpectations:
    """Mark the known failures among ``items`` as strict xfail, with their reasons."""
    if config.getoption("--no-expectations"):
        return AppliedExpectations(None, None, 0, (), "none applied (--no-expectations)")
    explicit: Path | None = config.getoption("--expectations")
    root = expectations_root()
    path = explicit or default_path(root, implementation.name, implementation.version)
    if explicit is None and not path.is_file():
        return AppliedExpectations(
            None, None, 0, (), f"none for {implementation.name} {implementation.version}"
        )
    expectations = load_expectations(path)
    if expectations.implementation != implementation.name:
        raise ExpectationsError(
            f"{path}: written for {expectations.implementation!r}, "
            f"but the implementation under test is {implementation.name!r}"
        )
    keys: dict[str, pytest.Item] = {}
    for item in items:
        info = collected.get(item.nodeid)
        if info is not None:
            keys[scenario_key(info.capability, info.scenario_id)] = item
    applied = 0
    for key, reason in expectations.reasons.items():
        known = keys.get(key)
        if known is not None:
            known.add_marker(pytest.mark.xfail(strict=True, reason=reason))
            applied += 1
    unmatched = sorted(set(expectations.reasons) - set(keys))
    note = f"{path} ({applied} known failures applied as strict xfail)"
    return AppliedExpectations(path, expectations, applied, unmatched, note)
