"""How a run's reports become verdicts, and how the verdicts are shown to a CI user.

- The phase of a scenario that decides its verdict carries it on its report as one
  :class:`~.results.ScenarioResult` (in its JSON form, which crosses pytest-xdist as it is); the
  ledger keeps the most severe one per scenario, and the summary, JUnit XML and the results file
  read it from there.
- A failed or errored scenario's report shows :func:`~.block.failure_block` instead of pytest's
  traceback (``--skill-conformance-traceback`` appends it), and its one-line reason is what
  pytest's short summary and JUnit's ``message`` show.
- pytest counts each report under its verdict, so its closing line uses the suite's words;
  pytest prints the failed scenarios, this the errored ones, in the same form.
- JUnit XML names each test case after its scenario, its class after the capability; an errored
  scenario is an ``<error>``; a skipped one names its feature file and line, not the suite's code.
- The summary is printed last, after pytest's short test summary.
- An interrupted run (Ctrl-C, SIGTERM) says so under the summary, and its results file says
  ``"interrupted": true``; a scenario in flight gets no verdict.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Generator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

import pytest

from skill_conformance import _compat
from skill_conformance.signals import settle
from skill_conformance.verdicts.block import BlockRepr, FailedStep, failure_block
from skill_conformance.verdicts.ledger import Ledger, ScenarioInfo, raw_of, reason_of, verdict_of
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Reporting", "counts_note", "result_of"]

_SKIPPED_AS = pytest.StashKey[tuple[Verdict, str]]()
"""On an item the suite skipped (not applicable, cannot drive): that verdict and the reason."""
_FAILED_STEP = pytest.StashKey[FailedStep]()
_ATTRIBUTE = "skill_conformance"
"""The report attribute carrying a deciding phase's result, as JSON (it crosses xdist)."""
_FAILED = pytest.StashKey[bool]()
"""Set on a scenario whose steps failed: trouble closing it is then told beside that verdict."""
_TROUBLE = pytest.StashKey[str]()
_TROUBLE_ATTRIBUTE = "skill_conformance_teardown_trouble"


def result_of(report: pytest.TestReport) -> ScenarioResult | None:
    """The scenario result a report carries, if its phase decided a verdict."""
    data = getattr(report, _ATTRIBUTE, None)
    return ScenarioResult.from_json(data) if isinstance(data, dict) else None


class _Step(Protocol):
    keyword: str
    name: str
    line_number: int


