"""What changed between two runs of the suite: the pull request gate that needs no expectations.

Each scenario is compared by what it really did (:func:`outcome`): an expected failure counts as
the failure or error it was, an unexpected pass as a pass, so two runs compare alike with or
without an expectations file. A *regression* is a scenario that passed in BASE and fails or
errors in HEAD; a *fix* the reverse. Any other change of verdict, and a failure whose observation
changed, is listed too, as are scenarios added or removed. A version the adapter cannot drive at
all (:attr:`~skill_conformance.verdicts.verdict.Verdict.CANNOT_DRIVE`) is neither: it is reported
on its own, with the adapter's reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from skill_conformance.verdicts.results import Header, Results, ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Change", "Comparison", "compare", "observation", "outcome"]

_FAILING = frozenset({Verdict.FAILED, Verdict.ERRORED})


def outcome(result: ScenarioResult) -> Verdict:
    """What the scenario really did, expectations set aside."""
    if result.verdict is Verdict.EXPECTED_FAILURE:
        return result.raw or Verdict.FAILED
    if result.verdict is Verdict.UNEXPECTED_PASS:
        return Verdict.PASSED
    return result.verdict


_WORD = re.compile(r"[^\s'\"]+")
"""A run of characters a path can be made of, as an observation shows one."""
_PYTEST_TMP = re.compile(r"/pytest-of-[^/\s'\"]+/pytest-\d+(?:/[^/\s'\"]*)?")
"""pytest's temporary folder and the folder of one test in it."""


def _temporary_paths(word: re.Match[str]) -> str:
    """``word`` with each path into pytest's temporary folders, from its first ``/``, as <tmp>.

    One pass over the word: a regular expression matching the path from any ``/`` (``/[^ ]*?/
    pytest-of-...``) tries every ``/`` of a word up to its end, quadratic in a long path-like
    observation.
    """
    text = word[0]
    if "/pytest-of-" not in text:
        return text
    parts: list[str] = []
    position = 0
    while (start := text.find("/", position)) != -1:
        found = _PYTEST_TMP.search(text, start + 1)
        if found is None:
            break
        parts += [text[position:start], "<tmp>"]
        position = found.end()
    return "".join([*parts, text[position:]])


_VOLATILE = (
    # The length of a text holding a temporary path (pytest's folders are numbered per run and
    # per test; a shown text may cut the folder's name short, before its number).
    (re.compile(r"\(\d[\d,]* characters(?: in all)?\)"), "(… characters)"),
    (re.compile(r"\b0x[0-9a-f]{6,}\b"), "0x…"),
    (re.compile(r"\b\d+(?:\.\d+)? ([KMG]iB)\b"), r"… \1"),
    (re.compile(r"\b\d+\.\d+ s\b"), "… s"),
)


def observation(result: ScenarioResult) -> str:
    """The scenario's observation: its reason, or what an expected failure observed.

    The parts that differ from run to run of the same code (temporary paths, addresses, sizes and
    durations measured) are replaced, so that only a real change shows.
    """
    text = result.observed if result.verdict is Verdict.EXPECTED_FAILURE else result.reason
    if outcome(result) is Verdict.PASSED:
        return ""
    text = _WORD.sub(_temporary_paths, text)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


@dataclass(frozen=True)
class Change:
    """One scenario, as BASE and HEAD saw it (``None``: absent from that run)."""

    base: ScenarioResult | None
    head: ScenarioResult | None

    @property
    def scenario(self) -> ScenarioResult:
        """The scenario's identity, from HEAD where it is there."""
        found = self.head or self.base
        assert found is not None
        return found

    @property
    def before(self) -> Verdict | None:
        """BASE's outcome."""
        return outcome(self.base) if self.base is not None else None

    @property
    def after(self) -> Verdict | None:
        """HEAD's outcome."""
        return outcome(self.head) if self.head is not None else None

    def to_json(self) -> dict[str, object]:
        """The change as JSON: the scenario, and each side's outcome and observation."""
        scenario = self.scenario
        return {
            "key": scenario.key,
            "capability": scenario.capability,
            "requirement": scenario.requirement_title,
            "name": scenario.name,
            "base": _side(self.base),
            "head": _side(self.head),
        }


