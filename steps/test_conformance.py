"""Bind every scenario of the generated features to pytest, once."""

from pathlib import Path

from pytest_bdd import scenarios

scenarios(str(Path(__file__).resolve().parent.parent / "features"))
