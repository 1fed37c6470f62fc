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

import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

from skill_conformance.results import VERDICTS, ScenarioResult
from skill_conformance.summary import summary_lines

__all__ = ["NOT_APPLICABLE", "VERDICTS", "Ledger", "ScenarioInfo", "verdict_of"]

NOT_APPLICABLE = "not applicable"
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
    requirement_slug: str = ""

    _FIELDS = (
        "capability",
        "requirement",
        "requirement_slug",
        "scenario",
        "feature",
        "scenario_id",
    )

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
            requirement_slug=properties.get("sc_requirement_slug", ""),
            scenario=properties["sc_scenario"],
            feature=properties["sc_feature"],
            scenario_id=properties["sc_scenario_id"],
        )


def _is_assertion(call: pytest.CallInfo[None]) -> bool:
    if call.excinfo is None:
        return False
    return call.excinfo.errisinstance((AssertionError, pytest.fail.Exception))


_XPASS_STRICT = "[XPASS(strict)]"
"""How pytest's longrepr starts when a strict xfail passes (its outcome is then ``failed``)."""


def _is_strict_xpass(report: pytest.TestReport) -> bool:
    return isinstance(report.longrepr, str) and report.longrepr.startswith(_XPASS_STRICT)


def verdict_of(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str | None:
    """The verdict one phase's report gives, or ``None`` if that phase decides nothing."""
    if report.when == "setup":
        if report.skipped:
            if hasattr(report, "wasxfail"):
                return "expected-failure"
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            return "not-applicable" if NOT_APPLICABLE in str(reason) else None
        return "errored" if report.failed else None
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            return "expected-failure" if report.skipped else "unexpected-pass"
        if report.passed:
            return "passed"
        if report.skipped:
            return "not-applicable"
        if _is_strict_xpass(report):
            return "unexpected-pass"
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
            )
            for nodeid, info in self.collected.items()
            if nodeid in self.verdicts
        ]
        return sorted(found, key=lambda result: result.key)

    def summary_lines(self, width: int = 100) -> list[str]:
        """One screen: per capability and requirement, the counts; then the bad scenarios."""
        return summary_lines(self.results(), width)


_PREFIXES = ("Skipped: ", "AssertionError: ", "Failed: ")
_QUALIFIED = re.compile(r"^(?:[A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*: )")


def _reason(report: pytest.TestReport) -> str:
    """The first line worth showing of why a scenario ended as it did."""
    if hasattr(report, "wasxfail"):
        return _one_line(str(report.wasxfail))
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):
        return _one_line(str(longrepr[2]))
    if _is_strict_xpass(report):
        listed = str(longrepr).removeprefix(_XPASS_STRICT).strip()
        return _one_line(f"passes, but is listed as an expected failure ({listed})")
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return _one_line(str(crash.message))
    lines = str(longrepr).strip().splitlines()
    return _one_line(lines[-1] if lines else "")


def _one_line(text: str) -> str:
    """The message on one line: pytest's ``assert ...`` introspection and prefixes left out."""
    kept: list[str] = []
    for line in text.strip().splitlines():
        if kept and line.startswith("assert "):
            break
        kept.append(line.strip())
    line = " ".join(part for part in kept if part)
    for prefix in _PREFIXES:
        line = line.removeprefix(prefix)
    line = _QUALIFIED.sub("", line).removeprefix(f"{NOT_APPLICABLE}: ")
    return line if len(line) <= _MAX_REASON else line[: _MAX_REASON - 3] + "..."


_MAX_REASON = 300
