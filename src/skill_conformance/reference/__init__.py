"""The reference implementation of the AgentPool skill system: the specs made executable.

Modules, from the files on disk up to the agents:

- :mod:`.skill`, :mod:`.loader`: the skill model and the ``SKILL.md`` loader.
- :mod:`.importer`: ``module:function`` tool imports.
- :mod:`.uri`, :mod:`.references`, :mod:`.substitution`: ``skill://``
  URIs, reference files read without leaving the skill directory, argument placeholders.
- :mod:`.mcp_client`: the one place that knows which pydantic-ai MCP client exists.
- :mod:`.resources`, :mod:`.capabilities`: the skill resource protocol and the
  plain capabilities (a toolset, an MCP server).
- :mod:`.manager`: the skill manager capability.
- :mod:`.registry`: the extension registry and flat ``skill://`` resolution.
- :mod:`.skill_tools`: ``load_skill`` and ``list_skills``.
- :mod:`.pool`, :mod:`.factory`: the pool's build/rebuild path and the agent
  factory.
"""
