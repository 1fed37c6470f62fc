"""What ``--impl agentpool`` / ``wolfharness`` loads: the real package, imported and warmed up."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from skill_conformance.adapters.agentpool.codebase import AGENTPOOL
from skill_conformance.adapters.agentpool.flavour import (
    detect_flavour,
    import_modules,
    not_installed_message,
    package_version,
    probe,
    unsupported_for,
)
from skill_conformance.adapters.agentpool.system import AgentpoolSystem
from skill_conformance.port import Ability, AgentPath, AsyncSkillSystem, Setup, Unsupported


def warm_up(implementation: AgentpoolImplementation) -> str | None:
    """Run one throwaway scenario, so that no scenario's time limit pays for first imports.

    The real package imports much of itself lazily, through an import hook that compiles from
    source each time; the first pool start and the first runs pay for it. Returns what went
    wrong, if anything, as one line (the scenarios then show the failure themselves).
    """

    async def scenario(root: Path) -> None:
        (root / "skills").mkdir()
        system = implementation.open(Setup(skills_dir=root / "skills", workdir=root))
        try:
            await system.start()
            await system.tool_names()
            await system.list_skills()
            for path in AgentPath:
                with contextlib.suppress(Unsupported):
                    await system.agent_tool_names(path)
        finally:
            await system.close()

    with tempfile.TemporaryDirectory(prefix="skill-conformance-warm-up-") as directory:
        try:
            asyncio.run(scenario(Path(directory)))
        except Exception as error:
            return f"warm-up failed: {type(error).__name__}: {error}".splitlines()[0]
    return None


class AgentpoolImplementation:
    """The real codebase, as ``--impl agentpool`` or ``--impl wolfharness`` loads it."""

    name = "agentpool"
    codebase = AGENTPOOL
    """What ``skill-conformance history`` must know of the real codebase."""

    def __init__(self) -> None:
        flavour = detect_flavour()
        if flavour is None:
            raise RuntimeError(not_installed_message(sys.executable))
        self.flavour = flavour
        self.name = flavour
        self.version = package_version(flavour)
        self.offers = probe(flavour)
        self.cannot_drive: str | None = None
        """Why the adapter cannot drive the installed package at all (the port's attribute)."""
        self.unsupported: Mapping[Ability, str] = unsupported_for(self.offers)
        self.warm_up_problem: str | None = None
        if self.offers.cannot_drive is not None:
            self.cannot_drive = f"{flavour} {self.version}: {self.offers.cannot_drive}"
            return
        import_modules(flavour)
        self.warm_up_problem = warm_up(self)
        if self.warm_up_problem is not None:
            print(f"skill-conformance: {flavour}: {self.warm_up_problem}", file=sys.stderr)

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; nothing is built until ``start``."""
        return AgentpoolSystem(setup, self.offers)

    def close(self) -> None:
        """Nothing is held for the whole run: each scenario's system is closed on its own."""
