"""An expected failure keeps what it really did (failed or errored, and why): results and report."""

from __future__ import annotations

from pathlib import Path

from report_helpers import ENTRIES, header

from skill_conformance.commands.main import main
from skill_conformance.verdicts.results import Results, ScenarioResult, load_results, write_results
from skill_conformance.verdicts.verdict import Verdict


def _result(
    index: int, verdict: Verdict, raw: Verdict | None, observed: str = ""
) -> ScenarioResult:
    entry = ENTRIES[index]
    reason = "known: listed" if verdict is Verdict.EXPECTED_FAILURE else ""
    return ScenarioResult(
        entry.capability,
        entry.requirement.slug,
        entry.requirement.title,
        entry.id,
        entry.name,
        verdict,
        reason,
        raw,
        observed,
    )


def test_the_raw_verdict_survives_the_results_file_and_shows_under_the_expected_failure(
    tmp_path: Path,
) -> None:
    scenarios = (
        _result(0, Verdict.EXPECTED_FAILURE, Verdict.FAILED, "'x' is not in the text"),
        _result(1, Verdict.EXPECTED_FAILURE, Verdict.ERRORED, "RuntimeError: boom"),
        _result(2, Verdict.PASSED, None),
    )
    path = tmp_path / "r.json"
    write_results(path, Results(header("impl", "1.0"), scenarios, "2026-12-03", 0))
    loaded = load_results(path).scenarios
    assert [(r.raw, r.observed) for r in loaded] == [
        (Verdict.FAILED, "'x' is not in the text"),
        (Verdict.ERRORED, "RuntimeError: boom"),
        (None, ""),
    ]
    assert '"raw"' not in path.read_text().split(ENTRIES[2].id)[1]  # none for a plain verdict
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert '<div class="raw failed">raw: failed: &#x27;x&#x27; is not in the text</div>' in page
    assert '<div class="raw errored">raw: errored: RuntimeError: boom</div>' in page
    assert page.count('class="raw ') == 2
