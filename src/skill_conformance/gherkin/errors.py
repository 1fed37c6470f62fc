"""Diagnostics raised and reported by the Gherkin generator."""

from __future__ import annotations

from dataclasses import dataclass

from skill_conformance.errors import InputError
from skill_conformance.escape.terminal import printable as printable  # the one for terminals


@dataclass(frozen=True)
class Diagnostic:
    """A message tied to a line of a file.

    Attributes:
        path: The file, as shown to the user.
        line: 1-based line number (1 when the whole file is meant).
        message: What is wrong, on one line.

    """

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class GeneratorError(InputError):
    """Base class of every error the generator reports instead of a traceback."""


class SpecError(GeneratorError):
    """A spec file (or an output file) that cannot be turned into Gherkin.

    Attributes:
        diagnostic: Where and what.

    """

    def __init__(self, path: str, line: int, message: str) -> None:
        self.diagnostic = Diagnostic(path, line, _one_line(message))
        super().__init__(str(self.diagnostic))


class UsageError(GeneratorError):
    """Bad command-line input, such as a missing directory."""


def _one_line(message: str) -> str:
    return " ".join(message.split())
