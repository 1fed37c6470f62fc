"""Render the HTML conformance report: one page, inline CSS, every text escaped."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources

from skill_conformance.catalogue import Catalogue, ClauseEntry, Entry
from skill_conformance.gherkin.model import DataTable, DocString, Step
from skill_conformance.verdicts.results import Results, ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Column", "clause_anchor", "render_report", "scenario_anchor", "shown"]

_NOT_PASSING = frozenset(Verdict) - {Verdict.PASSED, Verdict.NOT_APPLICABLE}
"""The verdicts the failing-only filter keeps: every one that is not a pass or a scenario that
does not apply (known failures too: a reviewer filtering for failures wants them)."""


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


def scenario_anchor(key: str) -> str:
    """The fragment of a scenario's row: its key, ``{capability}/{id}``.

    The failure block, results and expectations files spell it so; it stays the same from run to
    run.
    """
    return key


def shown(results: Sequence[ScenarioResult | None]) -> bool:
    """Whether the failing-only view shows a scenario with these results, one per column."""
    return any(result is not None and result.verdict in _NOT_PASSING for result in results)


def render_report(
    columns: Sequence[Column],
    catalogue: Catalogue,
    *,
    spec_digest: str,
    title: str = "Skill system conformance report",
    failing_only: bool = False,
) -> str:
    """The whole report: runs, legend, overview, then requirement by requirement.

    Args:
        columns: One column per results file.
        catalogue: The specs the scenario text is read from.
        spec_digest: The digest of those specs.
        title: The page's title.
        failing_only: Open the page with only the scenarios that did not pass shown (a reader
            can still show them all: the filter is a checkbox, no script).

    """
    entries = catalogue.entries()
    clauses = _Clauses(catalogue.clauses())
    keys = [column.by_key() for column in columns]
    known = {entry.key for entry in entries}
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead">Generated {_e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))} '
        f"from {len(columns)} results file{'s' if len(columns) != 1 else ''}; scenario text from "
        f"the specs with digest <code>{_e(spec_digest[:23])}</code>.</p>",
        _targets(),
        _filter(failing_only),
        _attention(columns, keys, entries),
        _runs(columns, spec_digest),
        _legend(),
        _overview(columns, keys, entries, clauses),
        *_capabilities(columns, keys, entries, clauses),
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
    """One row per results file (on a narrow screen, one card each)."""
    heads = ("Implementation", "--impl", "Suite version", "Spec digest", "Run at", "Exit status")
    lines = [
        '<h2 id="runs">Runs</h2>',
        '<table class="runs">',
        '<tr class="head">' + "".join(f"<th>{_e(h)}</th>" for h in (*heads, "Verdicts")) + "</tr>",
    ]
    for column in columns:
        results = column.results
        cells = (
            f"<b>{_e(column.label)}</b>",
            f"<code>{_e(results.header.impl)}</code>",
            _e(results.header.suite_version),
            _digest(results.header.spec_digest, spec_digest),
            _e(results.created or "?"),
            _exit(results.exit_status, results.interrupted),
            _chips(results.counts(), long=True),
        )
        tds = "".join(
            _td(head, cell) for head, cell in zip((*heads, "Verdicts"), cells, strict=True)
        )
        lines.append(f"<tr>{tds}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _td(label: str, content: str, classes: str = "") -> str:
    """A cell of a column, labelled: where the columns stack (a phone), the label heads it."""
    kind = f' class="{classes}"' if classes else ""
    return f'<td{kind} data-label="{_e(label)}">{content}</td>'


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
    """A count per verdict, each a link that shows only the scenarios with that verdict."""
    chips = [
        f'<a class="chip {v}" href="#{_only(v)}" title="show only the {_e(v.prose)} scenarios">'
        f"{counts[v]}{' ' + _e(v.prose) if long else ''}</a>"
        for v in Verdict
        if counts[v]
    ]
    return "".join(chips) or '<span class="muted">no scenario</span>'


def _only(verdict: Verdict) -> str:
    """The fragment that shows only the scenarios with ``verdict`` (CSS ``:target``)."""
    return f"only-{verdict.value}"


def _targets() -> str:
    """The targets of the count links: the page shows only one verdict while one is targeted."""
    spans = "".join(f'<span id="{_only(v)}" class="target"></span>' for v in Verdict)
    return f'<div class="targets">{spans}</div>'


def _attention(
    columns: Sequence[Column], keys: Sequence[dict[str, ScenarioResult]], entries: list[Entry]
) -> str:
    """The scenarios that did not pass, first on the page, each a link to its row."""
    items = []
    for entry in entries:
        results = [by_key.get(entry.key) for by_key in keys]
        if not shown(results):
            continue
        badges = "".join(
            f'<span class="{r.verdict}"><span class="badge" title="{_e(c.label)}">'
            f"{_e(r.verdict.prose)}</span></span>"
            for c, r in zip(columns, results, strict=True)
            if r is not None and r.verdict in _NOT_PASSING
        )
        items.append(
            f'<li>{badges} <a href="#{_e(scenario_anchor(entry.key))}">'
            f"{_e(entry.capability)} &gt; {_inline(entry.name)}</a></li>"
        )
    if not items:
        return '<p class="attention none">Every scenario that ran passed or did not apply.</p>'
    return (
        f'<section class="attention"><h2 id="attention">Did not pass ({len(items)})</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )


def _legend() -> str:
    items = "".join(
        f'<li class="{v}"><span class="badge">{_e(v.prose)}</span>{_e(v.meaning)}</li>'
        for v in Verdict
    )
    return f'<section class="legend"><h2 id="legend">Verdicts</h2><ul>{items}</ul></section>'


def _filter(failing_only: bool) -> str:
    checked = " checked" if failing_only else ""
    return (
        '<p class="filter"><label><input type="checkbox" id="failing-only"'
        f"{checked}> Show only the scenarios that did not pass (failed, errored, expected "
        "failure, unexpected pass, cannot drive) in at least one column</label>"
        ' <a class="show-all" href="#all">show every verdict</a></p>'
    )


class _Clauses:
    """The clauses of the specs, by capability and requirement, with what checks them."""

    def __init__(self, clauses: list[ClauseEntry]) -> None:
        self.by_requirement: dict[tuple[str, str], list[ClauseEntry]] = {}
        for clause in clauses:
            key = (clause.capability, clause.requirement.slug)
            self.by_requirement.setdefault(key, []).append(clause)

    def of(self, capability: str, slug: str | None = None) -> list[ClauseEntry]:
        """The clauses of one requirement, or of a whole capability."""
        return [
            clause
            for (cap, req), found in self.by_requirement.items()
            if cap == capability and slug in (None, req)
            for clause in found
        ]


def _clause_count(clauses: list[ClauseEntry]) -> str:
    if not clauses:
        return '<span class="muted">none</span>'
    checked = sum(1 for c in clauses if c.checked)
    untestable = sum(1 for c in clauses if not c.checked and c.clause.untestable)
    unchecked = len(clauses) - checked - untestable
    note = f", {untestable} untestable" if untestable else ""
    if unchecked:
        note += f', <span class="warning">{unchecked} unchecked</span>'
    return f"{checked} of {len(clauses)} checked{note}"


def _overview(
    columns: Sequence[Column],
    keys: Sequence[dict[str, ScenarioResult]],
    entries: list[Entry],
    clauses: _Clauses,
) -> str:
    heads = "".join(f"<th>{_e(c.label)}</th>" for c in columns)
    lines = [
        '<h2 id="overview">Overview</h2>',
        '<table class="overview">',
        '<tr class="head"><th>Capability / requirement</th><th>Clauses</th><th>Scenarios</th>'
        f"{heads}</tr>",
    ]
    for capability, requirements in _grouped(entries):
        group = [e for _, es in requirements for e in es]
        counted = _clause_count(clauses.of(capability))
        anchor = _anchor(capability)
        lines.append(_overview_row("cap", capability, anchor, group, columns, keys, counted))
        for title, members in requirements:
            slug = members[0].requirement.slug
            counted = _clause_count(clauses.of(capability, slug))
            anchor = _anchor(capability, slug)
            lines.append(_overview_row("req", title, anchor, members, columns, keys, counted))
    lines.append("</table>")
    return "\n".join(lines)


def _overview_row(
    kind: str,
    title: str,
    anchor: str,
    entries: list[Entry],
    columns: Sequence[Column],
    keys: Sequence[dict[str, ScenarioResult]],
    clauses: str,
) -> str:
    cells = []
    for column, by_key in zip(columns, keys, strict=True):
        counts = Counter(by_key[e.key].verdict for e in entries if e.key in by_key)
        missing = sum(1 for e in entries if e.key not in by_key)
        note = f'<span class="muted">{missing} not run</span>' if missing else ""
        chips = _chips(counts) if counts or not missing else ""
        cells.append(_td(column.label, f"{chips} {note}"))
    return (
        f'<tr class="{kind}"><td class="{kind}"><a href="#{_e(anchor)}">{_inline(title)}</a></td>'
        f'<td data-label="Clauses">{clauses}</td>'
        f'<td data-label="Scenarios">{len(entries)}</td>{"".join(cells)}</tr>'
    )


def _grouped(entries: list[Entry]) -> list[tuple[str, list[tuple[str, list[Entry]]]]]:
    """Entries by capability, then requirement, in spec order."""
    grouped: dict[str, dict[str, list[Entry]]] = {}
    for entry in entries:
        requirements = grouped.setdefault(entry.capability, {})
        requirements.setdefault(entry.requirement.title, []).append(entry)
    return [(cap, list(reqs.items())) for cap, reqs in grouped.items()]


def _capabilities(
    columns: Sequence[Column],
    keys: Sequence[dict[str, ScenarioResult]],
    entries: list[Entry],
    clauses: _Clauses,
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
            table = _clause_table(clauses.of(capability, requirement.slug))
            if description and not table:  # else the clauses are its text, each sentence once
                yield f'<p class="normative">{_inline(description)}</p>'
            yield table
            yield f'<table class="matrix"><tr class="head"><th>Scenario</th>{heads}</tr>'
            for entry in members:
                results = [by_key.get(entry.key) for by_key in keys]
                cells = "".join(
                    _verdict_cell(result, column.label)
                    for column, result in zip(columns, results, strict=True)
                )
                verdicts = sorted({f"has-{r.verdict}" for r in results if r is not None})
                kind = " ".join(["scenario", *(["failing"] if shown(results) else []), *verdicts])
                anchor = _e(scenario_anchor(entry.key))
                failing = {
                    r.step.partition(" ")[2]: column.label
                    for column, r in zip(columns, results, strict=True)
                    if r is not None and r.step
                }
                scenario = _scenario_cell(entry, failing)
                yield f'<tr id="{anchor}" class="{kind}">{scenario}{cells}</tr>'

            yield "</table></article>"
        yield "</section>"


def clause_anchor(clause: str) -> str:
    """The fragment of a clause's row in its requirement's table of clauses."""
    return f"clause:{clause}"


def _clause_table(clauses: list[ClauseEntry]) -> str:
    """Each clause of a requirement beside the scenarios that check it, or why none does."""
    if not clauses:
        return ""
    rows = []
    for entry in clauses:
        clause = entry.clause
        if entry.checked:
            checked = ", ".join(
                f'<a href="#{_e(scenario_anchor(e.key))}">{_inline(e.name)}</a>'
                for e in entry.checked_by
            )
        elif clause.untestable:
            checked = f'<span class="muted">untestable: {_inline(clause.untestable)}</span>'
        else:
            checked = '<span class="warning">no scenario checks it</span>'
        rows.append(
            f'<tr id="{_e(clause_anchor(clause.id))}">'
            + _td("Clause", f"<code>[{_e(clause.id)}]</code> {_inline(clause.text)}", "clause")
            + _td("Checked by", checked)
            + "</tr>"
        )
    return (
        '<table class="clauses"><tr class="head"><th>Clause</th><th>Checked by</th></tr>'
        + "".join(rows)
        + "</table>"
    )


def _scenario_cell(entry: Entry, failing: dict[str, str]) -> str:
    """The scenario's name, clauses and steps; ``failing``: step text to the column it failed in."""
    steps = "".join(_step(step, failing.get(step.text)) for step in entry.scenario.steps)
    checks = ", ".join(
        f'<a href="#{_e(clause_anchor(clause))}">{_e(clause)}</a>'
        for clause in entry.scenario.clauses
    )
    checked = f'<div class="checks">checks: {checks}</div>' if checks else ""
    return (
        f'<td class="scenario"><div class="name">{_inline(entry.name)}</div>{checked}'
        f'<ol class="steps">{steps}</ol><div class="id">'
        f'<a href="#{_e(scenario_anchor(entry.key))}">@id:{_e(entry.id)}</a></div></td>'
    )


