"""Which real package is installed (``wolfharness`` or ``agentpool``), its version, importing it.

The version-dependent choices are small pure functions, so this module imports without the real
package.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path

from skill_conformance.port import Ability

FLAVOURS = ("wolfharness", "agentpool")


def detect_flavour(
    find_spec: Callable[[str], object | None] = importlib.util.find_spec,
) -> str | None:
    """The importable real package: ``wolfharness`` first, then ``agentpool``; else None."""
    for name in FLAVOURS:
        try:
            if find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def source_revision(package_dir: Path | None) -> str | None:
    """The short git commit of the checkout ``package_dir`` lies in, or None."""
    if package_dir is None:
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(package_dir), "rev-parse", "--short=9", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{7,40}", revision) else None


def version_label(version: str, revision: str | None) -> str:
    """The version shown and used to find expectations: ``2.9.5+gb686ede72`` in a checkout."""
    return f"{version}+g{revision}" if revision else version


def package_version(flavour: str) -> str:
    """The installed version of ``flavour``, with the checkout's commit where there is one."""
    try:
        version = importlib.metadata.version(flavour)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    spec = importlib.util.find_spec(flavour)
    origin = spec.origin if spec is not None else None
    return version_label(version, source_revision(Path(origin).parent if origin else None))


def builtin_skill_tools_in_manager(flavour: str) -> bool:
    """Whether ``load_skill``/``list_skills`` live in SkillManagerCap (wolfharness only)."""
    return flavour == "wolfharness"


def unsupported_for(flavour: str) -> dict[Ability, str]:
    """The abilities this adapter cannot provide for ``flavour``, each with its reason.

    None so far: every ability is reached through an entry point production uses.
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"unknown flavour {flavour!r}")
    return {}


def not_installed_message(executable: str) -> str:
    """The one line shown when neither real package can be imported."""
    return (
        f"neither wolfharness nor agentpool is importable by {executable}; run the suite with "
        "the Python of the real codebase's venv, with skill-conformance installed into it"
    )


MODULES = (
    "",
    ".agents.context",
    ".agents.native_agent",
    ".capabilities.extension_registry",
    ".host.factory",
)
"""The modules of the real package the adapter uses, imported once when it is loaded."""


def import_modules(flavour: str) -> None:
    """Import the real package up front, so that no scenario's time limit pays for it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for suffix in MODULES:
            importlib.import_module(f"{flavour}{suffix}")
        if not builtin_skill_tools_in_manager(flavour):
            importlib.import_module(f"{flavour}_toolsets.builtin.skills")