def _side(result: ScenarioResult | None) -> dict[str, str] | None:
    if result is None:
        return None
    return {"outcome": outcome(result).value, "observation": observation(result)}


@dataclass(frozen=True)
class Comparison:
    """Two runs of the suite, scenario by scenario."""

    base: Header
    head: Header
    regressions: list[Change] = field(default_factory=list)
    """Passed in BASE; failed or errored in HEAD."""
    fixes: list[Change] = field(default_factory=list)
    """Failed or errored in BASE; passed in HEAD."""
    changed: list[Change] = field(default_factory=list)
    """Any other change of outcome (failed to errored, to or from not applicable...)."""
    observations: list[Change] = field(default_factory=list)
    """The same failure or error in both, observing something else."""
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    unchanged: int = 0
    base_cannot_drive: str = ""
    """Why the adapter could not drive BASE at all (``""``: it could)."""
    head_cannot_drive: str = ""
    """Why the adapter could not drive HEAD at all (``""``: it could)."""

    @property
    def gate_fails(self) -> bool:
        """Whether the gate stops HEAD: a regression, or a HEAD no longer driven at all."""
        return bool(self.regressions) or bool(self.head_cannot_drive and not self.base_cannot_drive)

    def to_json(self) -> dict[str, object]:
        """The comparison as a JSON document (``skill-conformance-compare/1``)."""
        return {
            "format": "skill-conformance-compare/1",
            "base": _header_json(self.base, self.base_cannot_drive),
            "head": _header_json(self.head, self.head_cannot_drive),
            "gate": "fails" if self.gate_fails else "passes",
            "unchanged": self.unchanged,
            **{name: [change.to_json() for change in getattr(self, name)] for name in _LISTS},
        }


def _header_json(header: Header, cannot_drive: str) -> dict[str, object]:
    found: dict[str, object] = {
        "adapter": header.adapter,
        "version": header.adapter_version,
        "spec_digest": header.spec_digest,
        "suite_version": header.suite_version,
    }
    if cannot_drive:
        found["cannot_drive"] = cannot_drive
    return found


def cannot_drive_reason(results: Results) -> str:
    """Why the adapter could not drive the run's implementation at all, or ``""``."""
    reasons = {r.reason for r in results.scenarios if r.verdict is Verdict.CANNOT_DRIVE}
    return "; ".join(sorted(reasons))


def _by_key(results: Iterable[ScenarioResult]) -> Mapping[str, ScenarioResult]:
    return {result.key: result for result in results}


def compare(base: Results, head: Results) -> Comparison:
    """Compare ``head`` with ``base``, scenario by scenario (see the module's docstring).

    A scenario that either run could not drive is not compared: the comparison names the reason
    once (:attr:`Comparison.base_cannot_drive`, :attr:`Comparison.head_cannot_drive`).
    """
    before, after = _by_key(base.scenarios), _by_key(head.scenarios)
    lists: dict[str, list[Change]] = {name: [] for name in _LISTS}
    unchanged = 0
    for key in [*before, *(key for key in after if key not in before)]:
        change = Change(before.get(key), after.get(key))
        if Verdict.CANNOT_DRIVE in (change.before, change.after):
            continue
        name = _kind(change)
        if name is None:
            unchanged += 1
        else:
            lists[name].append(change)
    return Comparison(
        base.header,
        head.header,
        **lists,
        unchanged=unchanged,
        base_cannot_drive=cannot_drive_reason(base),
        head_cannot_drive=cannot_drive_reason(head),
    )


_LISTS = ("regressions", "fixes", "changed", "observations", "added", "removed")


def _kind(change: Change) -> str | None:
    """Which list of :class:`Comparison` ``change`` belongs to; ``None``: unchanged."""
    if change.base is None:
        return "added"
    if change.head is None:
        return "removed"
    if change.before is Verdict.PASSED and change.after in _FAILING:
        return "regressions"
    if change.before in _FAILING and change.after is Verdict.PASSED:
        return "fixes"
    if change.before is not change.after:
        return "changed"
    if observation(change.base) != observation(change.head):
        return "observations"
    return None
