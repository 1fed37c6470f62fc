"""Fill a skill's argument placeholders: ``$1``...``$N``, ``$@`` and ``$ARGUMENTS``."""

from __future__ import annotations

import re

__all__ = ["substitute_arguments"]

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|@|[1-9][0-9]*)")


def substitute_arguments(text: str, arguments: str | None) -> str:
    """Replace the placeholders of ``text`` in one pass.

    ``$N`` is the N-th whitespace-separated argument, read whole (``$10`` is the tenth), and stays
    as written when there is no N-th argument; ``$@`` and ``$ARGUMENTS`` are the whole argument
    string. Text an argument brings in is not looked at again. ``None`` leaves ``text`` unchanged.
    """
    if arguments is None:
        return text
    positional = arguments.split()

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in ("@", "ARGUMENTS"):
            return arguments
        index = int(key)
        return positional[index - 1] if index <= len(positional) else match.group(0)

    return _PLACEHOLDER.sub(replace, text)
