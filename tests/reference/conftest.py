"""Fixtures of the reference implementation's own tests: skills on disk, the test MCP server."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from reference_helpers import ServerEntry, SkillWriter, write_skill


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "skills"
    directory.mkdir()
    return directory


@pytest.fixture
def make_skill(skills_dir: Path) -> SkillWriter:
    def make(name: str, body: str | None = None, **kwargs: Any) -> Path:
        return write_skill(skills_dir, name, body, **kwargs)

    return make


@pytest.fixture
def mcp_log(tmp_path: Path) -> Path:
    return tmp_path / "mcp.log"


@pytest.fixture
def server_entry(mcp_log: Path) -> ServerEntry:
    """An ``mcp-servers`` entry starting the suite's test MCP server, logging to ``mcp_log``."""

    def entry(
        label: str, tools: Sequence[str] = ("echo",), skills: Sequence[str] = ()
    ) -> dict[str, Any]:
        args = ["-m", "skill_conformance.testing.mcp_server", "--label", label]
        args += ["--log", str(mcp_log)]
        for tool in tools:
            args += ["--tool", tool]
        for skill in skills:
            args += ["--skill", skill]
        return {"command": sys.executable, "args": args}

    return entry


ToolModule = Any


@pytest.fixture
def tool_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ToolModule:
    """Write a fresh module of functions ``name() -> "name"``; returns the module's name."""
    modules = tmp_path / "modules"
    modules.mkdir()
    monkeypatch.syspath_prepend(str(modules))
    written: list[str] = []

    def write(*names: str, header: str = "") -> str:
        module = f"sc_reference_tools_{len(written)}_{abs(hash(str(tmp_path))) % 10**8}"
        body = "".join(f"\n\ndef {name}() -> str:\n    return {name!r}\n" for name in names)
        (modules / f"{module}.py").write_text(header + body)
        written.append(module)
        return module

    yield write
    for module in written:
        sys.modules.pop(module, None)
