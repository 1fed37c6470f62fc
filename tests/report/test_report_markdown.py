"""``report --format markdown``: the summary a CI job page shows; and the report's anchors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from report_helpers import ENTRIES, results_file

from skill_conformance.commands.main import main
from skill_conformance.commands.report import ROW_LIMIT


def _mixed(index: int, _entry: object) -> tuple[str, str] | None:
    if index == 0:
        return ("failed", "expected `a|b`, observed <b>bold</b>\nand a second line")
    if index == 1:
        return ("errored", "ImplementationCrash: start() crashed: RuntimeError: boom")
    if index == 2:
        return ("not-applicable", "other: other has no pool")
    if index in (3, 4):
        return ("expected-failure", "known: returns a string")
    return ("passed", "")


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    good = results_file(tmp_path / "a.json", "reference", "0.1.0", lambda i, e: ("passed", ""))
    bad = results_file(tmp_path / "b.json", "other", "2.0", _mixed)
    return [good, bad]


def _summary(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["report", *args, "--format", "markdown"]) == 0
    return capsys.readouterr().out


def test_a_passing_run_is_one_line_and_its_counts(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _summary(capsys, str(files[0]))
    assert out.splitlines() == [
        "### ✅ skill-conformance: the gate passes",
        "",
        "| implementation | exit status | passed |",
        "| --- | --- | ---: |",
        f"| reference 0.1.0 | ✅ 0 | {len(ENTRIES)} |",
    ]


def test_what_breaks_the_gate_is_listed_open_and_known_failures_folded(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _summary(capsys, *map(str, files))
    lines = out.splitlines()
    assert lines[0] == "### ❌ skill-conformance: 1 of 2 runs fail the gate"
    assert f"| other 2.0 | ❌ 1 | {len(ENTRIES) - 5} | 1 | 1 | 2 | 1 |" in lines
    assert "#### other 2.0: 2 breaking the gate" in lines
    failed, errored = ENTRIES[0], ENTRIES[1]
    # Escaped: nothing of a reason is read as Markdown or HTML, and a row stays one line.
    assert (
        f"| {failed.capability} | {failed.name} | failed | expected \\`a\\|b\\`, "
        "observed &lt;b&gt;bold&lt;/b&gt;\\\\nand a second line |"
    ) in lines
    assert f"| {errored.capability} | {errored.name} | errored | {'ImplementationCrash'}" in out
    folded = out[out.index("<details>") :]
    assert "<summary>other 2.0: 2 known failures (expectations file)</summary>" in folded
    assert folded.count("| expected failure | known: returns a string |") == 2
    assert "| not applicable | other: other has no pool |" not in out  # n/a is not listed
    assert out.count("<details>") == 1  # --show failures: no list of every scenario


def test_show_all_folds_every_scenario_of_each_run(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _summary(capsys, *map(str, files), "--show", "all")
    assert f"<summary>reference 0.1.0: every scenario ({len(ENTRIES)})</summary>" in out
    assert f"<summary>other 2.0: every scenario ({len(ENTRIES)})</summary>" in out
    shown = min(len(ENTRIES), ROW_LIMIT)  # each run's list is cut at the limit
    assert out.count("| passed |  |") == shown + shown - 5


def test_scenarios_link_to_their_row_of_the_html_report(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "https://ci.example/report.html"
    out = _summary(capsys, *map(str, files), "--report-url", url)
    links = re.findall(rf"\]\({re.escape(url)}#([^)]+)\)", out)
    assert links[:2] == [ENTRIES[0].key, ENTRIES[1].key]
    page = tmp_path / "report.html"
    assert main(["report", *map(str, files), "--out", str(page)]) == 0
    html = page.read_text("utf-8")
    ids = re.findall(r'<tr id="([^"]+)" class="scenario', html)
    assert ids == [entry.key for entry in ENTRIES]  # one stable anchor per scenario: its key
    for link in links:
        assert f'<tr id="{link}"' in html
        assert f'<a href="#{link}">@id:' in html  # the row links to itself


def test_a_long_list_is_cut_and_says_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(ENTRIES) > ROW_LIMIT / 2
    one = results_file(tmp_path / "one.json", "one", "1", lambda i, e: ("failed", "no"))
    two = results_file(tmp_path / "two.json", "two", "1", lambda i, e: ("failed", "no"))
    out = _summary(capsys, str(one), str(two), "--show", "all")
    assert out.count("| failed | no |") == 4 * min(len(ENTRIES), ROW_LIMIT)
    if len(ENTRIES) > ROW_LIMIT:
        assert f"… and {len(ENTRIES) - ROW_LIMIT} more" in out


def test_markdown_goes_to_a_file_with_out_and_html_needs_one(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary.md"
    args = ["report", str(files[1]), "--format", "markdown", "--out", str(out)]
    assert main(args) == 0
    assert out.read_text("utf-8").startswith("### ❌ skill-conformance: the gate fails")
    capsys.readouterr()
    assert main(["report", str(files[1])]) == 2
    assert capsys.readouterr().err.strip() == (
        "skill-conformance: error: --out: the HTML report needs a file to go to"
    )


def test_the_html_report_opens_filtered_with_show_failures(
    files: list[Path], tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    assert main(["report", *map(str, files), "--out", str(page)]) == 0
    assert '<input type="checkbox" id="failing-only">' in page.read_text("utf-8")
    assert main(["report", *map(str, files), "--out", str(page), "--show", "failures"]) == 0
    html = page.read_text("utf-8")
    assert '<input type="checkbox" id="failing-only" checked>' in html
    failing = re.findall(r'<tr id="([^"]+)" class="scenario failing"', html)
    assert failing == [entry.key for entry in ENTRIES[:5] if entry is not ENTRIES[2]]
