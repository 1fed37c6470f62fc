"""How a path relative to a skill's directory reaches agno's skill file readers.

agno reads a skill's files with two tools: ``get_skill_reference`` takes a path relative to the
skill's ``references/`` directory, ``get_skill_script`` one relative to ``scripts/``. The port
names a file relative to the skill's directory. :func:`agno_file_call` gives the tool call that
names the same file, so a path climbing out of the skill climbs out exactly as far through
agno's own reader; an absolute path is passed on unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

__all__ = ["agno_file_call", "agno_instructions_text", "agno_result_text"]


def agno_file_call(skill: str, path: str) -> tuple[str, Mapping[str, object]]:
    """The agno tool call reading ``path`` (relative to the skill's directory) of ``skill``."""
    if path.startswith("scripts/"):
        script = path.removeprefix("scripts/")
        return "get_skill_script", {"skill_name": skill, "script_path": script, "execute": False}
    if path.startswith("references/"):
        reference = path.removeprefix("references/")
    elif path.startswith("/"):
        reference = path
    else:
        reference = f"../{path}"
    return "get_skill_reference", {"skill_name": skill, "reference_path": reference}


def agno_result_text(result: object, field: str) -> str:
    """What the model reads in an agno skill tool's JSON answer: its ``field``, or all of it.

    The skill tools answer with a JSON object; a refusal is one with an ``error`` member, handed to
    the model as the tool's result, so it stays a result here: the whole answer, as JSON.
    """
    if not isinstance(result, dict):
        return str(result)
    if "error" in result:
        return json.dumps(result)
    return str(result.get(field, ""))


def agno_instructions_text(result: Mapping[str, object]) -> str:
    """What ``get_skill_instructions`` tells the model, one member a line, instructions first."""
    lines = [str(result.get("instructions", ""))]
    lines += [f"{key}: {value}" for key, value in result.items() if key != "instructions"]
    return "\n".join(lines)
