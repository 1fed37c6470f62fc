"""The adapter of ``@mastra/core``'s workspace skills (``--impl mastra``), over JSON lines.

The implementation is a Node.js program (``thirdparty/mastra/skills.mjs``) speaking the suite's
JSON-lines protocol, installed with its lock into ``build/venvs/mastra`` by ``make venvs``; this
adapter is the protocol's own, started on that program. ``SKILL_CONFORMANCE_MASTRA`` names
another directory holding the program, its ``node_modules`` and the Node.js it runs on.
"""

from __future__ import annotations

import os
from pathlib import Path

from skill_conformance.adapters.jsonlines import JsonlinesImplementation

__all__ = ["DIRECTORY_VARIABLE", "MastraImplementation"]

DIRECTORY_VARIABLE = "SKILL_CONFORMANCE_MASTRA"
_BUILT = Path(__file__).resolve().parents[4] / "build" / "venvs" / "mastra"
"""Where ``make venvs`` installs it, in the repository of an editable install."""


class MastraImplementation(JsonlinesImplementation):
    """``@mastra/core`` as ``--impl mastra`` runs it: its name, version and abilities from hello."""

    def __init__(self) -> None:
        directory = Path(os.environ.get(DIRECTORY_VARIABLE) or _BUILT)
        node = directory / "node_modules" / ".bin" / "node"
        program = directory / "skills.mjs"
        if not (node.exists() and program.exists()):
            raise ValueError(
                f"no Mastra environment in {directory}: run `make venvs`, or set "
                f"{DIRECTORY_VARIABLE} to a directory holding skills.mjs and its node_modules"
            )
        super().__init__([str(node), str(program)])
