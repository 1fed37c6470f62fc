"""Generate Gherkin feature files from OpenSpec specs (``skill-conformance gherkin``)."""

from __future__ import annotations

from skill_conformance.gherkin.command import FAILED, OK, OUT_OF_DATE, Options, run
from skill_conformance.gherkin.errors import Diagnostic, GeneratorError, SpecError, UsageError
from skill_conformance.gherkin.generate import discover, generate
from skill_conformance.gherkin.parser import ParseResult, parse_spec
from skill_conformance.gherkin.render import HEADER_PREFIX, render_feature

__all__ = [
    "FAILED",
    "HEADER_PREFIX",
    "OK",
    "OUT_OF_DATE",
    "Diagnostic",
    "GeneratorError",
    "Options",
    "ParseResult",
    "SpecError",
    "UsageError",
    "discover",
    "generate",
    "parse_spec",
    "render_feature",
    "run",
]
