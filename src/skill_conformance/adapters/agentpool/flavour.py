"""Which real package is installed (``wolfharness`` or ``agentpool``), its version, importing it.

What the installed code offers is found by looking (:func:`probe`), never from its version; the
choices that follow are small pure functions, so this module imports without the real package.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import subprocess
import warnings
from collections.abc import Callable
from dataclasses import dataclass
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


POOL_PROVIDERS = ("_inject_pool_providers", "_add_pool_providers")
"""The names the factory's function that gives an agent the pool's providers has had."""


@dataclass(frozen=True)
class Offers:
    """The entry points the installed real package offers the adapter, found by looking.

    The adapter chooses by these, never by a version or a commit: the same version number spans
    commits with different entry points.
    """

    flavour: str
    toolset_functions: bool
    """``load_skill``/``list_skills`` are functions of the builtin skills toolset taking an
    ``AgentContext`` (its ``SkillsTools`` provider exists); else the skill manager offers them."""
    registry: bool
    """The extension registry (``capabilities.extension_registry``) exists."""
    pool_providers: str | None
    """The factory's function that gives an agent the pool's providers, if any."""
    rebuild: bool
    """The pool rebuilds its skill capabilities (``_rebuild_skill_capabilities``)."""
    sessions: bool
    """The pool has a session pool, through which child sessions are created."""
    cannot_drive: str | None = None
    """Why the adapter cannot drive this package at all, or ``None``."""


_Lookup = Callable[[str], "object | None"]


def _module_or_none(name: str) -> object | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except ImportError:
        return None


def probe(flavour: str, module: _Lookup = _module_or_none) -> Offers:
    """What the installed ``flavour`` offers; ``module(name)`` imports a module, or gives None.

    The real package must offer ``AgentsManifest``, ``AgentPool`` with ``skill_capabilities``,
    and ``agents.context.AgentContext``; without them :attr:`Offers.cannot_drive` says which is
    missing.
    """
    package = module(flavour)
    pool_class = getattr(package, "AgentPool", None)
    context = module(f"{flavour}.agents.context")
    toolset = module(f"{flavour}_toolsets.builtin.skills")
    factory = module(f"{flavour}.host.factory")
    missing = [
        what
        for what, there in (
            (f"{flavour}.AgentsManifest", hasattr(package, "AgentsManifest")),
            (f"{flavour}.AgentPool", pool_class is not None),
            ("AgentPool.skill_capabilities", hasattr(pool_class, "skill_capabilities")),
            (f"{flavour}.agents.context.AgentContext", hasattr(context, "AgentContext")),
        )
        if not there
    ]
    return Offers(
        flavour=flavour,
        toolset_functions=hasattr(toolset, "SkillsTools") and hasattr(toolset, "load_skill"),
        registry=module(f"{flavour}.capabilities.extension_registry") is not None,
        pool_providers=next((name for name in POOL_PROVIDERS if hasattr(factory, name)), None),
        rebuild=hasattr(pool_class, "_rebuild_skill_capabilities"),
        sessions=hasattr(pool_class, "session_pool"),
        cannot_drive=f"{flavour} has no {', no '.join(missing)}" if missing else None,
    )


def unsupported_for(offers: Offers) -> dict[Ability, str]:
    """The abilities this adapter cannot provide for what the package offers, with reasons.

    Each is an entry point the installed code does not have; every other ability is reached
    through an entry point production uses.
    """
    name = offers.flavour
    lacking: dict[Ability, str] = {}
    if not offers.registry:
        lacking[Ability.REGISTRY] = (
            f"{name} has no extension registry (skills are resolved by the pool's "
            "SkillURIResolver over its providers)"
        )
    if offers.pool_providers is None:
        lacking[Ability.STANDALONE_AGENT] = (
            f"{name}'s agent factory has no function giving an agent the pool's providers"
        )
    if not offers.rebuild:
        lacking[Ability.POOL_REBUILD] = f"{name}'s pool does not rebuild its skill capabilities"
    if not offers.sessions:
        lacking[Ability.CHILD_SESSION] = f"{name}'s pool has no session pool"
    return lacking


def not_installed_message(executable: str) -> str:
    """The one line shown when neither real package can be imported."""
    return (
        f"neither wolfharness nor agentpool is importable by {executable}; run the suite with "
        "the Python of the real codebase's venv, with skill-conformance installed into it"
    )


MODULES = (".agents.native_agent",)
"""Modules of the real package the adapter uses beyond those :func:`probe` imports, imported once
when it is loaded, so that no scenario's time limit pays for them."""


def import_modules(flavour: str) -> None:
    """Import the real package up front, so that no scenario's time limit pays for it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for suffix in MODULES:
            importlib.import_module(f"{flavour}{suffix}")
