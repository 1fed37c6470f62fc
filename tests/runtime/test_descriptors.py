"""Counting the process's open file descriptors, as the descriptor-leak scenario does."""

from __future__ import annotations

import os

from skill_conformance.runtime.descriptors import open_descriptors


def test_a_descriptor_left_open_is_counted_and_one_closed_is_not() -> None:
    before = open_descriptors()
    leaked = os.open(os.devnull, os.O_RDONLY)
    try:
        assert open_descriptors() == before + 1
    finally:
        os.close(leaked)
    assert open_descriptors() == before
