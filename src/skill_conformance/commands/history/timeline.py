"""The history's findings: scenarios across commits, where each changed, what each commit broke.

Scenarios are compared by what they really did (:func:`~skill_conformance.verdicts.comparison.
outcome`), each commit with the last one before it that has verdicts: the same rule as
``compare``, so the history says what the gate would have said on each change.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from skill_conformance.commands.history.commits import Commit
from skill_conformance.commands.history.record import Outcome
from skill_conformance.escape import markdown
from skill_conformance.verdicts.comparison import Comparison, compare, observation, outcome
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Row", "Step", "Timeline", "Transition", "render_findings", "render_timeline"]

_FAILING = frozenset({Verdict.FAILED, Verdict.ERRORED})


@dataclass(frozen=True)
class Transition:
    """A scenario's outcome changing from one judged commit to the next."""

    commit: Commit
    before: Verdict
    after: Verdict
    observation: str


@dataclass(frozen=True)
class Row:
    """One scenario across the commits."""

    capability: str
    requirement: str
    name: str
    key: str
    cells: tuple[ScenarioResult | None, ...]
    """Its result at each commit (``None``: the commit has no verdicts, or not this scenario)."""

    def first(self, commits: Sequence[Commit], wanted: frozenset[Verdict]) -> Commit | None:
        """The first commit where the scenario's outcome is one of ``wanted``."""
        for commit, cell in zip(commits, self.cells, strict=True):
            if cell is not None and outcome(cell) in wanted:
                return commit
        return None

    def transitions(self, commits: Sequence[Commit]) -> list[Transition]:
        """Every change of outcome, each at the commit where it shows first."""
        found: list[Transition] = []
        before: Verdict | None = None
        for commit, cell in zip(commits, self.cells, strict=True):
            if cell is None:
                continue
            after = outcome(cell)
            if before is not None and after is not before:
                found.append(Transition(commit, before, after, observation(cell)))
            before = after
        return found


@dataclass(frozen=True)
class Step:
    """A judged commit compared with the judged commit before it: what the gate would say."""

    base: Outcome
    head: Outcome
    comparison: Comparison


class Timeline:
    """The outcomes of a history's commits, oldest first, scenario by scenario."""

    def __init__(self, outcomes: Sequence[Outcome]) -> None:
        self.outcomes = list(outcomes)
        self.commits = [o.commit for o in self.outcomes]
        results = [o.results if o.judged else None for o in self.outcomes]
        seen: dict[str, ScenarioResult] = {}
        for found in reversed(results):  # the newest names and groups a scenario
            for result in found.scenarios if found is not None else ():
                seen.setdefault(result.key, result)
        by_commit = [
            {r.key: r for r in found.scenarios} if found is not None else {} for found in results
        ]
        self.rows = [
            Row(
                r.capability,
                r.requirement_title,
                r.name,
                key,
                tuple(cells.get(key) for cells in by_commit),
            )
            for key, r in sorted(
                seen.items(), key=lambda i: (i[1].capability, i[1].requirement_title, i[1].name)
            )
        ]

    def steps(self) -> list[Step]:
        """Each judged commit against the judged commit before it."""
        judged = [(o, o.results) for o in self.outcomes if o.judged and o.results is not None]
        return [
            Step(base, head, compare(before, after))
            for (base, before), (head, after) in itertools.pairwise(judged)
        ]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _commit_link(commit: Commit, url: str | None, text: str) -> str:
    if not url:
        return _e(text)
    return f'<a href="{_e(url.format(sha=commit.sha))}">{_e(text)}</a>'


def _cell(result: ScenarioResult | None, before: ScenarioResult | None, undriven: bool) -> str:
    """One square; its title gives the outcome and observation where they differ from before."""
    if undriven:
        return '<td class="undriven"></td>'
    if result is None:
        return '<td class="absent" title="no such scenario at this commit"></td>'
    verdict, seen = outcome(result), observation(result)
    if before is not None and (outcome(before), observation(before)) == (verdict, seen):
        return f'<td class="{verdict.value}"></td>'
    title = verdict.prose + (f": {seen[:300]}" if seen else "")
    return f'<td class="{verdict.value}" title="{_e(title)}"></td>'


def _where(commit: Commit | None, url: str | None) -> str:
    return _commit_link(commit, url, commit.short) if commit is not None else "—"


def _changes(row: Row, commits: Sequence[Commit], url: str | None) -> str:
    marks = {Verdict.PASSED: "✓"}
    parts = [
        f'<span title="{_e(t.before.prose)} → {_e(t.after.prose)}: {_e(t.observation[:300])}">'
        f"{marks.get(t.after, '✗' if t.after in _FAILING else '·')}&nbsp;"
        f"{_commit_link(t.commit, url, t.commit.short)}</span>"
        for t in row.transitions(commits)
    ]
    return " ".join(parts) or '<span class="muted">none</span>'


