"""The HTML report for a reader on a phone: what did not pass first, counts that filter, the
failing step marked, each sentence of the specs once."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from report_helpers import ENTRIES, result, results_file

from skill_conformance.commands.main import main
from skill_conformance.verdicts.results import Results, load_results, write_results

_STEP = ENTRIES[0].scenario.steps[-1]


def _page(tmp_path: Path) -> str:
    def verdicts(index: int, _entry: object) -> tuple[str, str]:
        return {0: ("failed", "wrong"), 3: ("errored", "crashed")}.get(index, ("passed", ""))

    path = results_file(tmp_path / "a.json", "mine", "1.0", verdicts)
    loaded = load_results(path)
    marked = tuple(
        dataclasses.replace(r, step=f"Then {_STEP.text}") if r.key == ENTRIES[0].key else r
        for r in loaded.scenarios
    )
    write_results(path, Results(loaded.header, marked, loaded.created, loaded.exit_status))
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--out", str(out)]) == 0
    return out.read_text("utf-8")


def test_what_did_not_pass_comes_first_with_the_filter(tmp_path: Path) -> None:
    page = _page(tmp_path)
    top = page[: page.index('<h2 id="runs">')]
    assert 'id="failing-only"' in top
    listed = re.findall(r'<li>.*?<a href="#([^"]+)">', top[top.index('id="attention"') :])
    assert listed == [ENTRIES[0].key, ENTRIES[3].key]


def test_each_count_is_a_link_that_shows_only_its_verdict(tmp_path: Path) -> None:
    page = _page(tmp_path)
    assert '<a class="chip failed" href="#only-failed"' in page
    assert '<span id="only-failed" class="target"></span>' in page
    assert "body:has(#only-failed:target) tr.scenario:not(.has-failed)" in page
    row = re.search(rf'<tr id="{re.escape(ENTRIES[0].key)}" class="([^"]+)"', page)
    assert row is not None
    assert row.group(1).split() == ["scenario", "failing", "has-failed"]


def test_the_failing_step_is_marked(tmp_path: Path) -> None:
    page = _page(tmp_path)
    marked = re.findall(r'<li class="failed-step" title="failed here \(mine 1.0\)">', page)
    assert len(marked) == 1
    row = page[page.index(f'<tr id="{ENTRIES[0].key}"') :]
    assert row.index('class="failed-step"') < row.index("</tr>")


def test_a_requirement_with_clauses_shows_its_text_once(tmp_path: Path) -> None:
    page = _page(tmp_path)
    assert '<table class="clauses">' in page
    assert '<p class="normative">' not in page


def test_the_failing_step_is_kept_in_the_results_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    scenario = dataclasses.replace(result(ENTRIES[0], "failed", "x"), step="Then it is `y`")
    write_results(
        path,
        Results(load_results(results_file(path, "m", "1", lambda i, e: None)).header, (scenario,)),
    )
    assert load_results(path).scenarios[0].step == "Then it is `y`"
