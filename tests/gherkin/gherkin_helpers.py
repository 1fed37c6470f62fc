"""Helpers shared by the generator tests (a plain module: ``conftest`` is not importable)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gherkin.parser import Parser
from gherkin.token_scanner import TokenScanner

from skill_conformance.commands.main import main

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str | Path) -> Run:
    """Call ``main`` in-process and capture what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return Run(code, out.getvalue(), err.getvalue())


def parse_gherkin(text: str) -> dict[str, Any]:
    """Parse feature text with gherkin-official (the parser pytest-bdd uses)."""
    document: dict[str, Any] = Parser().parse(TokenScanner(text))
    return document


def gherkin_scenarios(text: str) -> list[dict[str, Any]]:
    """Every scenario of a feature, in order, with ``rule`` set to its rule."""
    feature = parse_gherkin(text)["feature"]
    found: list[dict[str, Any]] = []
    for child in feature["children"]:
        rule = child.get("rule")
        if rule:
            for inner in rule["children"]:
                if inner.get("scenario"):
                    found.append({**inner["scenario"], "rule": rule})
        elif child.get("scenario"):
            found.append({**child["scenario"], "rule": None})
    return found


def write_spec(root: Path, capability: str, text: str) -> Path:
    """Write ``root/<capability>/spec.md`` and return its path."""
    path = root / capability / "spec.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def snapshot_tree(directory: Path) -> dict[str, bytes]:
    """Map every file under ``directory`` to its bytes."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }
