"""The versions a run depends on, recorded with its results: Python's and the packages'."""

from __future__ import annotations

import importlib.metadata
import platform

__all__ = ["PACKAGES", "environment"]

PACKAGES = ("pytest", "pytest-bdd", "mcp", "pydantic-ai-slim", "hypothesis")
"""The suite's dependencies whose versions change what a run can observe."""


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment(implementation_module: str) -> tuple[tuple[str, str], ...]:
    """Python's version, each of :data:`PACKAGES`', and the implementation's distribution's.

    The implementation's is the distribution holding ``implementation_module``'s top-level
    package (``mypackage.adapter`` → ``mypackage``'s), when it is not the suite itself.
    """
    found = [("python", platform.python_version())]
    found += [(name, _version(name)) for name in PACKAGES]
    top = implementation_module.partition(".")[0]
    for distribution in importlib.metadata.packages_distributions().get(top, []):
        if distribution != "skill-conformance":
            found.append((distribution, _version(distribution)))
    return tuple(found)
