"""The errors the suite reports to its user: each says in one line what is wrong, and where.

Every error the suite raises for its user derives from :class:`ConformanceError`, in one of two
kinds: :class:`InputError` (what the user gave cannot be used: an option, a spec, a results or
expectations file, an adapter) and :class:`ImplementationError` (the implementation under test
crashed, hung or answered outside the port: an *errored* scenario). A step's :class:`Mismatch`
(:mod:`skill_conformance.verdicts.mismatch`) is the third: a *failed* one.

The port's own exceptions (:class:`~skill_conformance.port.SkillSystemError`,
:class:`~skill_conformance.port.Unsupported`) are not among them: an implementation raises those,
and the port depends on nothing of the suite.
"""

from __future__ import annotations

__all__ = ["ConformanceError", "ImplementationError", "InputError"]


class ConformanceError(Exception):
    """An error the suite reports in one line, never as a traceback."""


class InputError(ConformanceError):
    """What the user gave cannot be used; the message names the option, file and line, or value.

    A ``skill-conformance`` command exits 2 on it, a run of the suite 4 (pytest's usage error),
    before any scenario runs.
    """


class ImplementationError(ConformanceError):
    """The implementation under test crashed, hung or answered outside the port: errored."""
