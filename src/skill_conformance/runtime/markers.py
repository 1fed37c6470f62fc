"""The scenarios' markers: registered (``--markers`` lists them), and ``-m`` held to them.

Each tag of a generated feature is a marker of its scenario (``@needs:mcp`` as ``needs:mcp``),
which ``-m`` selects by. pytest's ``--strict-markers`` refuses a mark nobody registered, but not a
name in ``-m`` that no test bears: a typo there deselects every scenario. The suite refuses it, in
one line, as ``--strict-markers`` would.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skill_conformance.port import Ability
from skill_conformance.runtime.abilities import EITHER_OF, either_tag

__all__ = ["MARKERS", "registered_names", "unknown_markers"]

MARKERS = (
    "capability:NAME: the scenarios of one capability, a spec's folder (capability:skill-tools)",
    "requirement:NAME: the scenarios of one requirement of the specs",
    "clause:NAME: the scenarios that check one normative clause of the specs",
    "id:NAME: one scenario, by its id in the specs",
    *(
        f"needs:{ability.value}: a scenario that needs the ability {ability.value}; not "
        "applicable where the implementation declares it lacks it"
        for ability in Ability
    ),
    *(
        f"needs:{either_tag(group)}: a scenario that needs one of the abilities "
        f"{', '.join(sorted(a.value for a in group))}; not applicable where the implementation "
        "lacks them all"
        for group in EITHER_OF
    ),
)
"""The lines registered in pytest's ``markers``: every tag family, every ability a tag needs."""

_NAME = re.compile(r"[\w:+\-.\[\]\\/]+")
"""A name in an ``-m`` expression, as pytest's expression scanner reads one."""
_ARGUMENTS = re.compile(r"\([^)]*\)")
_WORDS = frozenset({"and", "or", "not", "True", "False", "None"})


def registered_names(lines: Iterable[str]) -> set[str]:
    """The marker names of pytest's ``markers`` lines: ``needs:mcp`` of ``needs:mcp: ...``."""
    return {line.split(": ", 1)[0].split("(", 1)[0].strip() for line in lines}


def unknown_markers(expression: str, known: Iterable[str]) -> list[str]:
    """The names of an ``-m`` expression that are no marker in ``known``, in their order."""
    names = _NAME.findall(_ARGUMENTS.sub(" ", expression))
    known = set(known)
    return [name for name in names if name not in _WORDS and name not in known]
