"""Every adapter of the registry is complete against ``Implementation``: each member the port's
protocol asks for is defined by its class (or a class it derives from), read from the source, so
that adapters whose implementation is not installed here are checked too."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from skill_conformance.port import Implementation
from skill_conformance.runtime.registry import implementations


def protocol_members() -> set[str]:
    """What the protocol asks: its annotated attributes and its methods."""
    methods = {n for n, v in vars(Implementation).items() if callable(v) and not n.startswith("_")}
    return set(Implementation.__annotations__) | methods


def _class(target: str) -> tuple[ast.ClassDef, Path]:
    module, _, name = target.partition(":")
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    path = Path(spec.origin)
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node, path
    # re-exported by a package's __init__: follow its import
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            return _class(f"{node.module}:{name}")
    raise AssertionError(f"{target}: no class {name}")


def defined(target: str) -> set[str]:
    """The members ``target``'s class defines: class attributes, methods, ``self.x = ...``."""
    node, path = _class(target)
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.Assign):
            names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
    for sub in ast.walk(node):
        targets = sub.targets if isinstance(sub, ast.Assign) else [getattr(sub, "target", None)]
        for target_node in targets:
            if (
                isinstance(target_node, ast.Attribute)
                and isinstance(target_node.value, ast.Name)
                and target_node.value.id == "self"
            ):
                names.add(target_node.attr)
    module = ast.parse(path.read_text("utf-8"))
    for base in node.bases:
        if isinstance(base, ast.Name):
            for imported in ast.walk(module):
                if (
                    isinstance(imported, ast.ImportFrom)
                    and (imported.module or "").startswith("skill_conformance.")
                    and any(a.name == base.id for a in imported.names)
                ):  # the suite's own classes: the standard library's (Protocol) define none
                    names |= defined(f"{imported.module}:{base.id}")
    return names


@pytest.mark.parametrize("name", sorted(implementations()))
def test_every_registered_adapter_defines_what_the_protocol_asks(name: str) -> None:
    assert protocol_members() >= {"name", "version", "unsupported", "cannot_drive", "open", "close"}
    assert sorted(protocol_members() - defined(implementations()[name])) == []


def test_an_adapter_without_close_is_found() -> None:
    lacking = "skill_conformance.adapters.thirdparty.agno:AgnoSystem"
    assert "cannot_drive" not in defined(lacking)
