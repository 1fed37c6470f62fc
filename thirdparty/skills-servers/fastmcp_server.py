"""FastMCP's SkillsDirectoryProvider (experimental_skills=True) serving a folder over stdio.

Run: ``python fastmcp_server.py DIR``. The provider serves the files as resources; the
extension's methods and its declaration come from ``SkillsExtension`` registered on the server
for that provider (FastMCP binds them to protocol 2026-07-28 only).
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.providers.skills import SkillsDirectoryProvider
from fastmcp.skills.extension import SkillsExtension

mcp = FastMCP("fastmcp-skills")
provider = SkillsDirectoryProvider(roots=sys.argv[1], experimental_skills=True)
mcp.add_provider(provider)
mcp.add_extension(SkillsExtension(providers=[provider]))
mcp.run(show_banner=False)
