"""The traceability check (``skill-conformance trace``).

Four questions, each answered from the files themselves:

1. Has every requirement of the specs at least one scenario?
2. Has every normative clause (each ``[id]`` the specs mark, see
   :mod:`skill_conformance.gherkin.clauses`) a scenario tagged ``@clause:<id>`` that checks it, or a
   stated reason why none can? And is every sentence holding SHALL or MUST inside a clause? Is a
   clause checked over its domain (by a property scenario, ``@property:<name>``) or at points only;
   and has every clause whose spec states a domain a property, or a reason it has none?
3. Has every step of every scenario in ``features/`` a step definition? pytest-bdd answers this
   itself: ``pytest --generate-missing --feature features`` collects the suite and lists each step
   no definition matches and each scenario no test binds (exit status 100).
4. Given another OpenSpec tree (``--against``), which of its scenarios does this suite cover, by
   title, and which not? Informational: it does not fail the check; a spec of that tree that
   cannot be read or parsed is an error (its coverage would be incomplete).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_conformance.bundled import features_dir, specs_dir
from skill_conformance.catalogue import Catalogue, ClauseEntry, Entry, load_catalogue, specs_of
from skill_conformance.commands._status import FAILED, FOUND, OK
from skill_conformance.commands._status import error as _error
from skill_conformance.escape.terminal import printable
from skill_conformance.gherkin import UsageError
from skill_conformance.gherkin.clauses import PROPERTY_TAG
from skill_conformance.gherkin.model import Delta

__all__ = [
    "ClauseCheck",
    "Coverage",
    "StepCheck",
    "add_trace",
    "check_clauses",
    "check_steps",
    "coverage_against",
    "coverage_lines",
    "normalise_title",
    "own_lines",
    "requirements_without_scenarios",
]

_MAX_LISTED = 10
_MISSING = 100
"""The exit status of ``pytest --generate-missing`` when something is undefined or unbound."""
_UNDEFINED = re.compile(r"^Step .* is not defined in the scenario .*$")
_UNBOUND = re.compile(r"^Scenario .* is not bound to any test .*$")


def requirements_without_scenarios(catalogue: Catalogue) -> list[str]:
    """``capability: requirement`` for each requirement (not removed) that has no scenario."""
    return [
        f"{capability.name}: {requirement.title}"
        for capability in catalogue.capabilities
        for requirement in capability.requirements
        if requirement.delta is not Delta.REMOVED and not requirement.scenarios
    ]


@dataclass(frozen=True)
class ClauseCheck:
    """Which clauses are checked, and which normative text is in no clause."""

    clauses: tuple[ClauseEntry, ...]
    unmarked: tuple[str, ...]
    """``path:line: text`` of each normative sentence part that opens no clause."""

    @property
    def unchecked(self) -> tuple[ClauseEntry, ...]:
        """Clauses no scenario checks and that give no reason why none can."""
        return tuple(c for c in self.clauses if not c.checked and not c.clause.untestable)

    @property
    def points_without_reason(self) -> tuple[ClauseEntry, ...]:
        """Clauses stating a domain that only point scenarios check, with no reason given."""
        return tuple(
            c
            for c in self.clauses
            if c.clause.domain is not None and not over_domain(c) and not c.clause.points_only
        )

    def lines(self) -> list[str]:
        """Per clause, the scenarios that check it (or why none does), then what is wrong."""
        untestable = [c for c in self.clauses if not c.checked and c.clause.untestable]
        checked = len(self.clauses) - len(untestable) - len(self.unchecked)
        domains = [c for c in self.clauses if c.clause.domain is not None]
        properties = {
            tag
            for c in self.clauses
            for e in c.checked_by
            for tag in e.scenario.tags
            if tag.startswith(PROPERTY_TAG)
        }
        out = [
            f"clauses: {len(self.clauses)}: {checked} checked, {len(untestable)} untestable "
            f"(with a reason), {len(self.unchecked)} unchecked",
            f"domains: {len(domains)} clauses state one; {sum(map(over_domain, self.clauses))} "
            f"checked over it by {len(properties)} properties, "
            f"{sum(1 for c in domains if c.clause.points_only)} at points (with a reason), "
            f"{len(self.points_without_reason)} at points without a reason",
        ]
        capability = ""
        for entry in self.clauses:
            if entry.capability != capability:
                capability = entry.capability
                out.append(f"  {capability}:")
            clause = entry.clause
            if entry.checked:
                count = len(entry.checked_by)
                how = _how(entry)
                out.append(f"    [{clause.id}] {how}: {count} scenario{'s' if count > 1 else ''}")
                out += [f"        {e.name}" for e in entry.checked_by]
            elif clause.untestable:
                out.append(f"    [{clause.id}] untestable: {clause.untestable}")
            else:
                out.append(f"    [{clause.id}] UNCHECKED: {_excerpt(clause.text)}")
        if self.points_without_reason:
            out.append(
                "clauses stating a domain that only point scenarios check (give the domain a "
                "property, `by <name>`, or a reason, `<!-- points-only: <id>: <reason> -->`): "
                f"{len(self.points_without_reason)}"
            )
            out += [f"  [{c.clause.id}] {c.capability}" for c in self.points_without_reason]
        if self.unmarked:
            out.append(f"normative text in no clause: {len(self.unmarked)}")
            out += [f"  {line}" for line in self.unmarked]
        return out


def over_domain(entry: ClauseEntry) -> bool:
    """Whether a property scenario (``@property:<name>``) checks the clause over its domain."""
    return any(tag.startswith(PROPERTY_TAG) for e in entry.checked_by for tag in e.scenario.tags)


def _how(entry: ClauseEntry) -> str:
    """``domain`` when a property checks the clause; ``points`` otherwise, with why if given."""
    if over_domain(entry):
        return "domain"
    if entry.clause.points_only:
        return f"points (its domain: {entry.clause.points_only})"
    return "points"


def check_clauses(catalogue: Catalogue) -> ClauseCheck:
    """The clauses of ``catalogue`` with the scenarios checking them, and unmarked SHALL/MUST."""
    unmarked = tuple(
        f"{capability.source}:{line}: {_excerpt(text)}"
        for capability in catalogue.capabilities
        for requirement in capability.requirements
        if requirement.delta is not Delta.REMOVED
        for line, text in requirement.unmarked
    )
    return ClauseCheck(tuple(catalogue.clauses()), unmarked)


def _excerpt(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class StepCheck:
    """What ``pytest --generate-missing`` found."""

    undefined: tuple[str, ...] = ()
    unbound: tuple[str, ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        """Every step defined, every scenario bound, and the check itself ran."""
        return not (self.undefined or self.unbound or self.error)


def check_steps(root: Path, tests: str, features: str, timeout: float = 300.0) -> StepCheck:
    """Ask pytest-bdd, in ``root``, which steps of ``features`` the tests in ``tests`` lack."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str((root / tests).resolve()),  # a path, never an option, whatever its first character
        "--generate-missing",
        f"--feature={(root / features).resolve()}",
        "-p",
        "no:cacheprovider",
        "--color=no",
        # The step definitions are the suite's: loaded for a run naming an implementation.
        "--skill-conformance-impl=reference",
        "--skill-conformance-no-zygote",
    ]
    done = subprocess.run(
        command, cwd=root, capture_output=True, text=True, timeout=timeout, check=False
    )
    lines = [line.strip() for line in done.stdout.splitlines()]
    undefined = tuple(line for line in lines if _UNDEFINED.match(line))
    unbound = tuple(line for line in lines if _UNBOUND.match(line))
    if done.returncode not in (0, _MISSING) or (done.returncode == _MISSING and not lines):
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        error = f"`{' '.join(command[2:])}` exited {done.returncode}: " + " / ".join(tail)
        return StepCheck(undefined, unbound, error)
    return StepCheck(undefined, unbound)


