"""What the commands share: their exit statuses and their one-line error."""

from __future__ import annotations

import sys

from skill_conformance.escape.terminal import printable

OK, FOUND, FAILED = 0, 1, 2
"""Success; a check found something (a difference, an uncovered requirement); an error."""


def error(message: str) -> int:
    """Print ``message`` as the command's one error line; return :data:`FAILED`."""
    print(f"skill-conformance: error: {printable(message)}", file=sys.stderr)
    return FAILED
