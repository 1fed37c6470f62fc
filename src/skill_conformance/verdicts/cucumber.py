"""Cucumber JSON (pytest-bdd's ``--cucumberjson``) as Cucumber reads it, completed once written.

pytest-bdd marks every step after a failing one ``failed`` as well, and gives a skipped scenario
no reason. Once it has written the file, the suite rewrites it: a step after the first failing
one is ``skipped`` (it never ran), and each step of a scenario that was not applicable, or that
the adapter could not drive, is ``skipped`` with that verdict and its reason as the message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from skill_conformance.atomic import write_atomic
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["CucumberCompletion", "complete"]

_SKIPPED_WITH_REASON = (Verdict.NOT_APPLICABLE, Verdict.CANNOT_DRIVE)


def _tag(tags: object, key: str) -> str:
    for tag in tags if isinstance(tags, list) else []:
        name = str(tag.get("name", "")).lstrip("@") if isinstance(tag, dict) else ""
        if name.startswith(f"{key}:"):
            return name.partition(":")[2]
    return ""


def _complete_steps(steps: list[dict[str, Any]], result: ScenarioResult | None) -> None:
    if result is not None and result.verdict in _SKIPPED_WITH_REASON:
        for step in steps:
            step["result"] = {
                **step.get("result", {}),
                "status": "skipped",
                "error_message": f"{result.verdict.prose}: {result.reason}",
            }
        return
    failed = False
    for step in steps:
        outcome = step.get("result", {})
        if failed and outcome.get("status") == "failed":
            outcome["status"] = "skipped"
            outcome.pop("error_message", None)
        failed = failed or outcome.get("status") == "failed"


def complete(document: object, results: Mapping[str, ScenarioResult]) -> object:
    """``document`` (Cucumber JSON) completed in place, ``results`` by scenario key."""
    for feature in document if isinstance(document, list) else []:
        if not isinstance(feature, dict):
            continue
        capability = _tag(feature.get("tags"), "capability")
        for element in feature.get("elements", []):
            key = f"{capability}/{_tag(element.get('tags'), 'id')}"
            steps = [step for step in element.get("steps", []) if isinstance(step, dict)]
            _complete_steps(steps, results.get(key))
    return document


class CucumberCompletion:
    """The plugin that completes the run's Cucumber JSON after pytest-bdd has written it."""

    def __init__(self, results: Callable[[], Mapping[str, ScenarioResult]]) -> None:
        self.results = results

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Rewrite ``--cucumberjson``'s file, if this process wrote one."""
        config = session.config
        target = getattr(config.option, "cucumber_json_path", None)
        if not target or hasattr(config, "workerinput"):
            return
        path = Path(target).expanduser()
        try:
            document = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):  # none written (a refused run): nothing to complete
            return
        text = json.dumps(complete(document, self.results()))
        write_atomic(path, text.encode("utf-8"))
