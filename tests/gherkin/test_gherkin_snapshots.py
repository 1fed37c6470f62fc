"""Snapshots of the features generated from the fixture trees (``--snapshot-update`` to renew)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gherkin_helpers import FIXTURES, gherkin_scenarios, run_cli

GENERATED = [
    ("baseline", "widget-store.feature"),
    ("delta", "widget-store.feature"),
    ("plain", "plain-bullets.feature"),
    ("nested", "group-sub-cap.feature"),
    ("nested", "top.feature"),
]


@pytest.mark.parametrize(("tree", "name"), GENERATED)
def test_generated_feature(tree: str, name: str, tmp_path: Path, feature_snapshot: Any) -> None:
    result = run_cli(
        "gherkin",
        "--specs",
        FIXTURES / tree / "specs",
        "--out",
        tmp_path,
        "--relative-to",
        FIXTURES,
    )
    assert result.code == 0, result.err
    assert result.err == ""
    data = (tmp_path / name).read_bytes()
    assert gherkin_scenarios(data.decode())
    assert data == feature_snapshot


def test_fixture_trees_generate_exactly_the_snapshotted_files(tmp_path: Path) -> None:
    for tree in sorted({t for t, _ in GENERATED}):
        out = tmp_path / tree
        assert run_cli("gherkin", "--specs", FIXTURES / tree / "specs", "--out", out).code == 0
        assert sorted(p.name for p in out.iterdir()) == sorted(n for t, n in GENERATED if t == tree)
