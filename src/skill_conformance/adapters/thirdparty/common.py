"""What the third-party adapters share: versions, recorded warnings, refusals, children."""

from __future__ import annotations

import importlib.metadata
import logging
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from skill_conformance.port import ErrorKind, SkillSystemError, ToolsChild, Unsupported

__all__ = [
    "ProblemLog",
    "child_tools",
    "installed_version",
    "one_line",
    "refused",
    "run_ended",
    "unsupported_uri",
]


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` (the implementation the adapter drives)."""
    return importlib.metadata.version(distribution)


def one_line(text: str) -> str:
    """``text`` with every run of whitespace made one space: a problem or error on one line."""
    return " ".join(text.split())


def refused(text: object) -> SkillSystemError:
    """The implementation refused a call and said why, with no kind the specs name."""
    return SkillSystemError(ErrorKind.UNCLASSIFIED, one_line(str(text)))


def run_ended(error: Exception) -> SkillSystemError:
    """The implementation's refusal raised out of the agent's run, ending it.

    The model got no result to act on: a verdict on that (a refusal must be a result), not a
    crash of the adapter.
    """
    return SkillSystemError(ErrorKind.RUN_ENDED, one_line(f"{type(error).__name__}: {error}"))


def unsupported_uri(skill: str) -> None:
    """Raise :class:`Unsupported` when ``skill`` is a ``skill://`` URI the tool cannot take."""
    if skill.startswith("skill://"):
        raise Unsupported("the skill tool takes a skill name, not a skill:// URI")


def child_tools(children: tuple[object, ...]) -> list[ToolsChild]:
    """The plain-tool children; an MCP child raises :class:`Unsupported`."""
    tools = []
    for child in children:
        if not isinstance(child, ToolsChild):
            raise Unsupported("the skill system takes no MCP server as a child")
        tools.append(child)
    return tools


class _Handler(logging.Handler):
    """Hands each log record at WARNING or above to a :class:`ProblemLog`."""

    def __init__(self, log: ProblemLog) -> None:
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        self._log.add(record.getMessage())


class ProblemLog:
    """What an implementation warned about, one line each, as a host would log it.

    Args:
        loggers: The names of the implementation's loggers whose warnings count; Python
            warnings always do.

    """

    def __init__(self, loggers: tuple[str, ...] = ()) -> None:
        self._lines: list[str] = []
        self._loggers = loggers

    @contextmanager
    def recording(self) -> Iterator[None]:
        """Record every warning emitted or logged inside the block (raise none as an error)."""
        handler = _Handler(self)
        with ExitStack() as stack:
            for name in self._loggers:
                logger = logging.getLogger(name)
                logger.addHandler(handler)
                stack.callback(logger.removeHandler, handler)
            caught = stack.enter_context(warnings.catch_warnings(record=True))
            warnings.simplefilter("always")
            yield
        for warning in caught:
            self.add(str(warning.message))

    def failed(self, what: str, error: Exception) -> None:
        """Record that building ``what`` raised ``error``: the host goes on without it."""
        self.add(f"{what} failed: {type(error).__name__}: {error}")

    def add(self, message: str) -> None:
        """Keep ``message`` on one line, once."""
        line = one_line(message)
        if line and line not in self._lines:
            self._lines.append(line)

    def lines(self) -> list[str]:
        """Everything recorded so far."""
        return list(self._lines)
