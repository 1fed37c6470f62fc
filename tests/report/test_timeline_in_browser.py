"""The history's timeline as headless Chromium lays it out: on a phone, and on a wide screen.

A probe script added to the page (the page itself has none) writes what the browser measured
into the page, which Chromium then prints (``--dump-dom``); on a phone the page is shown in a
frame 390 px wide (headless Chromium's own window is no narrower than 500 px).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from report_helpers import run_chromium

from skill_conformance.commands.history.commits import Commit
from skill_conformance.commands.history.record import Outcome
from skill_conformance.commands.history.timeline import Timeline, render_timeline
from skill_conformance.verdicts.results import Header, Results, ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

PROBE = """
<script>
const view = document.documentElement.clientWidth;
const box = (element) => element.getBoundingClientRect();
const cells = [...document.querySelectorAll("table.timeline td.passed, table.timeline td.failed")];
const first = box(cells[0]);
const legend = [...document.querySelectorAll(".legend-cells li")].map((li) => li.textContent);
const head = document.querySelector("table.timeline tr th");
const frame = document.querySelector("div.timeline") || document.scrollingElement;
frame.scrollTop = 400;
const headAfterScroll = box(head).top - Math.max(box(frame).top, 0);
const probe = document.createElement("pre");
probe.id = "probe";
probe.textContent = JSON.stringify({
  view, width: document.documentElement.scrollWidth, cells: cells.length,
  firstLeft: first.left, firstRight: first.right, firstWidth: first.width,
  legend, headAfterScroll,
});
(window.parent === window ? document.body : window.parent.document.body).append(probe);
</script>
"""


def _timeline(commits: int = 60, scenarios: int = 30) -> Timeline:
    outcomes = []
    header = Header("0.1.0", "sha256:0", "impl", "1.0", "impl")
    for c in range(commits):
        commit = Commit(f"{c:040x}", f"2026-07-{c % 28 + 1:02d}", f"commit {c}")
        results = tuple(
            ScenarioResult(
                f"capability-{n // 10}",
                f"r{n // 5}",
                f"Requirement {n // 5} SHALL hold",
                f"s{n}",
                f"Scenario number {n} with a fairly long name",
                Verdict.FAILED if (n + c) % 11 == 0 else Verdict.PASSED,
                "observed something else" if (n + c) % 11 == 0 else "",
            )
            for n in range(scenarios)
        )
        outcomes.append(Outcome(commit, Results(header, results, "", 1)))
    return Timeline(outcomes)


def _measure(tmp_path: Path, width: int) -> dict[str, object]:
    page = render_timeline(_timeline())
    # A phone lays out a page without this 980 px wide, and shrinks it: no verdict can be seen.
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    page = page.replace("</body>", PROBE + "</body>")
    probed = tmp_path / f"timeline-{width}.html"
    if width < 500:  # narrower than Chromium's window: in a frame
        page = (
            f'<!DOCTYPE html><html><body style="margin:0"><iframe style="width:{width}px;'
            f'height:800px;border:0" srcdoc="{html.escape(page)}"></iframe></body></html>'
        )
    probed.write_text(page, "utf-8")
    dom = run_chromium(probed, max(width, 800), 800, "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    measured: dict[str, object] = json.loads(html.unescape(found.group(1)))
    return measured


@pytest.mark.parametrize("width", [390, 1280])
def test_the_timeline_is_no_wider_than_the_screen_and_shows_verdicts(
    tmp_path: Path, width: int
) -> None:
    """At 1,280 px it was 1,500 px wide; at 390 px no verdict was on the screen."""
    measured = _measure(tmp_path, width)
    assert measured["view"] == width
    assert measured["width"] == width  # the table scrolls in its own box, not the page
    assert measured["cells"] == 60 * 30
    assert isinstance(measured["firstRight"], float | int)
    assert isinstance(measured["firstWidth"], float | int)
    assert measured["firstWidth"] >= 10
    assert measured["firstRight"] <= width  # the first commit's verdicts are on the screen


def test_the_timeline_has_a_legend_and_its_commits_row_stays_in_sight(tmp_path: Path) -> None:
    measured = _measure(tmp_path, 1280)
    legend = measured["legend"]
    assert isinstance(legend, list)
    assert {"passed", "failed", "not applicable"} <= set(legend)
    assert isinstance(measured["headAfterScroll"], float | int)
    assert abs(measured["headAfterScroll"]) <= 2  # scrolled 400 px, the header row stays on top
