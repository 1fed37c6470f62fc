"""How a path relative to a skill's directory reaches agno's skill file readers.

agno reads a skill's files with two tools: ``get_skill_reference`` takes a path relative to the
skill's ``references/`` directory, ``get_skill_script`` one relative to ``scripts/``. The port
names a file relative to the skill's directory. :func:`agno_file_call` gives the tool call that
names the same file, so a path climbing out of the skill climbs out exactly as far through
agno's own reader; an absolute path is passed on unchanged.
"""

from __future__ import annotations

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


def agno_result_text(result: object, field: str) -> tuple[str, bool]:
    """``(text, refused)`` of an agno skill tool's JSON result: its ``field``, or its ``error``.

    The skill tools answer with a JSON object; a refusal is one with an ``error`` member.
    """
    if not isinstance(result, dict):
        return str(result), False
    if "error" in result:
        return str(result["error"]), True
    return str(result.get(field, "")), False


def agno_instructions_text(result: Mapping[str, object]) -> str:
    """What ``get_skill_instructions`` tells the model, one member a line, instructions first."""
    lines = [str(result.get("instructions", ""))]
    lines += [f"{key}: {value}" for key, value in result.items() if key != "instructions"]
    return "\n".join(lines)
