"""Scenario verdicts, kept apart as the best harnesses keep them, and their summary.

=================  ==========================================================================
verdict            meaning
=================  ==========================================================================
passed             the implementation behaved as the scenario says
failed             it behaved otherwise (an assertion of a step failed)
errored            it crashed, hung, left a process behind, or the suite itself broke
expected-failure   a failure listed in the expectations file, and it still fails
unexpected-pass    a failure listed in the expectations file that now passes (stale entry)
not-applicable     the scenario needs an ability the adapter declared it lacks
=================  ==========================================================================
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

__all__ = ["NOT_APPLICABLE", "VERDICTS", "Ledger", "ScenarioInfo", "verdict_of"]

NOT_APPLICABLE = "not applicable"
VERDICTS = (
    "passed",
    "failed",
    "errored",
    "expected-failure",
    "unexpected-pass",
    "not-applicable",
)
_SEVERITY = {
    verdict: rank
    for rank, verdict in enumerate(
        ("passed", "not-applicable", "expected-failure", "unexpected-pass", "failed", "errored")
    )
}


@dataclass(frozen=True)
class ScenarioInfo:
    """Where a collected scenario comes from in the specs."""

    nodeid: str
    capability: str
    requirement: str
    scenario: str
    feature: str
    scenario_id: str
    needs: tuple[str, ...] = ()

    _FIELDS = ("capability", "requirement", "scenario", "feature", "scenario_id")

    def as_properties(self, verdict: str) -> list[tuple[str, str]]:
        """Report user properties naming this scenario and its ``verdict`` (they cross xdist)."""
        fields = [(f"sc_{name}", str(getattr(self, name))) for name in self._FIELDS]
        return [("verdict", verdict), ("scenario_id", self.scenario_id), *fields]

    @classmethod
    def from_properties(cls, nodeid: str, properties: dict[str, str]) -> ScenarioInfo:
        """The inverse of :meth:`as_properties`."""
        return cls(
            nodeid=nodeid,
            capability=properties["sc_capability"],
            requirement=properties["sc_requirement"],
            scenario=properties["sc_scenario"],
            feature=properties["sc_feature"],
            scenario_id=properties["sc_scenario_id"],
        )


def _is_assertion(call: pytest.CallInfo[None]) -> bool:
    if call.excinfo is None:
        return False
    return call.excinfo.errisinstance((AssertionError, pytest.fail.Exception))


def verdict_of(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str | None:
    """The verdict one phase's report gives, or ``None`` if that phase decides nothing."""
    if report.when == "setup":
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            if NOT_APPLICABLE in str(reason):
                return "not-applicable"
            return "not-applicable" if hasattr(report, "wasxfail") else None
        return "errored" if report.failed else None
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            return "expected-failure" if report.skipped else "unexpected-pass"
        if report.passed:
            return "passed"
        if report.skipped:
            return "not-applicable"
        return "failed" if _is_assertion(call) else "errored"
    return "errored" if report.failed else None


@dataclass
class Ledger:
    """Every scenario collected in a run and the verdict each got."""

    collected: dict[str, ScenarioInfo] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def record_report(self, report: pytest.TestReport) -> None:
        """Record the verdict a report carries in its user properties, if it carries one."""
        properties = {str(k): str(v) for k, v in report.user_properties}
        if "verdict" not in properties:
            return
        self.collected[report.nodeid] = ScenarioInfo.from_properties(report.nodeid, properties)
        self.record(report.nodeid, properties["verdict"], report)

    def record(self, nodeid: str, verdict: str, report: pytest.TestReport) -> None:
        """Keep the most severe verdict any phase of ``nodeid`` gave."""
        previous = self.verdicts.get(nodeid)
        if previous is None or _SEVERITY[verdict] > _SEVERITY[previous]:
            self.verdicts[nodeid] = verdict
            self.reasons[nodeid] = _reason(report)

    def counts(self) -> Counter[str]:
        """How many scenarios got each verdict."""
        return Counter(self.verdicts.values())

    def summary_lines(self) -> list[str]:
        """One screen: per capability and requirement, the counts; then the bad scenarios."""
        by_requirement: dict[tuple[str, str], Counter[str]] = {}
        for nodeid, verdict in self.verdicts.items():
            info = self.collected[nodeid]
            key = (info.capability, info.requirement)
            by_requirement.setdefault(key, Counter())[verdict] += 1
        lines = []
        capability = None
        for (cap, requirement), counts in sorted(by_requirement.items()):
            if cap != capability:
                capability = cap
                lines.append(f"{cap}")
            mark = (
                "ok  "
                if counts.keys() <= {"passed", "expected-failure", "not-applicable"}
                else "FAIL"
            )
            lines.append(f"  {mark} {requirement}  [{_format(counts)}]")
        total = self.counts()
        lines.append(f"total: {_format(total)}")
        bad = [
            (self.collected[n], v)
            for n, v in self.verdicts.items()
            if v in ("failed", "errored", "unexpected-pass")
        ]
        for info, verdict in sorted(bad, key=lambda pair: pair[0].scenario_id):
            reason = self.reasons.get(info.nodeid, "")
            lines.append(f"{verdict.upper()}: {info.capability}: {info.scenario}")
            if reason:
                lines.append(f"    {reason}")
        return lines


def _format(counts: Counter[str]) -> str:
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def _reason(report: pytest.TestReport) -> str:
    """The first line worth showing of why a scenario ended as it did."""
    if hasattr(report, "wasxfail"):
        return str(report.wasxfail)
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):
        return str(longrepr[2])
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message).splitlines()[0][:200]
    return str(longrepr).splitlines()[-1][:200]
