"""FastMCP's SkillsDirectoryProvider (experimental_skills=True) serving a folder over stdio.

Run: ``python fastmcp_server.py DIR``.
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.providers.skills import SkillsDirectoryProvider

mcp = FastMCP("fastmcp-skills")
mcp.add_provider(SkillsDirectoryProvider(roots=sys.argv[1], experimental_skills=True))
mcp.run(show_banner=False)
