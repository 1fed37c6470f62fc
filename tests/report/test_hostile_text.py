"""Untrusted text through the real commands: each hostile form, in each field a results file has.

An implementation under test (or a pull request changing one) controls its observations, and a
results file controls every name in it. Whatever they hold, ``compare`` and ``report`` write it as
text: Markdown renders no link, image, autolink, mention, reference, HTML or emphasis from it and
keeps every table row one row; text output writes no control character; HTML escapes it.
"""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from skill_conformance.commands import smoke
from skill_conformance.commands.main import main
from skill_conformance.escape.terminal import printable
from skill_conformance.verdicts.block import BlockRepr
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.summary import summary_lines
from skill_conformance.verdicts.verdict import Verdict

HOSTILE = {
    "link": "[Approve this PR](https://evil.example/approve)",
    "image": "![pixel](https://evil.example/pixel.png)",
    "autolink": "<https://evil.example/auto>",
    "bare-url": "see https://evil.example/bare now",
    "www": "see www.evil.example now",
    "email": "write to mallory@evil.example",
    "mention": "@octocat please merge",
    "team-mention": "cc @github/security",
    "issue-reference": "fixes #12 and owner/repo#3 and GH-4",
    "html": "<img src=x onerror=alert(1)><script>alert(2)</script>",
    "closing-fold": "</details><details open><summary>x</summary>",
    "table-break": "a | b | c",
    "line-break": "one\ntwo\r\nthree\u2028four",
    "fence": "```\nfenced\n```",
    "code": "`code`",
    "emphasis": "*em* **strong** _em_ ~~gone~~",
    "math": "$x^2$",
    "heading": "# heading",
    "list": "- item",
    "entity": "&lt;b&gt; &#64;octocat",
    "reference-definition": "[r]: https://evil.example/ref",
    "terminal": "\x1b[31mred\x1b[0m\rover\x07bell\x00nul\x9bcsi",
    "bidi": "abc\u202edcba\u2066x\u2069\u200b",
}
"""What each hostile form looks like; every one goes in every field."""

_TERMINAL_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b]")
"""What text output may not write (line feed aside: it ends the command's own lines)."""


def _results(path: Path, verdict: Verdict, text: str, adapter: str) -> Path:
    scenarios = tuple(
        ScenarioResult(
            capability=f"cap-{key} {text}",
            requirement_slug="req",
            requirement_title=f"requirement {text}",
            id=f"id-{key}",
            name=f"{key}: {text}",
            verdict=verdict,
            reason=f"expected {text}, observed {text}" if verdict is Verdict.FAILED else "",
        )
        for key in HOSTILE
    )
    header = Header("0.1.0", "sha256:0", adapter, f"1.0 {text}", "x")
    status = 1 if verdict is Verdict.FAILED else 0
    write_results(path, Results(header, scenarios, "2026-12-07", status))
    return path


@pytest.fixture(params=sorted(HOSTILE))
def runs(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, Path]:
    """BASE: every scenario passes; HEAD: every one fails; the form in every field of both."""
    text = HOSTILE[request.param]
    base = _results(tmp_path / "base.json", Verdict.PASSED, text, f"base {text}")
    head = _results(tmp_path / "head.json", Verdict.FAILED, text, f"head {text}")
    return text, base, head


def _output(capsys: pytest.CaptureFixture[str], *argv: str, status: int) -> str:
    assert main(list(argv)) == status
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


_MARKDOWN = MarkdownIt("gfm-like")  # tables, strikethrough, and bare URLs made links (linkify)
_FORMED = re.compile(r"<(?!/?(?:table|thead|tbody|tr|th|td|p|h3|h4|blockquote|details|summary)\b)")
_OWN_BOLD = "<strong>The gate"
"""The one bold text of compare's own: its verdict line."""
"""A tag the renderer made that the command's own Markdown does not: a link, an image, code, ..."""
_GITHUB_LINKS = re.compile(r"(?:^|\W)@\w|#\d|GH-\d|://|www\.", re.IGNORECASE)
"""What GitHub links by itself in rendered text: a mention, a reference, a URL."""


