"""Find the implementation that ``--impl`` names.

``--impl`` takes a registered name (``reference``, ``agentpool``, ``wolfharness``) or
``package.module:Attribute`` for an adapter living anywhere on the import path. The attribute is
an :class:`~skill_conformance.port.Implementation`, or a class or function that returns one
when called with no arguments. Importing and instantiating it run under production warning
filters (:mod:`skill_conformance.runtime.production`), not the suite's.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Mapping
from importlib.machinery import PathFinder
from pathlib import Path

from skill_conformance.errors import InputError
from skill_conformance.port import Implementation
from skill_conformance.runtime.production import production_warnings

__all__ = ["ADAPTERS", "AdapterLoadError", "load_implementation"]

ADAPTERS: Mapping[str, str] = {
    "reference": "skill_conformance.adapters.reference:ReferenceImplementation",
    "agentpool": "skill_conformance.adapters.agentpool:AgentpoolImplementation",
    "wolfharness": "skill_conformance.adapters.agentpool:AgentpoolImplementation",
    "template": "skill_conformance.adapters.template:TemplateImplementation",
    "jsonlines": "skill_conformance.adapters.jsonlines:JsonlinesImplementation",
    "pydantic-ai-skills": (
        "skill_conformance.adapters.thirdparty.pydantic_ai_skills:PydanticAiSkillsImplementation"
    ),
    "deepagents": "skill_conformance.adapters.thirdparty.deepagents:DeepagentsImplementation",
    "agno": "skill_conformance.adapters.thirdparty.agno:AgnoImplementation",
    "fast-agent": "skill_conformance.adapters.thirdparty.fast_agent:FastAgentImplementation",
    "mastra": "skill_conformance.adapters.thirdparty.mastra:MastraImplementation",
}


class AdapterLoadError(InputError):
    """``--impl`` could not be turned into an implementation; the message is one line."""


def load_implementation(spec: str) -> Implementation:
    """Import and instantiate the implementation ``spec`` names."""
    with production_warnings():
        return _load(spec)


def _load(spec: str) -> Implementation:
    target = ADAPTERS.get(spec, spec)
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        known = ", ".join(sorted(ADAPTERS))
        raise AdapterLoadError(
            f"--impl {spec!r}: not a registered adapter ({known}) nor 'package.module:Class'"
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise AdapterLoadError(
            f"--impl {spec!r}: cannot import {module_name}: {type(error).__name__}: {error}"
            + _shadowing(error)
        ) from None
    try:
        factory = getattr(module, attribute)
    except AttributeError:
        raise AdapterLoadError(f"--impl {spec!r}: {module_name} has no {attribute!r}") from None
    try:
        implementation = factory() if callable(factory) else factory
    except Exception as error:
        raise AdapterLoadError(
            f"--impl {spec!r}: {attribute}() failed: {type(error).__name__}: {error}"
        ) from None
    if not isinstance(implementation, Implementation):
        raise AdapterLoadError(
            f"--impl {spec!r}: {attribute} gave {type(implementation).__name__}, which lacks "
            "name, version, unsupported or open() of skill_conformance.port.Implementation"
        )
    return implementation


def _shadowing(error: BaseException) -> str:
    """Why an import failed when a module of the working directory hid an installed one.

    ``python -m pytest`` puts the working directory first on the path: a ``yaml.py`` or an
    ``mcp/`` there is imported in place of the library, whose own message then misleads ("please
    install ..."). The failed import's traceback shows it: a frame in such a file.
    """
    here = Path.cwd().resolve()
    elsewhere = [entry for entry in sys.path if entry and Path(entry).resolve() != here]
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for frame, _ in traceback.walk_tb(current.__traceback__):
            file = Path(frame.f_code.co_filename)
            if not file.is_absolute() or not file.is_relative_to(here):
                continue
            top = file.relative_to(here).parts[0]
            installed = PathFinder.find_spec(top.removesuffix(".py"), elsewhere)
            if installed is None:
                continue
            shown = f"{top}/" if (here / top).is_dir() else top
            where = installed.origin or next(iter(installed.submodule_search_locations or []), "")
            return (
                f" (the working directory {here} holds {shown}, imported in place of {where}:"
                " run from another directory)"
            )
        current = current.__cause__ or current.__context__
    return ""
