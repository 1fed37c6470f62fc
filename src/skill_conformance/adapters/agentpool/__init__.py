"""The adapter of the real codebase, Leoyzen/agentpool (``--impl agentpool`` / ``wolfharness``).

It builds a real ``AgentPool`` from a manifest (the scenario's skills directory, one native
agent whose config tools are the non-skill child's tools, and the non-skill MCP children as the
pool's own MCP servers), enters it (the pool's start-up path), and asks what the pool built:

- the agent's tools: a real pydantic-ai run whose capability is the pool's own
  ``SkillManagerCap``, as the native agent adds it to every run, beside the child's tools;
- ``skill://`` URIs: the pool's ``skill_resolver`` over its extension registry;
- rebuild: ``pool.skills.refresh()`` then the pool's ``_rebuild_skill_capabilities``;
- ``load_skill``/``list_skills``: the real tools, with a real ``AgentContext`` on the pool;
- reading a skill's file: the real ``load_skill`` with ``skill://{skill}/{path}``, the one way
  production serves a skill's file to an agent (its reader has no public entry of its own);
- agent paths: a child session created through the pool's session controller (a parent session,
  then a session naming it as parent, so the factory's child path runs), and a standalone agent
  built from its config and given the pool's providers by the factory's
  ``_inject_pool_providers``; their runs are streamed, as sessions run.

Results are returned as the real code gave them; only real exceptions are mapped to
:class:`~skill_conformance.port.ErrorKind`. Warnings the real code emits are kept as problems,
not raised.

The real package (``wolfharness`` at HEAD, ``agentpool`` before) is imported lazily, so this
module imports without it. Which entry points to use is found by looking at what the installed
code offers (:func:`.flavour.probe`), never from its version, from before the M3 refactor (a
``SkillCapability`` per skill, ``load_skill`` a function of the builtin skills toolset, no
extension registry) to 4.0 (the skill manager offers ``load_skill``); a package without the
entry points every era shares is one the adapter *cannot drive*, a verdict of its own.

The package, by job: :mod:`.flavour` (which real package, its version, importing it),
:mod:`.pool` (the manifest and the pool built from it), :mod:`.translate` (scopes, errors and
the ``list_skills`` text between the port and the real code), :mod:`.system` (the port's
operations on a started pool), :mod:`.implementation` (what ``--impl`` loads).
"""

from __future__ import annotations

from skill_conformance.adapters.agentpool.flavour import (
    FLAVOURS,
    Offers,
    detect_flavour,
    not_installed_message,
    probe,
    source_revision,
    unsupported_for,
    version_label,
)
from skill_conformance.adapters.agentpool.implementation import AgentpoolImplementation
from skill_conformance.adapters.agentpool.system import AgentpoolSystem
from skill_conformance.adapters.agentpool.translate import (
    error_kind_for,
    parse_listing,
    scope_keywords,
    skill_file_uri,
)

__all__ = [
    "FLAVOURS",
    "AgentpoolImplementation",
    "AgentpoolSystem",
    "Offers",
    "detect_flavour",
    "error_kind_for",
    "not_installed_message",
    "parse_listing",
    "probe",
    "scope_keywords",
    "skill_file_uri",
    "source_revision",
    "unsupported_for",
    "version_label",
]
