"""Fixtures of the generator tests."""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


class FeatureSnapshot(SingleFileSnapshotExtension):
    """Store each snapshot as a plain ``.feature`` file, compared byte for byte."""

    _write_mode = WriteMode.BINARY
    file_extension = "feature"


@pytest.fixture
def feature_snapshot(snapshot: Any) -> Any:
    return snapshot.use_extension(FeatureSnapshot)
