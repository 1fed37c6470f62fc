"""Render the HTML conformance report: one page, inline CSS, every text escaped."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources

from skill_conformance.catalogue import Catalogue, Entry
from skill_conformance.gherkin.model import DataTable, DocString, Step
from skill_conformance.verdicts.results import Results, ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Column", "render_report"]


@dataclass(frozen=True)
class Column:
    """One implementation's results, shown as one column."""

    label: str
    results: Results

    def by_key(self) -> dict[str, ScenarioResult]:
        """The results keyed by ``{capability}/{id}``."""
        return {result.key: result for result in self.results.scenarios}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _inline(text: str) -> str:
    """Escape ``text``; spans in backticks become ``<code>``."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: show it as written
        return _e(text)
    return "".join(f"<code>{_e(p)}</code>" if i % 2 else _e(p) for i, p in enumerate(parts))


def _anchor(*parts: str) -> str:
    return "-".join("".join(c if c.isalnum() else "-" for c in part) for part in parts)


def render_report(
    columns: Sequence[Column],
    catalogue: Catalogue,
    *,
    spec_digest: str,
    title: str = "Skill system conformance report",
) -> str:
    """The whole report: runs, legend, overview, then requirement by requirement."""
    entries = catalogue.entries()
    keys = [column.by_key() for column in columns]
    known = {entry.key for entry in entries}
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead">Generated {_e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))} '
        f"from {len(columns)} results file{'s' if len(columns) != 1 else ''}; scenario text from "
        f"the specs with digest <code>{_e(spec_digest[:23])}</code>.</p>",
        _runs(columns, spec_digest),
        _legend(),
        _overview(columns, keys, entries),
        *_capabilities(columns, keys, entries),
        _unknown(columns, known),
    ]
    css = (
        resources.files("skill_conformance.commands.report")
        .joinpath("report.css")
        .read_text("utf-8")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + "\n</body>\n</html>\n"
    )


def _runs(columns: Sequence[Column], spec_digest: str) -> str:
    rows: list[tuple[str, list[str]]] = [
        ("Implementation", [f"<b>{_e(c.label)}</b>" for c in columns]),
        ("--impl", [f"<code>{_e(c.results.header.impl)}</code>" for c in columns]),
        ("Suite version", [_e(c.results.header.suite_version) for c in columns]),
        ("Spec digest", [_digest(c.results.header.spec_digest, spec_digest) for c in columns]),
        ("Run at", [_e(c.results.created or "?") for c in columns]),
        ("Exit status", [_exit(c.results.exit_status, c.results.interrupted) for c in columns]),
        ("Verdicts", [_chips(c.results.counts(), long=True) for c in columns]),
    ]
    lines = ['<h2 id="runs">Runs</h2>', '<table class="runs">']
    for name, cells in rows:
        tds = "".join(f"<td>{cell}</td>" for cell in cells)
        lines.append(f'<tr><th scope="row">{_e(name)}</th>{tds}</tr>')
    lines.append("</table>")
    return "\n".join(lines)


def _digest(digest: str, expected: str) -> str:
    shown = f"<code>{_e(digest[:23])}</code>"
    if digest == expected:
        return f"{shown} (these specs)"
    return f'{shown} <span class="warning">differs from these specs</span>'


def _exit(status: int | None, interrupted: bool = False) -> str:
    if interrupted:
        return f'<span class="warning">{status} (interrupted: partial run)</span>'
    if status is None:
        return "?"
    return f"{status} (gate passes)" if status == 0 else f'<span class="warning">{status}</span>'


def _chips(counts: Counter[Verdict], *, long: bool = False) -> str:
    chips = [
        f'<span class="chip {v}" title="{_e(v.prose)}">'
        f"{counts[v]}{' ' + _e(v.prose) if long else ''}</span>"
        for v in Verdict
        if counts[v]
    ]
    return "".join(chips) or '<span class="muted">no scenario</span>'


def _legend() -> str:
    items = "".join(
        f'<li class="{v}"><span class="badge">{_e(v.prose)}</span>{_e(v.meaning)}</li>'
        for v in Verdict
    )
    return (
        '<section class="legend"><h2 id="legend">Verdicts</h2>'
        f'<ul style="list-style:none;padding:0;margin:0;columns:2">{items}</ul></section>'
    )


def _overview(
    columns: Sequence[Column], keys: Sequence[dict[str, ScenarioResult]], entries: list[Entry]
) -> str:
    heads = "".join(f"<th>{_e(c.label)}</th>" for c in columns)
    lines = [
        '<h2 id="overview">Overview</h2>',
        '<table class="overview">',
        f"<tr><th>Capability / requirement</th><th>Scenarios</th>{heads}</tr>",
    ]
    for capability, requirements in _grouped(entries):
        group = [e for _, es in requirements for e in es]
        lines.append(_overview_row("cap", capability, _anchor(capability), group, keys))
        for title, members in requirements:
            anchor = _anchor(capability, members[0].requirement.slug)
            lines.append(_overview_row("req", title, anchor, members, keys))
    lines.append("</table>")
    return "\n".join(lines)


def _overview_row(
    kind: str,
    title: str,
    anchor: str,
    entries: list[Entry],
    keys: Sequence[dict[str, ScenarioResult]],
) -> str:
    cells = []
    for by_key in keys:
        counts = Counter(by_key[e.key].verdict for e in entries if e.key in by_key)
        missing = sum(1 for e in entries if e.key not in by_key)
        note = f'<span class="muted">{missing} not run</span>' if missing else ""
        chips = _chips(counts) if counts or not missing else ""
        cells.append(f"<td>{chips} {note}</td>")
    return (
        f'<tr class="{kind}"><td class="{kind}"><a href="#{_e(anchor)}">{_inline(title)}</a></td>'
        f"<td>{len(entries)}</td>{''.join(cells)}</tr>"
    )


def _grouped(entries: list[Entry]) -> list[tuple[str, list[tuple[str, list[Entry]]]]]:
    """Entries by capability, then requirement, in spec order."""
    grouped: dict[str, dict[str, list[Entry]]] = {}
    for entry in entries:
        requirements = grouped.setdefault(entry.capability, {})
        requirements.setdefault(entry.requirement.title, []).append(entry)
    return [(cap, list(reqs.items())) for cap, reqs in grouped.items()]


def _capabilities(
    columns: Sequence[Column], keys: Sequence[dict[str, ScenarioResult]], entries: list[Entry]
) -> Iterable[str]:
    heads = "".join(f"<th>{_e(c.label)}</th>" for c in columns)
    for capability, requirements in _grouped(entries):
        cap_anchor = _e(_anchor(capability))
        yield f'<section class="capability"><h2 id="{cap_anchor}">{_e(capability)}</h2>'
        for title, members in requirements:
            requirement = members[0].requirement
            anchor = _anchor(capability, requirement.slug)
            yield f'<article class="requirement"><h3 id="{_e(anchor)}">{_inline(title)}</h3>'
            description = " ".join(line.strip() for line in requirement.description)
            if description:
                yield f'<p class="normative">{_inline(description)}</p>'
            yield f'<table class="matrix"><tr><th>Scenario</th>{heads}</tr>'
            for entry in members:
                cells = "".join(_verdict_cell(by_key.get(entry.key)) for by_key in keys)
                yield f"<tr>{_scenario_cell(entry)}{cells}</tr>"
            yield "</table></article>"
        yield "</section>"


def _scenario_cell(entry: Entry) -> str:
    steps = "".join(_step(step) for step in entry.scenario.steps)
    return (
        f'<td class="scenario"><div class="name">{_inline(entry.name)}</div>'
        f'<ol class="steps">{steps}</ol><div class="id">@id:{_e(entry.id)}</div></td>'
    )


def _step(step: Step) -> str:
    extra = ""
    if isinstance(step.argument, DocString):
        extra = f"<pre>{_e(step.argument.content)}</pre>"
    elif isinstance(step.argument, DataTable):
        rows = "\n".join(" | ".join(row) for row in step.argument.rows)
        extra = f"<pre>{_e(rows)}</pre>"
    return f'<li><span class="kw">{_e(step.keyword)}</span> {_inline(step.text)}{extra}</li>'


def _verdict_cell(result: ScenarioResult | None) -> str:
    if result is None:
        return '<td class="verdict not-run"><span class="badge">not run</span></td>'
    reason = f'<div class="reason">{_inline(result.reason)}</div>' if result.reason else ""
    label = _e(result.verdict.prose)
    raw = ""
    if result.raw is not None:
        observed = f": {_inline(result.observed)}" if result.observed else ""
        raw = f'<div class="raw {result.raw}">raw: {_e(result.raw.prose)}{observed}</div>'
    badge = f'<span class="badge">{label}</span>'
    return f'<td class="verdict {result.verdict}">{badge}{reason}{raw}</td>'


def _unknown(columns: Sequence[Column], known: set[str]) -> str:
    rows = [
        f"<tr><td>{_e(c.label)}</td><td><code>{_e(r.key)}</code></td>{_verdict_cell(r)}</tr>"
        for c in columns
        for r in c.results.scenarios
        if r.key not in known
    ]
    if not rows:
        return ""
    return (
        '<h2 id="unknown">Results for scenarios these specs do not have</h2>'
        "<table><tr><th>Implementation</th><th>Scenario</th><th>Verdict</th></tr>"
        + "".join(rows)
        + "</table>"
    )
