"""Find the implementation that ``--impl`` names.

``--impl`` takes a name of the registry (:mod:`skill_conformance.runtime.registry`: ``reference``,
``agentpool``, ...) or ``package.module:Attribute`` for an adapter living anywhere on the import
path. The attribute is
an :class:`~skill_conformance.port.Implementation`, or a class or function that returns one
when called with no arguments. Importing and instantiating it run under production warning
filters (:mod:`skill_conformance.runtime.production`), not the suite's.
"""

from __future__ import annotations

import importlib

from skill_conformance.errors import InputError
from skill_conformance.port import Implementation
from skill_conformance.runtime.production import production_warnings
from skill_conformance.runtime.registry import implementations
from skill_conformance.runtime.shadowing import shadowing

__all__ = ["AdapterLoadError", "load_implementation"]


_MEMBERS = ("name", "version", "unsupported", "cannot_drive", "open", "close")
"""What :class:`~skill_conformance.port.Implementation` asks of an adapter."""


class AdapterLoadError(InputError):
    """``--impl`` could not be turned into an implementation; the message is one line."""


def load_implementation(spec: str) -> Implementation:
    """Import and instantiate the implementation ``spec`` names."""
    with production_warnings():
        return _load(spec)


def _load(spec: str) -> Implementation:
    registered = implementations()
    target = registered.get(spec, spec)
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        known = ", ".join(sorted(registered))
        raise AdapterLoadError(
            f"--impl {spec!r}: not a registered adapter ({known}) nor 'package.module:Class'"
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise AdapterLoadError(
            f"--impl {spec!r}: cannot import {module_name}: {type(error).__name__}: {error}"
            + shadowing(error)
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
        missing = [member for member in _MEMBERS if not hasattr(implementation, member)]
        raise AdapterLoadError(
            f"--impl {spec!r}: {attribute} gave {type(implementation).__name__}, which lacks "
            f"{', '.join(missing) or 'a member'} of skill_conformance.port.Implementation"
        )
    return implementation
