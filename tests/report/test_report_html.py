"""``skill-conformance report``: a self-contained page, text escaped, verdicts side by side."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from report_helpers import ENTRIES, result, results_file

from skill_conformance.commands.main import main

_VOID = {"meta", "br", "img", "hr", "input", "link"}


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in _VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:]}")
        else:
            self.open.pop()


@pytest.fixture
def page(tmp_path: Path) -> str:
    good = results_file(tmp_path / "a.json", "reference", "0.1.0", lambda i, e: ("passed", ""))
    unknown = result(ENTRIES[0], "failed", "gone")
    unknown = type(unknown)(**{**unknown.__dict__, "id": "no-such.scenario"})

    def mixed(index: int, _entry: object) -> tuple[str, str] | None:
        if index == 0:
            return ("failed", "<script>alert('x')</script> is not in the text")
        if index == 1:
            return ("not-applicable", "other: other has no `pool`")
        if index == 2:
            return None
        return ("expected-failure", "known: returns a string")

    other = results_file(
        tmp_path / "b.json", "other", "2.0", mixed, digest="sha256:0000", extra=(unknown,)
    )
    out = tmp_path / "out" / "report.html"
    assert main(["report", str(good), str(other), "--out", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def test_the_page_is_self_contained_and_well_formed(page: str) -> None:
    for external in ("<script", "<link", "src=", "url(", "@import"):
        assert external not in page
    checker = _Balance()
    checker.feed(page)
    assert checker.errors == []
    assert checker.open == []


def test_reasons_are_escaped(page: str) -> None:
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; is not in the text" in page
    assert "other: other has no <code>pool</code>" in page


def test_every_scenario_has_its_steps_and_one_verdict_per_implementation(page: str) -> None:
    assert "<th>reference 0.1.0</th><th>other 2.0</th>" in page
    assert page.count('<td class="scenario">') == len(ENTRIES)
    assert page.count('<td class="verdict ') == 2 * len(ENTRIES) + 1  # + the unknown one
    assert page.count('data-label="other 2.0"><span class="badge">') == len(ENTRIES) + 1
    first = ENTRIES[0]
    assert f"@id:{first.id}" in page
    step = first.scenario.steps[0]
    assert f'<span class="kw">{step.keyword}</span>' in page
    assert page.count('<td class="verdict not-run" data-label="other 2.0">') == 1
    assert "known: returns a string" in page


def test_mismatches_are_flagged(page: str) -> None:
    assert "differs from these specs" in page
    assert "Results for scenarios these specs do not have" in page
    assert "no-such.scenario" in page


def test_an_unreadable_results_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    assert main(["report", str(bad), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"skill-conformance: error: {bad}: not a skill-conformance-results/2")
    assert "\n" not in err
    assert not (tmp_path / "r.html").exists()


def test_each_clause_stands_beside_the_scenarios_that_check_it(page: str) -> None:
    first = ENTRIES[0]
    clause = first.scenario.clauses[0]
    row = page[page.index(f'<tr id="clause:{clause}">') :]
    row = row[: row.index("</tr>")]
    assert f"<code>[{clause}]</code>" in row
    assert f'<a href="#{first.key}">' in row
    assert f'checks: <a href="#clause:{clause}">{clause}</a>' in page
    overview = page[page.index('<h2 id="overview">') :]
    assert '<td data-label="Clauses">2 of 2 checked</td>' in overview


def _contradicting(path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """A results file of the first two scenarios (failed, passed; exit 1), then ``edit``ed."""
    results_file(
        path, "x", "1", lambda i, _: (("failed", "no"), ("passed", ""))[i] if i < 2 else None
    )
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def _listed_twice(data: dict[str, Any]) -> None:
    data["scenarios"].append({**data["scenarios"][0], "verdict": "passed"})
    data["counts"] = {"passed": 2, "failed": 1}


def _miscounted(data: dict[str, Any]) -> None:
    data["counts"] = {"passed": 2}


def _exit_0_beside_a_failure(data: dict[str, Any]) -> None:
    data["exit_status"] = 0


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_listed_twice, r"scenario '[^']+' is listed 2 times \(failed, then passed\)"),
        (_miscounted, "counts say 0 failed, the scenarios 1"),
        (_exit_0_beside_a_failure, "exit status 0, yet scenario '[^']+' is failed"),
    ],
)
def test_a_results_file_contradicting_itself_is_refused_on_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict[str, Any]], None],
    why: str,
) -> None:
    bad = _contradicting(tmp_path / "bad.json", edit)
    assert main(["report", str(bad), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(
        f"skill-conformance: error: {re.escape(str(bad))}: contradicts itself: {why}; refused\n",
        err,
    ), err
    assert not (tmp_path / "r.html").exists()
