"""The agent factory: every agent a pool creates, whichever path creates it.

Each path (a session agent, a child session's agent, a standalone agent without a session pool)
assembles its capabilities the same way: the pool's skill manager, then whatever
:meth:`AgentFactory._inject_pool_providers` adds. That one method is where the host's skill tools
provider (``load_skill``/``list_skills``) is added, so no path can miss it; a host without one
gets agents without those tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model

from skill_conformance.reference.pool import SkillPool
from skill_conformance.reference.skill_tools import SkillToolsProvider

__all__ = ["AgentFactory", "HostContext"]


@dataclass(frozen=True)
class HostContext:
    """What the host offers the agents it creates.

    Attributes:
        pool: The pool whose skills the agents use.
        skills_tools_provider: The capability offering ``load_skill`` and ``list_skills``, or
            ``None`` for a host that has none.

    """

    pool: SkillPool
    skills_tools_provider: SkillToolsProvider | None


class AgentFactory:
    """Creates pydantic-ai agents for a host.

    Args:
        host: The host context.
        model: The model every agent runs on.

    """

    def __init__(self, host: HostContext, model: Model) -> None:
        self.host = host
        self.model = model

    def create_session_agent(self, name: str = "session-agent") -> Agent[None, str]:
        """An agent for a session of the session pool."""
        return self._create(name)

    def create_child_session_agent(
        self, parent: str = "session-agent", name: str = "child-agent"
    ) -> Agent[None, str]:
        """An agent for a child session spawned by the agent ``parent``."""
        return self._create(f"{parent}/{name}")

    def create_standalone_agent(self, name: str = "standalone-agent") -> Agent[None, str]:
        """An agent run on its own, without a session pool."""
        return self._create(name)

    def _create(self, name: str) -> Agent[None, str]:
        capabilities: list[AbstractCapability[Any]] = [self.host.pool.manager]
        self._inject_pool_providers(capabilities)
        return Agent(self.model, name=name, capabilities=capabilities)

    def _inject_pool_providers(self, capabilities: list[AbstractCapability[Any]]) -> None:
        """Add the host's pool-wide providers that ``capabilities`` lacks."""
        provider = self.host.skills_tools_provider
        if provider is not None and not any(cap is provider for cap in capabilities):
            capabilities.append(provider)
