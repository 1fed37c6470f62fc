"""What the port exports: a porter imports from it, so its ``__all__`` names all it defines.

The layers of docs/architecture.md and the absence of import cycles are checked by ``make lint``
(``lint-imports``, import-linter; its contracts are in pyproject.toml).
"""

from __future__ import annotations

import ast
from pathlib import Path

import skill_conformance.port as port


def _public_names(module_file: Path) -> set[str]:
    """The public names a module defines itself (classes, functions, constants), not imports."""
    names = set()
    for node in ast.parse(module_file.read_text("utf-8")).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def test_the_port_exports_everything_it_defines() -> None:
    assert port.__file__ is not None
    assert set(port.__all__) == _public_names(Path(port.__file__))
    assert all(hasattr(port, name) for name in port.__all__)
    assert "ResolvedSkill" in port.__all__
