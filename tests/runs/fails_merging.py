"""A pytest plugin that fails the scenario "SkillManagerCap inherits tool merging" after it ran."""

from __future__ import annotations

from collections.abc import Generator

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None]:
    """Let the scenario run, then fail it, so that its world is that of a scenario that failed."""
    result = yield
    if "tool_merging" in item.name:
        pytest.fail("failed on purpose by tests.runs.fails_merging")
    return result
