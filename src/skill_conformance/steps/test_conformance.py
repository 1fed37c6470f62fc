"""Bind every scenario of the generated features to pytest, once."""

from pytest_bdd import scenarios

from skill_conformance.bundled import features_dir

scenarios(str(features_dir()))