def normalise_title(title: str) -> str:
    """A scenario title as compared across trees: case, spacing and backticks ignored."""
    return " ".join(title.replace("`", "").casefold().split())


@dataclass(frozen=True)
class Coverage:
    """Which scenarios of another tree this suite covers by title."""

    covered: tuple[Entry, ...]
    missing: tuple[Entry, ...]
    ours_only: tuple[Entry, ...]


def coverage_against(ours: Catalogue, theirs: Catalogue) -> Coverage:
    """Match ``theirs``' scenarios to ``ours`` by normalised title."""
    our_titles = {normalise_title(e.scenario.title) for e in ours.entries()}
    their_titles = {normalise_title(e.scenario.title) for e in theirs.entries()}
    covered: list[Entry] = []
    missing: list[Entry] = []
    for entry in theirs.entries():
        known = normalise_title(entry.scenario.title) in our_titles
        (covered if known else missing).append(entry)
    ours_only = [e for e in ours.entries() if normalise_title(e.scenario.title) not in their_titles]
    return Coverage(tuple(covered), tuple(missing), tuple(ours_only))


def coverage_lines(coverage: Coverage, *, verbose: bool = False) -> list[str]:
    """Per capability of the other tree: how many scenarios are covered, and which are not.

    A capability with no covered scenario is one line; with ``verbose`` every title is listed.
    """
    total = len(coverage.covered) + len(coverage.missing)
    lines = [f"covered by title: {len(coverage.covered)} of {total} scenarios of the other tree"]
    capabilities: dict[str, tuple[list[Entry], list[Entry]]] = {}
    for entry in coverage.covered:
        capabilities.setdefault(entry.capability, ([], []))[0].append(entry)
    for entry in coverage.missing:
        capabilities.setdefault(entry.capability, ([], []))[1].append(entry)
    untouched = []
    for capability, (covered, missing) in sorted(capabilities.items()):
        count = len(covered) + len(missing)
        if not covered and not verbose:
            untouched.append(f"{capability} ({count})")
            continue
        lines.append(f"  {capability}: {len(covered)} of {count} covered")
        if verbose:
            lines += [f"    covered  {e.scenario.title}" for e in covered]
        lines += [f"    MISSING  {e.scenario.title}  [{e.requirement.title}]" for e in missing]
    if untouched:
        lines.append(f"  none covered in {len(untouched)} capabilities: " + ", ".join(untouched))
    if coverage.ours_only:
        lines.append(f"this suite's scenarios the other tree lacks: {len(coverage.ours_only)}")
        shown = coverage.ours_only if verbose else coverage.ours_only[:_MAX_LISTED]
        lines += [f"    {e.capability}: {e.scenario.title}" for e in shown]
        if len(shown) < len(coverage.ours_only):
            lines.append(f"    ... and {len(coverage.ours_only) - len(shown)} more (--verbose)")
    return lines


