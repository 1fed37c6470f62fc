"""The summary, the results file, the baseline and the spec digest, on data made here."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_helpers import ENTRIES, header, result

from skill_conformance.bundled import spec_digest
from skill_conformance.verdicts.baseline import baseline_of
from skill_conformance.verdicts.expectations import Expectations, ExpectationsError
from skill_conformance.verdicts.results import Results, ResultsError, load_results, write_results
from skill_conformance.verdicts.summary import summary_lines


def test_a_green_summary_lists_every_requirement() -> None:
    lines = summary_lines([result(e, "passed") for e in ENTRIES])
    requirements = {e.requirement.title for e in ENTRIES}
    assert sum(1 for line in lines if "ok     " in line) == len(requirements)
    assert lines[-1] == f"total: {len(ENTRIES)} passed"


def test_a_red_summary_is_compact_and_names_each_bad_scenario() -> None:
    verdicts = ["failed", "errored", "unexpected-pass"]
    results = [
        result(e, verdicts[i] if i < 3 else "passed", f"reason {i}") for i, e in enumerate(ENTRIES)
    ]
    lines = summary_lines(results, width=80)
    assert len(lines) <= 20
    assert all(len(line) <= 80 for line in lines if not line.startswith(("FAILED", "ERRORED")))
    assert "FAILED  agent-factory > " + ENTRIES[0].name + ": reason 0" in lines
    assert sum(line.startswith(("FAILED", "ERRORED", "XPASS")) for line in lines) == 3
    tools = len({e.requirement.title for e in ENTRIES if e.capability == "skill-tools"})
    wide = summary_lines(results, width=100)  # at 80 columns the note is cut short
    assert any(line.endswith(f"skill-tools  ({tools} requirements, all ok)") for line in wide)


def test_many_bad_scenarios_are_cut_at_25() -> None:
    lines = summary_lines([result(e, "failed", "no") for e in ENTRIES])
    assert sum(line.startswith("FAILED") for line in lines) == 25
    assert (
        lines[-1]
        == f"... and {len(ENTRIES) - 25} more (all are in --skill-conformance-results FILE)"
    )


def test_a_bad_scenarios_reason_is_printed_whole() -> None:
    observed = repr([f"server-{i:03d}__tool__echo" for i in range(40)])
    reason = f"too few tools; expected 41 tools, observed {observed}"
    lines = summary_lines([result(ENTRIES[0], "failed", reason)], width=80)
    assert lines[-1] == f"FAILED  agent-factory > {ENTRIES[0].name}: {reason}"


def test_a_results_file_round_trips(tmp_path: Path) -> None:
    results = Results(header("x", "1"), (result(ENTRIES[0], "failed", "why"),), "now", 1)
    write_results(tmp_path / "r.json", results)
    assert load_results(tmp_path / "r.json") == results


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not JSON"), ('{"format": "skill-conformance-results/1"}', "not a skill-conformance")],
)
def test_a_bad_results_file_names_itself(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "r.json").write_text(text)
    with pytest.raises(ResultsError, match=message) as caught:
        load_results(tmp_path / "r.json")
    assert str(caught.value).startswith(str(tmp_path / "r.json"))


def test_a_baseline_keeps_written_reasons_and_drops_passing_entries() -> None:
    a, b, c = ENTRIES[:3]
    results = Results(
        header("x", "2"),
        (result(a, "failed", "wrong\n text"), result(b, "errored", "boom"), result(c, "passed")),
    )
    previous = Expectations("x", "1", {b.key: "hand-written", c.key: "old"})
    baseline = baseline_of(results, previous)
    assert baseline.expectations == Expectations(
        "x", "2", {a.key: "failed: wrong text", b.key: "hand-written"}
    )
    assert (baseline.added, baseline.kept, baseline.dropped) == ((a.key,), (b.key,), (c.key,))
    with pytest.raises(ExpectationsError, match="'y'"):
        baseline_of(results, Expectations("y", "1", {}))


def test_the_spec_digest_follows_content_not_line_endings(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    spec = tmp_path / "a" / "spec.md"
    spec.write_bytes(b"# a\nline\n")
    first = spec_digest(tmp_path)
    spec.write_bytes(b"# a\r\nline\r\n")
    assert spec_digest(tmp_path) == first
    spec.write_bytes(b"# a\nline!\n")
    assert spec_digest(tmp_path) != first
    assert first.startswith("sha256:")
    assert len(first) == len("sha256:") + 64
