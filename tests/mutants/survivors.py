"""What each mutmut mutant changes, in one line, and whether it only touches a message.

``make mutation`` prints this beside every mutant left alive, so that a reader of its output (and
of ``docs/mutation.md``) sees what escaped without running ``mutmut show`` on each. mutmut writes
every mutant of a function next to the original (``x_name__mutmut_orig``, ``x_name__mutmut_N``) in
``mutants/``; the two syntax trees are compared and the first differing nodes shown.

A mutant is a *message* mutant when every change it makes puts text for text (a string literal,
or a literal part of an f-string) inside an exception being raised or a call whose name says it
makes a message or a problem (``...Error``, ``report``, ``warn``, ``_problem``...): it rewords a
message, never drops it, never changes a value it names (a skill, a path, a line), nor what is
refused, returned or offered. The specs fix what a message must name, not its words, so these are
set apart in the report, and still counted.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^(x.*)__mutmut_(\d+|orig)$")
_MESSAGE_CALL = re.compile(
    r"(Error|SkipSkill|_problem|report|warn|_reason|_failure|_outside|_one_line|_too_large)$"
)


@dataclass(frozen=True)
class Change:
    """What one mutant changes: a line to show, and whether only a message's text."""

    summary: str
    message_only: bool


@dataclass(frozen=True)
class _Difference:
    ancestors: tuple[ast.AST, ...]
    before: object
    after: object


def changes(mutants_dir: Path, package: str) -> dict[str, Change]:
    """Every mutant under ``mutants_dir`` (mutmut's ``mutants/`` tree of ``package``), by name."""
    found: dict[str, Change] = {}
    for file in sorted(mutants_dir.glob("*.py")):
        functions = _functions(ast.parse(file.read_text()))
        for (base, number), function in functions.items():
            original = functions.get((base, "orig"))
            if number == "orig" or original is None:
                continue
            differences: list[_Difference] = []
            _compare(original, function, (), differences)
            name = f"{package}.{file.stem}.{base}__mutmut_{number}"
            found[name] = Change(
                summary=" | ".join(_show(difference) for difference in differences[:2]),
                message_only=bool(differences) and all(map(_in_message, differences)),
            )
    return found


def _functions(tree: ast.AST) -> dict[tuple[str, str], ast.AST]:
    functions: dict[tuple[str, str], ast.AST] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if match := _NAME.match(node.name):
            functions[match[1], match[2]] = node
    return functions


def _compare(
    before: object, after: object, ancestors: tuple[ast.AST, ...], out: list[_Difference]
) -> None:
    if type(before) is not type(after):
        out.append(_Difference(ancestors, before, after))
    elif isinstance(before, ast.AST):
        for field in before._fields:
            if field == "name" and isinstance(before, ast.FunctionDef | ast.AsyncFunctionDef):
                continue  # the mutant's own name
            _compare(
                getattr(before, field, None), getattr(after, field, None), (*ancestors, before), out
            )
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            out.append(_Difference(ancestors, before, after))
        else:
            for one, other in zip(before, after, strict=True):
                _compare(one, other, ancestors, out)
    elif before != after:
        out.append(_Difference(ancestors, before, after))


def _in_message(difference: _Difference) -> bool:
    """Whether the difference rewords a message: text for text, inside a message being made."""
    if not (_is_text(difference.before) and _is_text(difference.after)):
        return False
    for node in difference.ancestors:
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            function = node.func
            name = (
                function.attr
                if isinstance(function, ast.Attribute)
                else getattr(function, "id", "")
            )
            if _MESSAGE_CALL.search(name):
                return True
    return False


def _is_text(value: object) -> bool:
    """A string written in the code: a literal or an f-string (or one of its literal parts)."""
    return isinstance(value, str | ast.JoinedStr) or (
        isinstance(value, ast.Constant) and isinstance(value.value, str)
    )


def _show(difference: _Difference) -> str:
    statement = next(
        (node for node in reversed(difference.ancestors) if isinstance(node, ast.stmt)), None
    )
    where = ast.unparse(statement).split("\n")[0][:80] if statement is not None else ""
    return f"{_text(difference.before)} -> {_text(difference.after)}  (in `{where}`)"


def _text(value: object) -> str:
    if isinstance(value, ast.operator | ast.cmpop | ast.boolop | ast.unaryop):
        text = type(value).__name__  # `+`, `<=`, `and`: unparse gives nothing for them alone
    elif isinstance(value, ast.AST):
        text = ast.unparse(value)
    elif isinstance(value, list):
        text = "[" + ", ".join(_text(item) for item in value) + "]"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