class Reporting:
    """The reporting side of one run, registered as a plugin of its own.

    Its first methods run in the process that runs a scenario, its hooks in the one that reports
    it: the same process, but under pytest-xdist.
    """

    def __init__(
        self,
        config: pytest.Config,
        scenarios: Mapping[str, ScenarioInfo],
        header: Header,
        notes: Callable[[], list[str]],
        *,
        traceback: bool,
        results: Path | None,
    ) -> None:
        self.config = config
        self.scenarios = scenarios
        """The scenarios collected in this process (under xdist: in this worker), by node id."""
        self.header = header
        self.notes = notes
        """The lines above the summary (which expectations file was applied)."""
        self.traceback = traceback
        self.results = results
        self.ledger = Ledger()
        self.errored: list[pytest.TestReport] = []
        self.started = False
        """Whether a scenario began here (a run stopped in its collection has none)."""
        self.interrupted = False
        """Ctrl-C or SIGTERM stopped the run; known here even when a second interrupt cut
        pytest's own handling short, before it set the exit status."""

    # -- in the process that runs the scenario -------------------------------------------------

    def not_applicable(self, item: pytest.Item, reason: str) -> None:
        """Skip ``item`` as not applicable, for ``reason`` (which names the adapter)."""
        item.stash[_SKIPPED_AS] = (Verdict.NOT_APPLICABLE, reason)
        pytest.skip(f"{Verdict.NOT_APPLICABLE.prose}: {reason}")

    def cannot_drive(self, item: pytest.Item, reason: str) -> None:
        """Skip ``item``: the adapter cannot drive the installed implementation at all."""
        item.stash[_SKIPPED_AS] = (Verdict.CANNOT_DRIVE, reason)
        pytest.skip(f"{Verdict.CANNOT_DRIVE.prose}: {reason}")

    def step_failed(self, item: pytest.Item, step: _Step) -> None:
        """Remember the step during which the scenario failed (or that no definition matched)."""
        item.stash[_FAILED_STEP] = FailedStep(
            step.line_number, f"{step.keyword.strip()} {step.name}"
        )

    def failed(self, item: pytest.Item) -> bool:
        """Whether the scenario's steps failed (or errored) already."""
        return item.stash.get(_FAILED, False)

    def teardown_trouble(self, item: pytest.Item, trouble: str) -> None:
        """Tell ``trouble`` closing a scenario that failed beside its verdict, not instead of it.

        A system whose call hung often hangs closing too; the scenario's verdict stands, and
        pytest's closing line counts it once, as the suite's total does.
        """
        item.stash[_TROUBLE] = trouble

    def made(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> pytest.TestReport:
        """Give a phase's report the verdict it decides, and the short block of a failure."""
        info = self.scenarios.get(item.nodeid)
        if info is None:
            return report
        self.started = True
        if call.when == "call" and call.excinfo is not None:
            item.stash[_FAILED] = True
        if call.when == "teardown" and _TROUBLE in item.stash:
            setattr(report, _TROUBLE_ATTRIBUTE, item.stash[_TROUBLE])
        report.location = (info.path, info.line - 1, info.title)
        if call.when == "teardown":  # JUnit XML's properties of the test case, also under xdist
            report.user_properties += [
                ("sc_requirement", info.requirement),
                ("sc_feature", info.feature),
                ("sc_feature_file", info.path),
            ]
        skipped_as = item.stash.get(_SKIPPED_AS, None)
        verdict = verdict_of(report, call, not_applicable=skipped_as is not None)
        if verdict is None:
            return report
        if verdict is Verdict.NOT_APPLICABLE and skipped_as is not None:
            verdict, reason = skipped_as
        else:
            reason = reason_of(report, call)
        raw = raw_of(report, call) if verdict is Verdict.EXPECTED_FAILURE else None
        failed_step = item.stash.get(_FAILED_STEP, None) if call.when == "call" else None
        result = ScenarioResult(
            capability=info.capability,
            requirement_slug=info.requirement_slug,
            requirement_title=info.requirement,
            id=info.scenario_id,
            name=info.scenario,
            verdict=verdict,
            reason=reason or "",
            raw=raw[0] if raw is not None else None,
            observed=raw[1] if raw is not None else "",
            step=failed_step.text if failed_step is not None and call.excinfo is not None else "",
        )
        setattr(report, _ATTRIBUTE, result.to_json())
        if skipped_as is not None and report.skipped:
            report.longrepr = (info.path, info.line, f"{verdict.prose}: {reason}")
        elif verdict in (Verdict.FAILED, Verdict.ERRORED) and call.excinfo is not None:
            block = failure_block(info, verdict, call.when, failed_step, call.excinfo.value)
            if self.traceback:
                block += ["", str(report.longrepr)]
            elif call.when != "teardown":  # JUnit takes the output from the teardown report
                report.sections = []
            report.longrepr = cast(Any, BlockRepr("\n".join(block), result.reason or info.title))
        elif verdict is Verdict.UNEXPECTED_PASS:
            block = [f"Scenario: {info.scenario}", f"  {info.path}:{info.line}", f"  {reason}"]
            report.longrepr = cast(Any, BlockRepr("\n".join(block), result.reason))
        return report

    # -- in the process that reports -------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(
        self, report: pytest.TestReport
    ) -> tuple[str, str, str | tuple[str, Mapping[str, bool]]] | None:
        """Count a scenario's report under its verdict, so pytest's closing line agrees."""
        result = result_of(report)
        if result is None:
            return None
        verdict = result.verdict
        colour = "red" if verdict.bad else "green" if verdict is Verdict.PASSED else "yellow"
        return verdict.value, verdict.letter, (verdict.prose.upper(), {colour: True})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record the verdict; name the JUnit test case after the scenario, say its verdict."""
        result = result_of(report)
        trouble = getattr(report, _TROUBLE_ATTRIBUTE, None)
        recorded = self.ledger.results_by_node.get(report.nodeid)
        if isinstance(trouble, str) and recorded is not None:
            reason = f"{recorded.reason} (closing the system then failed too: {trouble})"
            self.ledger.results_by_node[report.nodeid] = replace(recorded, reason=reason)
        if result is not None:
            self.ledger.record(report.nodeid, result)
            if isinstance(report.longrepr, str) and result.verdict.bad:  # as it crossed xdist
                report.longrepr = cast(Any, BlockRepr(report.longrepr, result.reason))
            if result.verdict is Verdict.ERRORED:
                self.errored.append(report)
        junit = _compat.junit_writer(self.config)
        recorded = self.ledger.results_by_node.get(report.nodeid)
        if junit is None or recorded is None:
            return
        node = junit.node_reporter(report)
        node.add_attribute("classname", recorded.capability)
        node.add_attribute("name", recorded.name)
        path, line, _ = report.location  # the scenario's feature file and line (made, above)
        node.add_attribute("file", path)
        node.add_attribute("line", str((line or 0) + 1))
        if report.when == "teardown":
            node.add_property("scenario_id", recorded.id)
            node.add_property("verdict", recorded.verdict.value)
            if recorded.verdict is Verdict.ERRORED:
                _compat.junit_error(self.config, report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """Note an interrupt (not ``pytest.exit``, which pytest passes here too)."""
        if isinstance(excinfo.value, KeyboardInterrupt):
            self.interrupted = True

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int
    ) -> Generator[None]:
        """Around pytest's sections: first the errored scenarios, last the suite's summary."""
        terminal = terminalreporter
        if self.errored and self.config.option.tbstyle != "no":
            terminal.write_sep("=", "ERRORED")
            for report in self.errored:
                head = report.head_line or report.nodeid
                terminal.write_sep("_", head, red=True, bold=True)
                terminal.write_line(str(report.longrepr))
        try:
            yield
        finally:  # also when a wrapper inside raises (warnings turned errors at session end)
            self._print_summary(
                terminal, self.interrupted or exitstatus == pytest.ExitCode.INTERRUPTED
            )

    def _print_summary(self, terminal: pytest.TerminalReporter, interrupted: bool) -> None:
        collected = self.scenarios
        if not (self.ledger.results_by_node or (interrupted and self.started)):
            return
        header = self.header
        terminal.section(f"skill-conformance: {header.adapter} {header.adapter_version}")
        for line in self.notes():
            terminal.write_line(line)
        terminal.write_line(header.line())
        disagreement = counts_note(terminal.stats, self.ledger.counts())
        width = max(80, shutil.get_terminal_size((100, 24)).columns)
        lines = self.ledger.summary_lines(width)
        if disagreement and lines:
            total = next(i for i, line in enumerate(lines) if line.startswith("total: "))
            lines.insert(total, disagreement)
        for line in lines:
            terminal.write_line(line)
        if interrupted:
            terminal.write_line(
                f"run interrupted: {len(self.ledger.results_by_node)} of {len(collected)} "
                "scenarios got a verdict; those in flight got none, and those not yet begun "
                "were not run"
            )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Put the header into JUnit XML and write the results file (not in xdist's workers).

        The run's outcome is decided here: under ``skill-conformance run``, a later interrupt
        changes nothing (the results file, JUnit XML and summary are written whole, as decided).
        """
        settle()
        interrupted = self.interrupted or exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted and exitstatus == pytest.ExitCode.OK:  # pytest's handling was cut short
            exitstatus = session.exitstatus = pytest.ExitCode.INTERRUPTED
        config = self.config
        if hasattr(config, "workerinput") or not (self.ledger.results_by_node or interrupted):
            return
        if self.ledger.counts()[Verdict.CANNOT_DRIVE] and exitstatus == pytest.ExitCode.OK:
            # Skipped as they are, the scenarios judged nothing: the run must not pass a gate.
            session.exitstatus = exitstatus = pytest.ExitCode.TESTS_FAILED
        junit = _compat.junit_writer(config)
        if junit is not None:
            for name, value in self.header.properties():
                junit.add_global_property(name, value)
        path = self.results
        if path is not None:
            created = datetime.now(UTC).isoformat(timespec="seconds")
            scenarios = tuple(self.ledger.results())
            results = Results(self.header, scenarios, created, int(exitstatus), interrupted)
            try:
                write_results(path, results)
            except OSError as error:  # checked before the run; the disk can still fill up
                flag = "--skill-conformance-results"
                message = f"{flag}: cannot write {path}: {error.strerror or error}"
                config.get_terminal_writer().line(f"ERROR: {message}", red=True)
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


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
