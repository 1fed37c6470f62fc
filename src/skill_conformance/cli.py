"""The ``skill-conformance`` program: its signals are owned from its first instruction.

Only the standard library is imported before :func:`~skill_conformance.signals.guard`; the
commands (and everything they import) are imported after it, so that an interrupt landing in an
import ends the command as any other does: ``skill-conformance: interrupted``, exit 2.
"""

from __future__ import annotations

from skill_conformance.signals import guarded

__all__ = ["main"]


def _command_line() -> int:
    from skill_conformance.commands.main import main as command_line

    return command_line()


def main() -> int:
    """``skill-conformance``: the exit status of the command it runs."""
    return guarded(_command_line)
