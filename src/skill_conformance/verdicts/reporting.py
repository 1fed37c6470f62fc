"""The pytest hooks that turn reports into verdicts and show them to a CI user.

- Each phase of a scenario that decides a verdict carries it on its report (``verdict`` and
  ``reason`` user properties); the ledger keeps the most severe one per scenario.
- A failed or errored scenario's report shows :func:`~.block.failure_block` instead of pytest's
  traceback (``--scenario-traceback`` appends the traceback), headed ``capability > scenario``.
- pytest counts each report under its verdict, so its closing line uses the suite's words;
  pytest prints the failed scenarios, this plugin the errored ones, in the same form.
- JUnit XML names each test case after its scenario, its class after the capability.
- The summary is printed last, after pytest's short test summary.
- An interrupted run (Ctrl-C, SIGTERM) says so under the summary, and its results file says
  ``"interrupted": true``; a scenario in flight gets no verdict.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Generator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import pytest

from skill_conformance.verdicts.block import (
    TRACEBACK_OPTION,
    BlockRepr,
    FailedStep,
    failure_block,
)
from skill_conformance.verdicts.ledger import (
    Ledger,
    ScenarioInfo,
    decided,
    raw_of,
    reason_of,
    verdict_of,
)
from skill_conformance.verdicts.results import Header, Results, write_results
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Reporting", "counts_note", "mark_cannot_drive", "mark_not_applicable"]

_SKIPPED_AS = pytest.StashKey[tuple[Verdict, str]]()
"""On an item the suite skipped (not applicable, cannot drive): that verdict and the reason."""
_FAILED_STEP = pytest.StashKey[FailedStep]()


def mark_not_applicable(item: pytest.Item, reason: str) -> None:
    """Skip ``item`` as not applicable, for ``reason`` (which names the adapter)."""
    item.stash[_SKIPPED_AS] = (Verdict.NOT_APPLICABLE, reason)
    pytest.skip(f"not applicable: {reason}")


def mark_cannot_drive(item: pytest.Item, reason: str) -> None:
    """Skip ``item``: the adapter cannot drive the installed implementation at all (``reason``)."""
    item.stash[_SKIPPED_AS] = (Verdict.CANNOT_DRIVE, reason)
    pytest.skip(f"cannot drive: {reason}")


class _NodeReporter(Protocol):
    def add_attribute(self, name: str, value: object) -> None: ...
    def add_property(self, name: str, value: object) -> None: ...


class _JunitXml(Protocol):
    def add_global_property(self, name: str, value: object) -> None: ...
    def node_reporter(self, report: pytest.TestReport) -> _NodeReporter: ...


def _junit_xml(config: pytest.Config) -> _JunitXml | None:
    """The JUnit XML writer of this run, if ``--junitxml`` was given."""
    from _pytest.junitxml import xml_key  # what the record_testsuite_property fixture uses

    writer: _JunitXml | None = config.stash.get(xml_key, None)
    return writer


class Reporting:
    """The reporting hooks of one run (registered as a plugin by the suite's plugin)."""

    def __init__(
        self,
        config: pytest.Config,
        collected: Mapping[str, ScenarioInfo],
        header: Callable[[], Header | None],
        notes: Callable[[], list[str]],
    ) -> None:
        self.config = config
        self.collected = collected
        """Scenarios collected in this process (under xdist: in this worker), by node id."""
        self.header = header
        self.notes = notes
        """Lines printed above the summary (which expectations file was applied)."""
        self.ledger = Ledger()
        self.errored: list[pytest.TestReport] = []

    # -- in the process that runs the scenario (an xdist worker, or the only process) -----

    def pytest_bdd_step_error(self, request: pytest.FixtureRequest, step: _Step) -> None:
        """Remember the step during which the scenario failed."""
        request.node.stash[_FAILED_STEP] = FailedStep(step.line_number, _step_text(step))

    def pytest_bdd_step_func_lookup_error(
        self, request: pytest.FixtureRequest, step: _Step
    ) -> None:
        """Remember the step no definition matches."""
        request.node.stash[_FAILED_STEP] = FailedStep(step.line_number, _step_text(step))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the scenario, the phase's verdict and reason; show the short block."""
        report = yield
        info = self.collected.get(item.nodeid)
        if info is None:
            return report
        if call.when == "setup":  # later reports copy the item's properties
            item.user_properties.extend(info.as_properties())
        if ("scenario_id", info.scenario_id) not in report.user_properties:  # made before that
            report.user_properties.extend(info.as_properties())
        report.location = (info.path, info.line - 1, info.title)
        skipped_as = item.stash.get(_SKIPPED_AS, None)
        verdict = verdict_of(report, call, not_applicable=skipped_as is not None)
        if verdict is None:
            return report
        if verdict is Verdict.NOT_APPLICABLE and skipped_as is not None:
            verdict, reason = skipped_as
        else:
            reason = reason_of(report, call)
        properties = [("verdict", verdict.value), ("reason", reason or "")]
        raw = raw_of(report, call) if verdict is Verdict.EXPECTED_FAILURE else None
        if raw is not None:
            properties += [("raw", raw[0].value), ("observed", raw[1])]
        report.user_properties = [*report.user_properties, *properties]  # this report's own
        if verdict in (Verdict.FAILED, Verdict.ERRORED) and call.excinfo is not None:
            step = item.stash.get(_FAILED_STEP, None) if call.when == "call" else None
            block = failure_block(info, verdict, call.when, step, call.excinfo.value)
            if item.config.getoption(TRACEBACK_OPTION):
                block += ["", str(report.longrepr)]
            elif call.when != "teardown":  # JUnit takes the output from the teardown report
                report.sections = []
            report.longrepr = "\n".join(block)
        return report

    # -- in the process that reports (the xdist controller, or the only process) ----------

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(
        self, report: pytest.TestReport
    ) -> tuple[str, str, str | tuple[str, Mapping[str, bool]]] | None:
        """Count a scenario's report under its verdict, so pytest's closing line agrees."""
        found = decided(report)
        if found is None:
            return None
        verdict = found[1]
        colour = "red" if verdict.bad else "green" if verdict is Verdict.PASSED else "yellow"
        return verdict.value, verdict.letter, (verdict.prose.upper(), {colour: True})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record the verdict; name the JUnit test case after the scenario."""
        self.ledger.record_report(report)
        found = decided(report)
        if found is not None and found[1] in (Verdict.FAILED, Verdict.ERRORED):
            if isinstance(report.longrepr, str):  # the block, as it crossed xdist
                report.longrepr = BlockRepr(report.longrepr, found[0].title)
            if found[1] is Verdict.ERRORED:
                self.errored.append(report)
        junit = _junit_xml(self.config)
        info = self.ledger.collected.get(report.nodeid) or ScenarioInfo.from_properties(
            report.nodeid, {str(k): str(v) for k, v in report.user_properties}
        )
        if junit is None or info is None:
            return
        node = junit.node_reporter(report)
        node.add_attribute("classname", info.capability)
        node.add_attribute("name", info.scenario)
        verdict = self.ledger.verdicts.get(report.nodeid)
        if report.when == "teardown" and verdict is not None:
            node.add_property("verdict", verdict.value)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int
    ) -> Generator[None]:
        """Around pytest's sections: first the errored scenarios, last the suite's summary.

        The errored scenarios get blocks as pytest prints the failed ones (ERRORS before
        FAILURES, as pytest orders them); the summary comes after pytest's short test summary.
        """
        if self.errored and self.config.option.tbstyle != "no":
            terminalreporter.write_sep("=", "ERRORED")
            for report in self.errored:
                head = report.head_line or report.nodeid
                terminalreporter.write_sep("_", head, red=True, bold=True)
                terminalreporter.write_line(str(report.longrepr))
        try:
            yield
        finally:  # also when a wrapper inside raises (warnings turned errors at session end)
            self._print_summary(terminalreporter, exitstatus == pytest.ExitCode.INTERRUPTED)

    def _print_summary(self, terminal: pytest.TerminalReporter, interrupted: bool) -> None:
        if not (self.ledger.verdicts or (interrupted and self.collected)):
            return
        header = self.header()
        title = f"{header.adapter} {header.adapter_version}" if header else "?"
        terminal.section(f"skill-conformance: {title}")
        for line in self.notes():
            terminal.write_line(line)
        if header is not None:
            terminal.write_line(header.line())
        disagreement = counts_note(terminal.stats, self.ledger.counts())
        width = max(80, shutil.get_terminal_size((100, 24)).columns)
        lines = self.ledger.summary_lines(width)
        if disagreement:
            total = next(i for i, line in enumerate(lines) if line.startswith("total: "))
            lines.insert(total, disagreement)
        for line in lines:
            terminal.write_line(line)
        if interrupted:
            terminal.write_line(
                f"run interrupted: {len(self.ledger.verdicts)} of {len(self.collected)} "
                "scenarios got a verdict; those in flight got none, and those not yet begun "
                "were not run"
            )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Put the header into JUnit XML and write ``--conformance-results`` (not in workers)."""
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if hasattr(self.config, "workerinput") or not (self.ledger.verdicts or interrupted):
            return
        if self.ledger.counts()[Verdict.CANNOT_DRIVE] and exitstatus == pytest.ExitCode.OK:
            # Skipped as they are, the scenarios judged nothing: the run must not pass a gate.
            session.exitstatus = exitstatus = pytest.ExitCode.TESTS_FAILED
        header = self.header()
        if header is None:
            return
        junit = _junit_xml(self.config)
        if junit is not None:
            for name, value in header.properties():
                junit.add_global_property(name, value)
        path: Path | None = self.config.getoption("--conformance-results")
        if path is not None:
            created = datetime.now(UTC).isoformat(timespec="seconds")
            scenarios = tuple(self.ledger.results())
            results = Results(header, scenarios, created, int(exitstatus), interrupted)
            try:
                write_results(path, results)
            except OSError as error:  # checked before the run; the disk can still fill up
                message = f"--conformance-results: cannot write {path}: {error.strerror or error}"
                session.config.get_terminal_writer().line(f"ERROR: {message}", red=True)
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


class _Step(Protocol):
    keyword: str
    name: str
    line_number: int


def _step_text(step: _Step) -> str:
    return f"{step.keyword.strip()} {step.name}"


_NOT_COUNTED = frozenset({"", "deselected", "warnings"})


def counts_note(stats: Mapping[str, list[object]], counts: Counter[Verdict]) -> str:
    """Why pytest's closing line counts otherwise than the summary, or ``""`` if it does not."""
    reports = Counter({key: len(found) for key, found in stats.items() if key not in _NOT_COUNTED})
    scenarios = Counter({verdict.value: count for verdict, count in counts.items()})
    if reports == scenarios:
        return ""
    counted = ", ".join(f"{count} {key}" for key, count in reports.items())
    return (
        f"(pytest's closing line counts reports: {counted}; "
        "here each scenario counts once, with its most severe verdict, and tests that are not "
        "scenarios are left out)"
    )