def own_lines(missing_scenarios: Sequence[str], steps: StepCheck | None) -> list[str]:
    """The lines of checks 1 and 2."""
    lines = []
    if missing_scenarios:
        lines.append(f"requirements without a scenario: {len(missing_scenarios)}")
        lines += [f"  {line}" for line in missing_scenarios]
    else:
        lines.append("every requirement has at least one scenario")
    if steps is None:
        lines.append("step definitions: not checked (--no-steps)")
    elif steps.ok:
        lines.append("every step of every scenario has a step definition")
    else:
        lines += [f"  {line}" for line in (*steps.unbound, *steps.undefined)]
        if steps.error:
            lines.append(f"  step check failed: {steps.error}")
        else:
            lines.append(f"undefined steps: {len(steps.undefined)}, unbound: {len(steps.unbound)}")
    return lines


def _trace(args: argparse.Namespace) -> int:
    """Run ``skill-conformance trace``: exit 1 when a requirement or a step is uncovered."""
    try:
        ours = load_catalogue(Path(args.specs))
        theirs = (
            load_catalogue(specs_of(Path(args.against)), lenient=True) if args.against else None
        )
    except UsageError as error:
        return _error(str(error))
    problems = [str(problem) for problem in ours.problems]
    missing = requirements_without_scenarios(ours)
    clauses = check_clauses(ours)
    steps = None if args.no_steps else check_steps(Path(args.root), args.steps, args.features)
    lines = [f"spec does not parse: {problem}" for problem in problems]
    lines += clauses.lines()
    lines += own_lines(missing, steps)
    if theirs is not None:
        lines.append(f"against {args.against}:")
        lines += coverage_lines(coverage_against(ours, theirs), verbose=args.verbose)
    print("\n".join(map(printable, lines)))
    if theirs is not None and theirs.unreadable:  # its coverage above is incomplete
        for problem in theirs.unreadable:
            _error(f"--against: {problem} (left out of the coverage above)")
        return FAILED
    unchecked = clauses.unchecked and not args.allow_unchecked
    failed = problems or missing or unchecked or clauses.unmarked or clauses.points_without_reason
    return FOUND if failed or (steps is not None and not steps.ok) else OK


def add_trace(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance trace`` to the command line."""
    trace = commands.add_parser(
        "trace",
        help="check that every clause and requirement has a scenario and every step a definition",
        description="List each normative clause of the specs with the scenarios that check it. "
        "Exit 0 when every clause has a scenario (or a stated reason why none can check it), "
        "every SHALL or MUST is inside a clause, every requirement has a scenario and every "
        "step of features/ a definition; 1 when not; 2 on errors. With --against, also list "
        "which scenarios of another OpenSpec tree this suite covers by title (informational).",
    )
    trace.add_argument("--specs", default=str(specs_dir()), metavar="DIR", help="our specs")
    trace.add_argument(
        "--features", default=str(features_dir()), metavar="DIR", help="our features"
    )
    trace.add_argument(
        "--steps",
        default=str(Path(__file__).resolve().parents[1] / "steps"),
        metavar="PATH",
        help="the tests binding the features (default: the suite's own)",
    )
    trace.add_argument("--root", default=".", metavar="DIR", help="where pytest runs (default: .)")
    trace.add_argument("--no-steps", action="store_true", help="skip the step definition check")
    trace.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="list clauses no scenario checks without failing on them",
    )
    trace.add_argument(
        "--against", metavar="DIR", help="another OpenSpec tree (its specs/ if it has one)"
    )
    trace.add_argument("--verbose", action="store_true", help="list covered scenarios too")
    trace.set_defaults(command=_trace)