def _step(step: Step, failed_in: str | None = None) -> str:
    extra = ""
    if isinstance(step.argument, DocString):
        extra = f"<pre>{_e(step.argument.content)}</pre>"
    elif isinstance(step.argument, DataTable):
        rows = "\n".join(" | ".join(row) for row in step.argument.rows)
        extra = f"<pre>{_e(rows)}</pre>"
    mark = ""
    if failed_in is not None:
        mark = f' class="failed-step" title="failed here ({_e(failed_in)})"'
    text = f'<span class="kw">{_e(step.keyword)}</span> {_inline(step.text)}{extra}'
    return f"<li{mark}>{text}</li>"


def _verdict_cell(result: ScenarioResult | None, label: str) -> str:
    if result is None:
        return _td(label, '<span class="badge">not run</span>', "verdict not-run")
    reason = f'<div class="reason">{_inline(result.reason)}</div>' if result.reason else ""
    verdict = _e(result.verdict.prose)
    raw = ""
    if result.raw is not None:
        observed = f": {_inline(result.observed)}" if result.observed else ""
        raw = f'<div class="raw {result.raw}">raw: {_e(result.raw.prose)}{observed}</div>'
    badge = f'<span class="badge">{verdict}</span>'
    return _td(label, f"{badge}{reason}{raw}", f"verdict {result.verdict}")


def _unknown(columns: Sequence[Column], known: set[str]) -> str:
    rows = [
        f"<tr><td>{_e(c.label)}</td><td><code>{_e(r.key)}</code></td>"
        f"{_verdict_cell(r, c.label)}</tr>"
        for c in columns
        for r in c.results.scenarios
        if r.key not in known
    ]
    if not rows:
        return ""
    return (
        '<h2 id="unknown">Results for scenarios these specs do not have</h2>'
        '<table class="unknown"><tr class="head"><th>Implementation</th><th>Scenario</th>'
        "<th>Verdict</th></tr>" + "".join(rows) + "</table>"
    )
