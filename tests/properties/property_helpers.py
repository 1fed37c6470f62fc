"""Shared pieces of the property tests: budgets, strategies, and the reference opened on a world.

Every property drives the reference through the port (``Implementation.open`` and the blocking
runner) on real SKILL.md directories that :class:`~skill_conformance.runtime.world.World` writes
into a fresh temporary directory per example.

Budgets come from the hypothesis profile named by ``SC_HYPOTHESIS_PROFILE`` (``ci``, the default,
or ``thorough``, ten times the examples); the profiles are registered here and used as the parent
of each test's own settings, so that the other test modules' hypothesis settings stay their own.
"""

from __future__ import annotations

import keyword
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import McpChild, ToolsChild
from skill_conformance.runtime.blocking import BlockingSkillSystem, blocking
from skill_conformance.runtime.world import World

__all__ = [
    "budget",
    "identifiers",
    "opened",
    "skill_names",
    "temporary_world",
]

_SCALE = {"ci": 1, "thorough": 10}
PROFILE = os.environ.get("SC_HYPOTHESIS_PROFILE", "ci")

for _name, _scale in _SCALE.items():
    settings.register_profile(
        f"sc-{_name}",
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
        max_examples=10 * _scale,
    )


def budget(examples: int, **overrides: int) -> settings:
    """Settings for a test worth ``examples`` examples at the ``ci`` profile."""
    parent = settings.get_profile(f"sc-{PROFILE}")
    return settings(parent, max_examples=examples * _SCALE[PROFILE], **overrides)  # type: ignore[arg-type]


# -- strategies ------------------------------------------------------------------------------

_SEGMENT = st.from_regex(r"[a-z0-9]{1,4}", fullmatch=True)


@st.composite
def _skill_name(draw: st.DrawFn) -> str:
    segments = draw(st.lists(_SEGMENT, min_size=1, max_size=3))
    return "-".join(segments)


@st.composite
def skill_names(draw: st.DrawFn, min_size: int = 1, max_size: int = 4) -> list[str]:
    """Distinct valid skill names; often one is a prefix of another (``a``, ``ab``, ``a-b``)."""
    names = draw(st.lists(_skill_name(), min_size=min_size, max_size=max_size, unique=True))
    if len(names) < max_size and draw(st.booleans()):
        base = draw(st.sampled_from(names))
        joiner = draw(st.sampled_from(["", "-"]))
        longer = f"{base}{joiner}{draw(_SEGMENT)}"
        if longer not in names and len(longer) <= 64:
            names.append(longer)
    return names


def _is_identifier(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.isidentifier() and not keyword.iskeyword(name) and not dunder


identifiers = st.from_regex(
    r"_{0,2}[a-z][a-z0-9]{0,5}(__?[a-z0-9]{1,5}){0,2}_{0,2}", fullmatch=True
)
"""Python function names a tool may have, often with ``__`` inside (``read__file``, ``__x``)."""
identifiers = identifiers.filter(_is_identifier)


# -- the reference on a world ------------------------------------------------------------------


@contextmanager
def temporary_world() -> Iterator[World]:
    """A :class:`World` in a fresh temporary directory, torn down and removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="sc-prop-") as directory:
        world = World(Path(directory))
        try:
            yield world
        finally:
            world.teardown()


@contextmanager
def opened(
    world: World,
    children: tuple[ToolsChild | McpChild, ...] = (),
    *,
    write: bool = True,
    timeout: float = 30.0,
) -> Iterator[BlockingSkillSystem]:
    """The reference opened (through the port) and started on ``world``, written first."""
    if write:
        world.write()
    setup = world.setup(children)
    system = blocking(ReferenceImplementation().open(setup), timeout)
    try:
        system.start()
        yield system
    finally:
        system.close()
