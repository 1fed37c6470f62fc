"""Typed parsers shared by every step module.

A value in a step is written in backticks. ``{name:v}`` takes one backticked value, ``{names:vs}``
a list written as `` `a` ``, `` `a` and `b` `` or `` `a`, `b` and `c` ``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

from pytest_bdd import parsers

__all__ = ["matches_result", "one_of", "step"]

_VALUE = r"[^`]*"


def _value(text: str) -> str:
    return text


_value.pattern = _VALUE  # type: ignore[attr-defined]


def _values(text: str) -> list[str]:
    return re.findall(r"`([^`]*)`", text)


_values.pattern = rf"`{_VALUE}`(?:(?:, | and )`{_VALUE}`)*"  # type: ignore[attr-defined]


def _count(text: str) -> int:
    return int(text)


_count.pattern = r"\d+"  # type: ignore[attr-defined]

_TYPES = {"v": _value, "vs": _values, "n": _count}


def one_of(*phrases: str) -> Callable[[str], str]:
    """A parse type matching exactly one of ``phrases`` (for ``step(..., extra_types=...)``)."""

    def phrase(text: str) -> str:
        return text

    phrase.pattern = "|".join(re.escape(p) for p in phrases)  # type: ignore[attr-defined]
    return phrase


def step(
    pattern: str, extra_types: Mapping[str, Callable[[str], object]] | None = None
) -> parsers.parse:
    """A ``parse`` parser for ``pattern``, in which `` `{x:v}` `` and ``{xs:vs}`` work."""
    return parsers.parse(pattern, extra_types={**_TYPES, **(extra_types or {})})


def matches_result(result: object, expected: str) -> bool:
    """Whether a tool ``result`` is what a step wrote as ``expected``.

    ``expected`` is read as JSON when it is JSON (`` `[1, 2]` ``); otherwise it is the text the
    result must be.
    """
    try:
        wanted = json.loads(expected)
    except ValueError:
        return str(result) == expected
    if isinstance(result, str) and not isinstance(wanted, str):
        try:
            return bool(json.loads(result) == wanted)
        except ValueError:
            return False
    return bool(result == wanted)
