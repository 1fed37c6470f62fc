"""agentskills-mcp-server serving a folder over stdio: one fs skill per skill folder in it.

Run: ``python agentskills_server.py DIR``.

The server is configured by a file naming each skill; this writes one for the skill folders
directly inside DIR (the fs provider's layout) and starts the server's own command line on it.
"""

import json
import sys
import tempfile
from pathlib import Path

from agentskills_mcp_server.__main__ import main

root = Path(sys.argv[1])
skills = [
    {"id": d.name, "provider": "fs", "options": {"root": str(root)}}
    for d in sorted(root.iterdir())
    if (d / "SKILL.md").is_file()
]
config = {"name": "agentskills-mcp-server", "skills": skills}
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
    json.dump(config, handle)
sys.argv = ["agentskills-mcp-server", "--config", handle.name]
main()
