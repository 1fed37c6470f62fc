from __future__ import annotations

import json
import os.path
from pathlib import Path

import pytest

from skill_conformance.reference.errors import ToolImportError
from skill_conformance.reference.importer import import_tool, tool_name


def test_imports_the_function_and_names_it_by_its_own_name() -> None:
    assert import_tool("json:loads") is json.loads
    assert tool_name(import_tool("os.path:join")) == "join"
    assert import_tool("os.path:join") is os.path.join


def test_the_module_part_ends_at_the_last_colon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sc_ref_alias.py").write_text("def real():\n    return 1\n\nalias = real\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    function = import_tool("sc_ref_alias:alias")
    assert tool_name(function) == "real"
    with pytest.raises(ToolImportError, match="'json:x'"):
        import_tool("json:x:loads")


@pytest.mark.parametrize(
    ("path", "match"),
    [
        ("no_such_module_sc:missing", "cannot import 'no_such_module_sc'"),
        ("json:no_such_function", "has no 'no_such_function'"),
        ("json:__name__", "not callable"),
        ("json", "not 'module:function'"),
        (":loads", "not 'module:function'"),
        ("json:", "not 'module:function'"),
    ],
)
def test_failures_name_the_import_path(path: str, match: str) -> None:
    with pytest.raises(ToolImportError, match=match):
        import_tool(path)


def test_a_callable_without_a_name_is_named_after_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sc_ref_partial.py").write_text("import functools\ntool = functools.partial(int)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert tool_name(import_tool("sc_ref_partial:tool")) == "partial"
