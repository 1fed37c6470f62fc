"""Host the skills of a folder with the reference's skill manager; say what it offered and its peak.

    python mcp_host_peak.py SKILLS_DIR

Builds the skill manager from SKILLS_DIR, enters it, runs two agent runs (each lists every skill's
tools), exits it, and prints one JSON line: the tools offered in each, the problems reported and the
most memory Python held at once meanwhile, in KiB (``tracemalloc``'s peak: exact where the
process's resident peak varies by 10 MiB from one run to the next).
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

from reference_helpers import offered

from skill_conformance.reference.loader import load_skills
from skill_conformance.reference.manager import SkillManagerCap


async def main(skills_dir: Path) -> None:
    manager = SkillManagerCap(load_skills(skills_dir).skills.values())
    await offered([])  # what a run imports lazily, imported before tracing (slow under it)
    tracemalloc.start()
    async with manager:
        tools = [await offered([manager]) for _ in range(2)]
    peak = tracemalloc.get_traced_memory()[1] // 1024
    print(json.dumps({"offered": tools, "problems": manager.problems, "peak_kib": peak}))


if __name__ == "__main__":
    anyio.run(main, Path(sys.argv[1]))
