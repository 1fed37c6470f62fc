"""The report as a real browser draws it: headless Chromium, a screenshot, its pixels checked.

The report holds one requirement whose three scenarios passed on one implementation and failed,
errored and were not applicable on another. The screenshot must show each verdict's colour, and
the two implementations side by side: every "passed" cell left of every "failed" one.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from report_helpers import read_png, run_chromium

from skill_conformance.bundled import spec_digest
from skill_conformance.catalogue import load_catalogue
from skill_conformance.commands.main import main
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

SPEC = """# demo

## Purpose
A demo.

## Requirements

### Requirement: Greeting SHALL be polite
The system SHALL greet politely.

#### Scenario: Morning greeting
- **WHEN** the user says `hello`
- **THEN** the reply contains `good morning`

#### Scenario: Evening greeting
- **WHEN** the user says `hello` at night
- **THEN** the reply contains `good evening`

#### Scenario: Greeting in French
- **WHEN** the user says `bonjour`
- **THEN** the reply contains `bonjour`
"""

WIDTH, HEIGHT = 1200, 1500
BACKGROUNDS = {
    "passed": bytes.fromhex("dafbe1"),
    "failed": bytes.fromhex("ffebe9"),
    "errored": bytes.fromhex("fbefff"),
    "not-applicable": bytes.fromhex("f6f8fa"),
}
BADGES = {"passed": bytes.fromhex("1a7f37"), "failed": bytes.fromhex("cf222e")}


def _report(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "spec.md").write_text(SPEC)
    entries = load_catalogue(specs).entries()
    assert [e.name for e in entries] == [
        "Morning greeting",
        "Evening greeting",
        "Greeting in French",
    ]

    def run(adapter: str, verdicts: list[tuple[str, str]], status: int) -> Path:
        scenarios = tuple(
            ScenarioResult(
                e.capability, e.requirement.slug, e.requirement.title, e.id, e.name, Verdict(v), why
            )
            for e, (v, why) in zip(entries, verdicts, strict=True)
        )
        header = Header("0.1.0", spec_digest(specs), adapter, "1.0", adapter)
        path = tmp_path / f"{adapter}.json"
        write_results(path, Results(header, scenarios, "2026-12-02T17:00:00+00:00", status))
        return path

    good = run("alpha", [("passed", "")] * 3, 0)
    bad = run(
        "beta",
        [
            ("failed", "'good morning' is not in the text: hi"),
            ("errored", "ImplementationCrash: reply() crashed: KeyError: 'night'"),
            ("not-applicable", "beta: beta speaks no French"),
        ],
        1,
    )
    out = tmp_path / "report.html"
    assert main(["report", str(good), str(bad), "--specs", str(specs), "--out", str(out)]) == 0
    return out


def test_the_report_renders_the_verdicts_side_by_side_in_chromium(tmp_path: Path) -> None:
    report = _report(tmp_path)
    shot = tmp_path / "report.png"
    run_chromium(report, WIDTH, HEIGHT, f"--screenshot={shot}")
    assert shot.is_file()

    width, height, rows = read_png(shot)
    assert (width, height) == (WIDTH, HEIGHT)
    where: dict[str, list[int]] = defaultdict(list)
    colours: set[bytes] = set()
    wanted = {
        **{v: k for k, v in BACKGROUNDS.items()},
        **{v: f"badge-{k}" for k, v in BADGES.items()},
    }
    for row in rows:
        for x in range(0, len(row), 3):
            pixel = row[x : x + 3]
            colours.add(pixel)
            name = wanted.get(pixel)
            if name is not None:
                where[name].append(x // 3)
    assert len(colours) > 50, "the page is (nearly) blank"
    for verdict in BACKGROUNDS:
        assert len(where[verdict]) > 5000, f"no {verdict} cell drawn: {len(where[verdict])} px"
    for verdict in BADGES:
        assert len(where[f"badge-{verdict}"]) > 300, f"no {verdict} badge drawn"
    # The matrix: alpha's column (all passed) is left of beta's (failed, errored, n/a).
    assert max(where["passed"]) < min(where["failed"])
    assert max(where["passed"]) < min(where["errored"])
