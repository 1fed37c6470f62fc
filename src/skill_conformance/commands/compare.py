"""``skill-conformance compare BASE HEAD``: the pull request gate over two results files.

Text for a terminal, Markdown for a pull request comment or a job summary, JSON for a program.
Exit 1 when a scenario regressed (or HEAD could not be driven at all where BASE could), 0 when
not, 2 when a file cannot be read or a run was interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skill_conformance.atomic import write_atomic
from skill_conformance.errors import InputError
from skill_conformance.escape.markdown import cell, folded, in_html, inline, shortened, table
from skill_conformance.escape.terminal import printable
from skill_conformance.options import writable_file
from skill_conformance.verdicts.comparison import Change, Comparison, compare, observation
from skill_conformance.verdicts.results import Results, ResultsError, load_results

__all__ = ["add_compare", "render_markdown", "render_text"]

PASSES, FAILS, ERROR = 0, 1, 2

_SECTIONS = (
    ("regressions", "Regressions (passed, now failed or errored)"),
    ("fixes", "Fixes (failed or errored, now passed)"),
    ("changed", "Other changes of verdict"),
    ("observations", "Same verdict, another observation"),
    ("added", "Scenarios added"),
    ("removed", "Scenarios removed"),
)


def _label(results: Results, given: str | None) -> str:
    return given or f"{results.header.adapter} {results.header.adapter_version}"


def _counts(comparison: Comparison) -> str:
    parts = [
        f"{len(comparison.regressions)} regressed",
        f"{len(comparison.fixes)} fixed",
        f"{len(comparison.changed)} changed verdict",
        f"{len(comparison.observations)} changed observation",
        f"{len(comparison.added)} added",
        f"{len(comparison.removed)} removed",
        f"{comparison.unchanged} unchanged",
    ]
    return ", ".join(parts)


def _verdict_line(comparison: Comparison) -> str:
    if comparison.regressions:
        count = len(comparison.regressions)
        return f"the gate fails: {count} scenario{'s' * (count != 1)} regressed"
    if comparison.gate_fails:
        return "the gate fails: HEAD cannot be driven, so nothing of it was judged"
    return "the gate passes: no scenario regressed"


def _notes(comparison: Comparison, base: str, head: str) -> list[str]:
    notes = []
    sides = ((base, comparison.base_cannot_drive), (head, comparison.head_cannot_drive))
    for label, reason in sides:
        if reason:
            notes.append(f"cannot drive {label}: {reason} (its scenarios are not compared)")
    if comparison.base.spec_digest != comparison.head.spec_digest:
        notes.append(
            "the runs used different specs (spec digests "
            f"{comparison.base.spec_digest[:19]} and {comparison.head.spec_digest[:19]}): "
            "scenarios added or removed may be the specs' doing"
        )
    return notes


def _arrow(change: Change) -> str:
    before = change.before.value if change.before else "absent"
    after = change.after.value if change.after else "absent"
    return f"{before} -> {after}"


_TEXT_LIMIT = 600
"""Characters of an observation shown in text (the JSON has them whole)."""


def render_text(comparison: Comparison, base: str, head: str) -> str:
    """The comparison for a terminal, observations shortened to a few lines each."""
    lines = [
        f"skill-conformance compare: {printable(base)} -> {printable(head)}",
        _verdict_line(comparison),
    ]
    lines += map(printable, _notes(comparison, base, head))
    lines.append(_counts(comparison))
    for name, title in _SECTIONS:
        changes: list[Change] = getattr(comparison, name)
        if not changes:
            continue
        lines += ["", f"{title}:"]
        for change in changes:
            scenario = change.scenario
            named = f"{printable(scenario.capability)} > {printable(scenario.name)}"
            lines.append(f"  {named}: {_arrow(change)}")
            for side, result in (("base", change.base), ("head", change.head)):
                seen = observation(result) if result is not None else ""
                if seen:
                    lines.append(f"      {side}: {printable(shortened(seen, _TEXT_LIMIT))}")
    return "\n".join(lines) + "\n"


def _table(changes: Sequence[Change]) -> list[str]:
    headings = ("capability", "scenario", "verdict", "observation (base)", "observation (head)")
    rows = []
    for change in changes:
        scenario = change.scenario
        sides = [observation(r) if r is not None else "" for r in (change.base, change.head)]
        arrow = _arrow(change).replace("->", "→")
        rows.append((cell(scenario.capability), cell(scenario.name), arrow, *map(cell, sides)))
    return table(headings, rows)


def render_markdown(comparison: Comparison, base: str, head: str) -> str:
    """The comparison for a pull request comment or a job summary (GitHub-flavoured Markdown).

    Regressions are shown open; every other list is folded.
    """
    mark = "❌" if comparison.gate_fails else "✅"
    lines = [
        f"### {mark} skill-conformance: {cell(base)} → {cell(head)}",
        "",
        f"**{_verdict_line(comparison).capitalize()}.** {_counts(comparison)}.",
    ]
    lines += [f"\n> {inline(note)}" for note in _notes(comparison, base, head)]
    for name, title in _SECTIONS:
        changes: list[Change] = getattr(comparison, name)
        if not changes:
            continue
        if name == "regressions":
            lines += ["", f"#### {title}: {len(changes)}", "", *_table(changes)]
        else:
            lines += ["", *folded(in_html(f"{title}: {len(changes)}"), _table(changes))]
    return "\n".join(lines) + "\n"


def _render_json(comparison: Comparison, base: str, head: str) -> str:
    document = comparison.to_json()
    document["base"] = {"label": base, **_as_dict(document["base"])}
    document["head"] = {"label": head, **_as_dict(document["head"])}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _as_dict(value: object) -> dict[str, object]:
    assert isinstance(value, dict)
    return value


_RENDERERS: dict[str, Callable[[Comparison, str, str], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": _render_json,
}


def _load_complete(path: Path) -> Results:
    results = load_results(path)
    if results.interrupted:
        raise ResultsError(
            f"{path}: the run was interrupted ({len(results.scenarios)} scenarios got a "
            "verdict); a comparison needs complete runs"
        )
    return results


def _compare(args: argparse.Namespace) -> int:
    try:
        out = writable_file("--out", Path(args.out)) if args.out else None
        base, head = _load_complete(Path(args.base)), _load_complete(Path(args.head))
    except InputError as error:
        print(f"skill-conformance: error: {printable(str(error))}", file=sys.stderr)
        return ERROR
    comparison = compare(base, head)
    text = _RENDERERS[args.format](
        comparison, _label(base, args.base_label), _label(head, args.head_label)
    )
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(out, text.encode("utf-8"))
        except OSError as error:
            print(
                f"skill-conformance: error: --out: cannot write {out}: {error.strerror or error}",
                file=sys.stderr,
            )
            return ERROR
        print(_verdict_line(comparison))
    return FAILS if comparison.gate_fails else PASSES


def add_compare(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance compare`` to the command line."""
    parser = commands.add_parser(
        "compare",
        help="compare two results files: regressions, fixes, scenarios added or removed",
        description="Compare HEAD's run with BASE's, scenario by scenario, by what each "
        "scenario really did (expectations set aside). Exit 1 when a scenario that passed in "
        "BASE fails or errors in HEAD, or HEAD could not be driven at all where BASE could; 0 "
        "otherwise; 2 when a file cannot be read or a run was interrupted.",
    )
    parser.add_argument("base", metavar="BASE.json", help="results file of the base")
    parser.add_argument("head", metavar="HEAD.json", help="results file of the head")
    parser.add_argument(
        "--format",
        choices=sorted(_RENDERERS),
        default="text",
        help="text (default), markdown (a pull request comment, a job summary) or json",
    )
    parser.add_argument("--out", metavar="FILE", help="write there instead of standard output")
    parser.add_argument("--base-label", metavar="TEXT", help="name of BASE (default: its adapter)")
    parser.add_argument("--head-label", metavar="TEXT", help="name of HEAD (default: its adapter)")
    parser.set_defaults(command=_compare)
