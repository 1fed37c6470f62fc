"""A collected scenario, the verdict each phase of it gives, and the run's ledger of verdicts."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

from skill_conformance.verdicts.mismatch import Mismatch
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.summary import summary_lines
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Ledger", "ScenarioInfo", "raw_of", "reason_of", "verdict_of"]


@dataclass(frozen=True)
class ScenarioInfo:
    """Where a collected scenario comes from in the specs and in the features."""

    nodeid: str
    capability: str
    requirement: str
    scenario: str
    feature: str
    scenario_id: str
    needs: tuple[str, ...] = ()
    requirement_slug: str = ""
    path: str = "?"
    """The feature file, as Cucumber JSON names it: ``features/skill-tools.feature``."""
    line: int = 0
    """The line of ``Scenario:`` in :attr:`path`."""

    @property
    def title(self) -> str:
        """``capability > scenario``: how the run's output heads this scenario."""
        return f"{self.capability} > {self.scenario}"


_XPASS_STRICT = "[XPASS(strict)]"
"""How pytest's longrepr starts when a strict xfail passes (its outcome is then ``failed``)."""


def _is_strict_xpass(report: pytest.TestReport) -> bool:
    return isinstance(report.longrepr, str) and report.longrepr.startswith(_XPASS_STRICT)


def _is_mismatch(call: pytest.CallInfo[None]) -> bool:
    if call.excinfo is None:
        return False
    return call.excinfo.errisinstance((AssertionError, pytest.fail.Exception))


def verdict_of(
    report: pytest.TestReport, call: pytest.CallInfo[None], *, not_applicable: bool
) -> Verdict | None:
    """The verdict one phase's report gives, or ``None`` if that phase decides nothing.

    ``not_applicable`` says the suite skipped the scenario for an ability the adapter lacks, or
    because an operation raised :class:`~skill_conformance.port.Unsupported`.
    """
    if report.when == "setup":
        if report.skipped:
            if hasattr(report, "wasxfail"):
                return Verdict.EXPECTED_FAILURE
            return Verdict.NOT_APPLICABLE if not_applicable else None
        return Verdict.ERRORED if report.failed else None
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            return Verdict.EXPECTED_FAILURE if report.skipped else Verdict.UNEXPECTED_PASS
        if report.passed:
            return Verdict.PASSED
        if report.skipped and not_applicable:
            return Verdict.NOT_APPLICABLE
        if _is_strict_xpass(report):
            return Verdict.UNEXPECTED_PASS
        if report.failed and _is_mismatch(call):
            return Verdict.FAILED
        return Verdict.ERRORED  # a crash, or a step that skipped itself
    return Verdict.ERRORED if report.failed else None


def raw_of(report: pytest.TestReport, call: pytest.CallInfo[None]) -> tuple[Verdict, str] | None:
    """What an expected failure really did: failed or errored, and its reason.

    ``None`` for any other outcome. The reason is the failure's own, not the expectation's.
    """
    if not (hasattr(report, "wasxfail") and report.skipped) or call.excinfo is None:
        return None
    raw = Verdict.FAILED if _is_mismatch(call) else Verdict.ERRORED
    return raw, _error_reason(call.excinfo.value)


def _error_reason(error: BaseException) -> str:
    if isinstance(error, Mismatch):
        return error.one_line()
    if isinstance(error, (pytest.skip.Exception, pytest.fail.Exception, AssertionError)):
        return _one_line(str(error))
    return _one_line(f"{type(error).__name__}: {error}")


def reason_of(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str:
    """Why a phase ended as it did, on one line and whole."""
    if hasattr(report, "wasxfail"):
        return _one_line(str(report.wasxfail))
    if _is_strict_xpass(report):
        listed = str(report.longrepr).removeprefix(_XPASS_STRICT).strip()
        return f"passes, but is listed as an expected failure ({listed})"
    if call.excinfo is None:
        return ""
    return _error_reason(call.excinfo.value)


def _one_line(text: str) -> str:
    """The message on one line, without pytest's ``assert ...`` introspection."""
    kept: list[str] = []
    for line in text.strip().splitlines():
        if kept and line.lstrip().startswith("assert "):
            break
        kept.append(line.strip())
    return _SPACES.sub(" ", " ".join(part for part in kept if part))


_SPACES = re.compile(r"\s+")


@dataclass
class Ledger:
    """Every scenario that got a verdict in a run, with its most severe result."""

    results_by_node: dict[str, ScenarioResult] = field(default_factory=dict)

    def record(self, nodeid: str, result: ScenarioResult) -> None:
        """Keep the most severe result any phase of ``nodeid`` gave."""
        previous = self.results_by_node.get(nodeid)
        if previous is None or result.verdict.severity > previous.verdict.severity:
            self.results_by_node[nodeid] = result

    def counts(self) -> Counter[Verdict]:
        """How many scenarios got each verdict."""
        return Counter(result.verdict for result in self.results_by_node.values())

    def results(self) -> list[ScenarioResult]:
        """One result per scenario, ordered by capability and scenario id."""
        return sorted(self.results_by_node.values(), key=lambda result: result.key)

    def summary_lines(self, width: int = 100) -> list[str]:
        """One screen: per capability and requirement, the counts; then the bad scenarios."""
        return summary_lines(self.results(), width)
