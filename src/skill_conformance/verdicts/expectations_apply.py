"""Choose, read and apply the expectations file of a run: each known failure a strict xfail."""

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

__all__ = [
    "AppliedExpectations",
    "ChosenExpectations",
    "choose_expectations",
    "expectations_root",
]


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


@dataclass(frozen=True)
class ChosenExpectations:
    """The expectations file a run applies (none: :attr:`expectations` is ``None``), and why."""

    path: Path | None
    expectations: Expectations | None
    note: str

    def apply(
        self, items: Sequence[pytest.Item], collected: Mapping[str, ScenarioInfo]
    ) -> AppliedExpectations:
        """Mark the known failures among ``items`` as strict xfail, with their reasons."""
        if self.expectations is None:
            return AppliedExpectations(None, None, 0, (), self.note)
        keys: dict[str, pytest.Item] = {}
        for item in items:
            info = collected.get(item.nodeid)
            if info is not None:
                keys[scenario_key(info.capability, info.scenario_id)] = item
        applied = 0
        for key, reason in self.expectations.reasons.items():
            known = keys.get(key)
            if known is not None:
                known.add_marker(pytest.mark.xfail(strict=True, reason=reason))
                applied += 1
        unmatched = sorted(set(self.expectations.reasons) - set(keys))
        note = f"{self.path} ({applied} known failures applied as strict xfail)"
        return AppliedExpectations(self.path, self.expectations, applied, unmatched, note)


def choose_expectations(
    implementation: Implementation, explicit: Path | None, *, disabled: bool
) -> ChosenExpectations:
    """The expectations file for ``implementation``, read and checked.

    ``explicit`` is the file asked for, else the bundled one of the implementation's name and
    version, where there is one. Raises :class:`ExpectationsError` naming the file.
    """
    if disabled:
        return ChosenExpectations(None, None, "none applied (--no-expectations)")
    path = explicit or default_path(
        expectations_root(), implementation.name, implementation.version
    )
    if explicit is None and not path.is_file():
        note = f"none for {implementation.name} {implementation.version}"
        return ChosenExpectations(None, None, note)
    expectations = load_expectations(path)
    if expectations.implementation != implementation.name:
        raise ExpectationsError(
            f"{path}: written for {expectations.implementation!r}, "
            f"but the implementation under test is {implementation.name!r}"
        )
    return ChosenExpectations(path, expectations, "")