_CSS = """
table.timeline { border-collapse: collapse; font-size: 12px; }
table.timeline td, table.timeline th { border: 1px solid var(--line); padding: 2px 4px; }
table.timeline td.passed, table.timeline td.failed, table.timeline td.errored,
table.timeline td.not-applicable, table.timeline td.undriven, table.timeline td.absent,
table.timeline td.cannot-drive { width: 14px; min-width: 14px; padding: 0; }
table.timeline td.passed { background: var(--passed); }
table.timeline td.failed { background: var(--failed); }
table.timeline td.errored { background: var(--errored); }
table.timeline td.not-applicable { background: var(--not-applicable-bg); }
table.timeline td.undriven, table.timeline td.cannot-drive { background: repeating-linear-gradient(
  45deg, var(--cannot-drive-bg), var(--cannot-drive-bg) 3px, #fff 3px, #fff 6px); }
table.timeline th.commit { writing-mode: vertical-rl; transform: rotate(180deg);
  font-weight: normal; white-space: nowrap; vertical-align: bottom; }
table.timeline tr.capability th { background: #f6f8fa; text-align: left; font-size: 14px; }
table.timeline tr.requirement th { text-align: left; font-weight: normal; font-style: italic; }
table.timeline td.name { white-space: nowrap; max-width: 36em; overflow: hidden;
  text-overflow: ellipsis; }
"""


def render_timeline(
    timeline: Timeline, *, commit_url: str | None = None, title: str = "Skill system history"
) -> str:
    """The timeline as one static HTML page: scenarios by capability and requirement x commits.

    ``commit_url`` is a template with ``{sha}`` (``https://github.com/o/r/commit/{sha}``).
    """
    commits = timeline.commits
    undriven = [not o.judged for o in timeline.outcomes]
    heads = "".join(
        f'<th class="commit" title="{_e(c.date)} {_e(c.subject)}'
        f'{_e(": " + o.reason) if o.reason else ""}">'
        f"{_commit_link(c, commit_url, c.label or c.short)}"
        f"{' (not judged)' if not o.judged else ''}</th>"
        for c, o in zip(commits, timeline.outcomes, strict=True)
    )
    lines = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead">{len(commits)} commits, oldest first; {len(timeline.rows)} scenarios. '
        "Each cell is what the scenario really did at that commit (expectations set aside); "
        "hover for the observation.</p>",
        _not_judged(timeline, commit_url),
        '<table class="timeline">',
        "<tr><th>scenario</th><th>first failing</th><th>first passing</th><th>changes</th>"
        f"{heads}</tr>",
    ]
    capability = requirement = None
    width = 4 + len(commits)
    for row in timeline.rows:
        if row.capability != capability:
            capability, requirement = row.capability, None
            lines.append(f'<tr class="capability"><th colspan="{width}">{_e(capability)}</th></tr>')
        if row.requirement != requirement:
            requirement = row.requirement
            lines.append(
                f'<tr class="requirement"><th colspan="{width}">{_e(requirement)}</th></tr>'
            )
        befores = [None, *row.cells[:-1]]
        cells = "".join(
            _cell(c, b, u) for c, b, u in zip(row.cells, befores, undriven, strict=True)
        )
        lines.append(
            f'<tr><td class="name" title="{_e(row.key)}">{_e(row.name)}</td>'
            f"<td>{_where(row.first(commits, _FAILING), commit_url)}</td>"
            f"<td>{_where(row.first(commits, frozenset({Verdict.PASSED})), commit_url)}</td>"
            f"<td>{_changes(row, commits, commit_url)}</td>{cells}</tr>"
        )
    lines.append("</table>")
    css = (
        resources.files("skill_conformance.commands.report")
        .joinpath("report.css")
        .read_text("utf-8")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>\n{css}{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(line for line in lines if line)
        + "\n</body>\n</html>\n"
    )


def _not_judged(timeline: Timeline, url: str | None) -> str:
    items = [
        f"<li>{_commit_link(o.commit, url, o.commit.short)} {_e(o.commit.subject)}: "
        f"{_e(o.reason or 'no results')}</li>"
        for o in timeline.outcomes
        if not o.judged
    ]
    if not items:
        return ""
    return "<p>Commits without verdicts (hatched):</p><ul>" + "".join(items) + "</ul>"


def render_findings(timeline: Timeline) -> str:
    """The history in Markdown: each commit the gate would have stopped, and every change."""
    lines = ["# Findings", ""]
    for found in timeline.outcomes:
        if not found.judged:
            subject, reason = markdown.inline(found.commit.subject), markdown.inline(found.reason)
            lines.append(f"- `{found.commit.short}` {subject}: {reason}")
    for step in timeline.steps():
        comparison = step.comparison
        if not (comparison.regressions or comparison.fixes or comparison.changed):
            continue
        head = step.head.commit
        verdict = "the gate fails" if comparison.regressions else "the gate passes"
        lines += [
            "",
            f"## `{head.short}` {markdown.inline(head.subject)} ({markdown.inline(head.date)})",
            "",
            f"Against `{step.base.commit.short}`: {verdict}; {len(comparison.regressions)} "
            f"regressed, {len(comparison.fixes)} fixed, {len(comparison.changed)} changed verdict.",
            "",
        ]
        for name, changes in (
            ("regressed", comparison.regressions),
            ("fixed", comparison.fixes),
            ("changed", comparison.changed),
        ):
            for change in changes:
                scenario = change.scenario
                seen = observation(change.head) if change.head is not None else ""
                named = " &gt; ".join(map(markdown.inline, (scenario.capability, scenario.name)))
                shown = f": {markdown.cell(seen)}" if seen else ""
                lines.append(f"- {name}: {named} ({change.before} → {change.after}){shown}")
    return "\n".join(lines) + "\n"
