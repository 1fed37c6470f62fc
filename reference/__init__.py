"""The reference implementation of the AgentPool skill system: the specs made executable.

Modules, from the files on disk up to the agents:

- :mod:`reference.skill`, :mod:`reference.loader`: the skill model and the ``SKILL.md`` loader.
- :mod:`reference.importer`: ``module:function`` tool imports.
- :mod:`reference.uri`, :mod:`reference.references`, :mod:`reference.substitution`: ``skill://``
  URIs, reference files read without leaving the skill directory, argument placeholders.
- :mod:`reference.mcp_client`: the one place that knows which pydantic-ai MCP client exists.
- :mod:`reference.resources`, :mod:`reference.capabilities`: the skill resource protocol and the
  plain capabilities (a toolset, an MCP server).
- :mod:`reference.manager`: the skill manager capability.
- :mod:`reference.registry`: the extension registry and flat ``skill://`` resolution.
- :mod:`reference.skill_tools`: ``load_skill`` and ``list_skills``.
- :mod:`reference.pool`, :mod:`reference.factory`: the pool's build/rebuild path and the agent
  factory.
"""
