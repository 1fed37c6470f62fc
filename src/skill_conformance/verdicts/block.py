"""The few lines a failing scenario prints: where it is, the step that failed, expected, observed.

Every value is printed whole; pytest's traceback follows only with
``--skill-conformance-traceback``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from skill_conformance.escape.terminal import printable
from skill_conformance.verdicts.ledger import ScenarioInfo
from skill_conformance.verdicts.mismatch import Mismatch
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["TRACEBACK_OPTION", "FailedStep", "failure_block"]

TRACEBACK_OPTION = "--skill-conformance-traceback"
_MAX_MESSAGE_LINES = 8
"""Lines of a crash's message shown; a longer message ends with how to see all of it."""
_PHASES = {"setup": "before its steps", "teardown": "after its steps"}


@dataclass(frozen=True)
class FailedStep:
    """The Gherkin step during which a scenario failed, as its feature file shows it."""

    line: int
    text: str
    """The keyword and the step: ``Then the agent sees the tool `x```."""


def failure_block(
    info: ScenarioInfo,
    verdict: Verdict,
    when: str,
    step: FailedStep | None,
    error: BaseException | str,
) -> list[str]:
    """The lines that explain a failed or errored phase of a scenario, each value whole."""
    lines = [
        f"Scenario: {info.scenario}",
        f"  {info.path}:{info.line}  ({info.capability}/{info.scenario_id})",
    ]
    if step is not None:
        lines += [f"  {verdict} at {info.path}:{step.line}:", f"    {step.text}"]
    else:
        lines.append(f"  {verdict} {_PHASES.get(when, 'in ' + when)}:")
    lines += [f"  {line}" for line in _message(error)]
    lines.append(f"  (pytest's traceback and captured output: {TRACEBACK_OPTION})")
    return lines


@dataclass(frozen=True)
class _Crash:
    message: str

    def __str__(self) -> str:
        return self.message


class _Writer(Protocol):
    def line(self, s: str = "", **markup: bool) -> None: ...


class BlockRepr:
    """A block as a report's ``longrepr``: pytest prints it whole; one line says what went wrong.

    pytest's short test summary and JUnit's ``message`` attribute take :attr:`reprcrash`'s
    message: the failure's reason on one line (expected and observed, or the error).
    """

    def __init__(self, text: str, message: str) -> None:
        self.text = text
        self.reprcrash = _Crash(message)

    def toterminal(self, tw: _Writer) -> None:
        """Write the block's lines, control characters shown escaped."""
        for line in self.text.splitlines():
            tw.line(printable(line))

    def __str__(self) -> str:
        return self.text


def _message(error: BaseException | str) -> list[str]:
    if isinstance(error, Mismatch):
        return error.lines()
    if isinstance(error, str):
        text = error
    elif isinstance(error, AssertionError) or type(error).__module__.startswith("_pytest"):
        text = _without_introspection(str(error))
    else:
        text = f"{type(error).__name__}: {error}"
    lines = [line for line in text.strip().splitlines() if line.strip()] or ["(no message)"]
    if len(lines) > _MAX_MESSAGE_LINES:
        hidden = len(lines) - _MAX_MESSAGE_LINES + 1
        lines = [*lines[: _MAX_MESSAGE_LINES - 1], f"... {hidden} more lines ({TRACEBACK_OPTION})"]
    return lines


def _without_introspection(text: str) -> str:
    """An assertion's own message, without the ``assert ...`` lines pytest adds."""
    kept: list[str] = []
    for line in text.splitlines():
        if kept and line.lstrip().startswith("assert "):
            break
        kept.append(line)
    return "\n".join(kept)