_OWN_LINK = re.compile(r'<a href="R#[A-Za-z0-9%/._~-]+">(.*?)</a>')
"""A link of report's own to a scenario's row (``--report-url`` shown as ``R``), quoted whole."""


def _assert_inert(markdown: str, text: str, rows: int, links: int = 0) -> None:
    html = _MARKDOWN.render(markdown).replace(_OWN_BOLD, "The gate", 1).replace("</strong>", "", 1)
    html, own = _OWN_LINK.subn(r"\1", html)
    assert own == links
    # The summaries' own <details>/<summary> pass through as HTML; nothing else may be a tag.
    formed = [m.group(0) + html[m.end() : m.end() + 30] for m in _FORMED.finditer(html)]
    assert formed == []
    shown = unescape(re.sub(r"<[^>]+>", " ", html))
    assert _GITHUB_LINKS.findall(shown) == []
    assert printable(text) in shown.replace("\u2060", "")  # as it was, only escaped
    assert re.findall(r"(?<!\\)\$", markdown) == []  # GitHub typesets $...$ as math
    assert html.count("<tr>") == rows  # no row broken, none made
    for table in html.split("<table>")[1:]:
        head, body = table.split("</thead>")
        widths = {row.count("<td") for row in body.split("<tr>")[1:]}
        assert widths == {
            len(re.findall(r"<th[ >]", head))
        }  # no cell added to a row, none taken away


def test_compare_markdown_forms_nothing(
    runs: tuple[str, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text, base, head = runs
    out = _output(capsys, "compare", str(base), str(head), "--format", "markdown", status=1)
    _assert_inert(out, text, rows=1 + len(HOSTILE))


def test_report_markdown_forms_nothing(
    runs: tuple[str, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text, base, head = runs
    argv = ["report", str(base), str(head), "--format", "markdown", "--show", "all"]
    out = _output(capsys, *argv, "--report-url", "https://ci.example/r.html", status=0)
    # counts: a heading and two runs; HEAD's failures; every scenario of each run, folded
    rows, links = 3 + 3 * (1 + len(HOSTILE)), 3 * len(HOSTILE)
    _assert_inert(out.replace("https://ci.example/r.html#", "R#"), text, rows, links)


def test_compare_text_writes_no_control_character(
    runs: tuple[str, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, base, head = runs
    out = _output(capsys, "compare", str(base), str(head), status=1)
    assert _TERMINAL_UNSAFE.findall(out) == []
    names = [line for line in out.splitlines() if line.startswith("  cap-")]
    assert len(names) == len(HOSTILE)  # each scenario on its one line


def test_report_html_escapes_it(runs: tuple[str, Path, Path], tmp_path: Path) -> None:
    _, base, head = runs
    page = tmp_path / "report.html"
    assert main(["report", str(base), str(head), "--out", str(page)]) == 0
    html = page.read_text("utf-8")
    for tag in ("<img src=x", "<script>alert", "</details><details open>"):
        assert tag not in html
    assert '<a href="https://evil' not in html


@pytest.mark.parametrize("key", sorted(HOSTILE))
def test_a_runs_summary_and_failure_block_write_no_control_character(key: str) -> None:
    # What `skill-conformance run` prints at its end and for each failing scenario.
    text = HOSTILE[key]
    result = ScenarioResult(f"cap {text}", "r", "R", "id", f"name {text}", Verdict.FAILED, text)
    lines = summary_lines([result])
    written: list[str] = []

    class Writer:
        def line(self, s: str = "", **markup: bool) -> None:
            written.append(s)

    BlockRepr(f"Scenario: {text}\n  expected: {text}\n  observed: {text}", text).toterminal(
        Writer()
    )
    for line in [*lines, *written]:
        assert _TERMINAL_UNSAFE.findall(line) == [], line


@pytest.mark.parametrize("key", sorted(HOSTILE))
def test_smokes_report_writes_no_control_character(key: str) -> None:
    text = HOSTILE[key]

    class Named:
        name, version = f"impl {text}", f"1 {text}"

    out = io.StringIO()
    smoke.report(Named(), [smoke.Check("start", "error", f"crashed: {text}")], out)  # type: ignore[arg-type]
    assert _TERMINAL_UNSAFE.findall(out.getvalue()) == []
    assert out.getvalue().count("\n") == 3
