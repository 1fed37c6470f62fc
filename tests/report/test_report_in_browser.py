"""The report as headless Chromium lays it out: on a phone's 390-px screen, and filtered.

The report is shown in a frame 390 px wide (headless Chromium's own window is no narrower than
500 px), with a probe script added to it (the report itself has none) that writes what the browser
measured into the page around it, which Chromium then prints (``--dump-dom``).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from report_helpers import ENTRIES, results_file, run_chromium

from skill_conformance.commands.main import main
from skill_conformance.verdicts.verdict import Verdict

PHONE = 390

PROBE = """
<script>
const view = document.documentElement.clientWidth;
const badges = [...document.querySelectorAll(".badge, .chip")]
  .map((element) => element.getBoundingClientRect())
  .filter((box) => box.width > 0);
const overlapping = [];
for (let i = 0; i < badges.length; i++) {
  for (let j = i + 1; j < badges.length; j++) {
    const a = badges[i], b = badges[j];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
      overlapping.push([a.left, a.top, b.left, b.top]);
    }
  }
}
const topOf = (selector) => {
  const found = document.querySelector(selector);
  return found === null ? null : found.getBoundingClientRect().top + window.scrollY;
};
const filterTop = topOf("#failing-only"), firstFailingTop = topOf(".attention li a");
const rows = [...document.querySelectorAll("tr.scenario")];
const shown = () => rows.filter((row) => row.getClientRects().length > 0).map((row) => row.id);
const before = shown();
document.getElementById("failing-only").click();
const filtered = shown();
const probe = document.createElement("pre");
probe.id = "probe";
probe.textContent = JSON.stringify({
  view, width: document.documentElement.scrollWidth, badges: badges.length,
  outside: badges.filter((box) => box.left < -0.5 || box.right > view + 0.5).length,
  overlapping: overlapping.slice(0, 5), before, filtered, filterTop, firstFailingTop,
  chipLinks: [...document.querySelectorAll(".chip")].every((chip) => chip.tagName === "A"),
});
window.parent.document.body.append(probe);
</script>
"""

LONG = "observed " + "x" * 300  # one word wider than any screen
VERDICTS = ("failed", "errored", "expected-failure", "unexpected-pass", "not-applicable")


def _verdict(column: int) -> object:
    def choose(index: int, _entry: object) -> tuple[str, str]:
        if (index + column) % 4:
            return ("passed", "")
        verdict = VERDICTS[(index // 4 + column) % len(VERDICTS)]
        return (verdict, f"`{LONG}` is not in the text, expected: a text with {verdict}")

    return choose


def _measure(page: Path, tmp_path: Path) -> dict[str, object]:
    report = page.read_text("utf-8").replace("</body>", PROBE + "</body>")
    probed = tmp_path / "probed.html"
    probed.write_text(
        f'<!DOCTYPE html><html><body style="margin:0"><iframe style="width:{PHONE}px;'
        f'height:800px;border:0" srcdoc="{html.escape(report)}"></iframe></body></html>',
        "utf-8",
    )
    dom = run_chromium(probed, 800, 800, "--dump-dom")
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    measured: dict[str, object] = json.loads(found.group(1).replace("&quot;", '"'))
    return measured


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    tmp_path = tmp_path_factory.mktemp("report")
    files = [
        results_file(
            tmp_path / f"impl-{n}.json", f"implementation-{n}", f"{n}.0.0+g0123456789", _verdict(n)
        )
        for n in range(4)
    ]
    page = tmp_path / "report.html"
    assert main(["report", *map(str, files), "--out", str(page)]) == 0
    return _measure(page, tmp_path)


def test_on_a_phone_the_page_does_not_scroll_sideways(measured: dict[str, object]) -> None:
    assert measured["view"] == PHONE
    assert measured["width"] == PHONE


def test_on_a_phone_no_badge_overlaps_another_or_leaves_the_screen(
    measured: dict[str, object],
) -> None:
    assert isinstance(measured["badges"], int)
    assert measured["badges"] > 4 * len(ENTRIES)  # every verdict cell's badge, and the chips
    assert measured["outside"] == 0
    assert measured["overlapping"] == []


def test_the_filter_shows_only_the_scenarios_that_did_not_pass(
    measured: dict[str, object],
) -> None:
    keep = {Verdict(v) for v in VERDICTS} - {Verdict.NOT_APPLICABLE}
    expected = [
        entry.key
        for index, entry in enumerate(ENTRIES)
        if any(
            (index + column) % 4 == 0 and Verdict(VERDICTS[(index // 4 + column) % 5]) in keep
            for column in range(4)
        )
    ]
    assert measured["before"] == [entry.key for entry in ENTRIES]
    assert measured["filtered"] == expected
    assert 0 < len(expected) < len(ENTRIES)


def test_on_a_phone_the_filter_and_what_did_not_pass_are_on_the_first_screen(
    measured: dict[str, object],
) -> None:
    """They were 12,600 px down, below the runs, the legend and the whole overview."""
    assert isinstance(measured["filterTop"], float | int)
    assert isinstance(measured["firstFailingTop"], float | int)
    assert measured["filterTop"] < 800
    assert measured["firstFailingTop"] < 800
    assert measured["chipLinks"] is True
