"""Which scenario a pytest report belongs to, the verdict each phase gives, and the run's ledger.

A scenario's identity travels on every report as user properties (they cross xdist and end up in
JUnit XML); the phase that decides a verdict adds ``verdict`` and ``reason`` to its own report.
"""

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

    _FIELDS = ("capability", "requirement", "requirement_slug", "scenario", "feature", "path")

    @property
    def title(self) -> str:
        """``capability > scenario``: how the run's output heads this scenario."""
        return f"{self.capability} > {self.scenario}"

    def as_properties(self) -> list[tuple[str, str]]:
        """Report user properties naming this scenario (they cross xdist)."""
        fields = [(f"sc_{name}", str(getattr(self, name))) for name in self._FIELDS]
        return [("scenario_id", self.scenario_id), *fields, ("sc_line", str(self.line))]

    @classmethod
    def from_properties(cls, nodeid: str, properties: dict[str, str]) -> ScenarioInfo | None:
        """The inverse of :meth:`as_properties`; ``None`` for a report of no scenario."""
        if "scenario_id" not in properties:
            return None
        return cls(
            nodeid=nodeid,
            capability=properties["sc_capability"],
            requirement=properties["sc_requirement"],
            requirement_slug=properties.get("sc_requirement_slug", ""),
            scenario=properties["sc_scenario"],
            feature=properties["sc_feature"],
            scenario_id=properties["scenario_id"],
            path=properties.get("sc_path", "?"),
            line=int(properties.get("sc_line", "0")),
        )


def _properties(report: pytest.TestReport | pytest.CollectReport) -> dict[str, str]:
    # A collection error reaches the report hooks as a CollectReport, which has no properties.
    return {str(k): str(v) for k, v in getattr(report, "user_properties", ())}


def decided(report: pytest.TestReport) -> tuple[ScenarioInfo, Verdict, str] | None:
    """The scenario, verdict and reason a report carries, if its phase decided a verdict."""
    properties = _properties(report)
    info = ScenarioInfo.from_properties(report.nodeid, properties)
    if info is None or "verdict" not in properties:
        return None
    return info, Verdict(properties["verdict"]), properties.get("reason", "")


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
    """Every scenario that got a verdict in a run, with its most severe verdict and reason."""

    collected: dict[str, ScenarioInfo] = field(default_factory=dict)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    raws: dict[str, tuple[Verdict, str]] = field(default_factory=dict)
    """What each expected failure really did (see :func:`raw_of`)."""

    def record_report(self, report: pytest.TestReport) -> None:
        """Record the verdict a report carries in its user properties, if it carries one."""
        found = decided(report)
        if found is not None:
            info, verdict, reason = found
            self.collected[report.nodeid] = info
            self.record(report.nodeid, verdict, reason)
            properties = _properties(report)
            if verdict is Verdict.EXPECTED_FAILURE and "raw" in properties:
                raw = (Verdict(properties["raw"]), properties.get("observed", ""))
                self.raws[report.nodeid] = raw

    def record(self, nodeid: str, verdict: Verdict, reason: str) -> None:
        """Keep the most severe verdict any phase of ``nodeid`` gave."""
        previous = self.verdicts.get(nodeid)
        if previous is None or verdict.severity > previous.severity:
            self.verdicts[nodeid] = verdict
            self.reasons[nodeid] = reason

    def counts(self) -> Counter[Verdict]:
        """How many scenarios got each verdict."""
        return Counter(self.verdicts.values())

    def results(self) -> list[ScenarioResult]:
        """One result per scenario, ordered by capability and scenario id."""
        found = [
            ScenarioResult(
                capability=info.capability,
                requirement_slug=info.requirement_slug,
                requirement_title=info.requirement,
                id=info.scenario_id,
                name=info.scenario,
                verdict=self.verdicts[nodeid],
                reason=self.reasons.get(nodeid, ""),
                raw=self.raws[nodeid][0] if nodeid in self.raws else None,
                observed=self.raws[nodeid][1] if nodeid in self.raws else "",
            )
            for nodeid, info in self.collected.items()
            if nodeid in self.verdicts
        ]
        return sorted(found, key=lambda result: result.key)

    def summary_lines(self, width: int = 100) -> list[str]:
        """One screen: per capability and requirement, the counts; then the bad scenarios."""
        return summary_lines(self.results(), width)
