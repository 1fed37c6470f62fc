"""An expectations file from a results file (``skill-conformance expectations``): a baseline.

Every scenario that failed, errored or was already an expected failure is listed with its reason.
When the output file exists, its hand-written reasons are kept for the scenarios still listed, and
its entries for scenarios that no longer fail are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skill_conformance.verdicts.expectations import (
    Expectations,
    ExpectationsError,
    load_expectations,
    write_expectations,
)
from skill_conformance.verdicts.results import Results
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Baseline", "baseline_of", "write_baseline"]

LISTED = (Verdict.FAILED, Verdict.ERRORED, Verdict.EXPECTED_FAILURE)
"""The verdicts a baseline lists: what fails now, known or not."""


@dataclass(frozen=True)
class Baseline:
    """The expectations written, and how they differ from the file they replace."""

    expectations: Expectations
    added: tuple[str, ...]
    kept: tuple[str, ...]
    dropped: tuple[str, ...]


def _reason(verdict: Verdict, reason: str) -> str:
    text = " ".join(reason.split()) or "no reason given"
    return text if verdict is Verdict.EXPECTED_FAILURE else f"{verdict}: {text}"


def baseline_of(results: Results, previous: Expectations | None = None) -> Baseline:
    """The expectations ``results`` imply, keeping the reasons of ``previous`` where they apply."""
    header = results.header
    if previous is not None and previous.implementation != header.adapter:
        raise ExpectationsError(
            f"the existing file is for {previous.implementation!r}, "
            f"the results for {header.adapter!r}"
        )
    old = dict(previous.reasons) if previous is not None else {}
    reasons: dict[str, str] = {}
    for result in results.scenarios:
        if result.verdict in LISTED:
            reasons[result.key] = old.get(result.key) or _reason(result.verdict, result.reason)
    expectations = Expectations(header.adapter, header.adapter_version, reasons)
    return Baseline(
        expectations=expectations,
        added=tuple(sorted(set(reasons) - set(old))),
        kept=tuple(sorted(set(reasons) & set(old))),
        dropped=tuple(sorted(set(old) - set(reasons))),
    )


def write_baseline(results: Results, out: Path) -> Baseline:
    """Write the baseline of ``results`` to ``out``, merged with ``out`` where it exists."""
    previous = load_expectations(out) if out.exists() else None
    baseline = baseline_of(results, previous)
    write_expectations(out, baseline.expectations)
    return baseline
