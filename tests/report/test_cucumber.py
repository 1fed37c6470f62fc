"""Cucumber JSON completed as Cucumber reads it: steps after a failure skipped, reasons kept.

The document is shaped as pytest-bdd writes it (tags without ``@``, every step after a failing
one ``failed`` too, a skipped scenario's steps ``skipped`` without a word); the whole-run check
is in tests/suite/test_gate.py.
"""

from __future__ import annotations

from typing import Any

from skill_conformance.verdicts.cucumber import complete
from skill_conformance.verdicts.results import ScenarioResult
from skill_conformance.verdicts.verdict import Verdict


def _step(status: str, message: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"status": status, "duration": 0}
    if message is not None:
        result["error_message"] = message
    return {"keyword": "Given", "name": "x", "line": 1, "result": result}


def _document(*elements: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {
            "tags": [{"name": "capability:skill-tools", "line": 2}],
            "elements": [
                {"name": scenario, "tags": [{"name": f"id:{scenario}", "line": 9}], "steps": s}
                for scenario, s in elements
            ],
        }
    ]


def _result(scenario: str, verdict: Verdict, reason: str = "") -> ScenarioResult:
    return ScenarioResult("skill-tools", "r", "R", scenario, scenario, verdict, reason)


def _statuses(document: Any) -> dict[str, list[tuple[str, str | None]]]:
    return {
        element["name"]: [
            (s["result"]["status"], s["result"].get("error_message")) for s in element["steps"]
        ]
        for feature in document
        for element in feature["elements"]
    }


def test_steps_after_the_failing_one_are_skipped_not_failed() -> None:
    steps = [_step("passed"), _step("failed", "boom"), _step("failed", ""), _step("failed", "")]
    document = complete(_document(("crashes", steps)), {})
    assert _statuses(document)["crashes"] == [
        ("passed", None),
        ("failed", "boom"),
        ("skipped", None),
        ("skipped", None),
    ]


def test_a_not_applicable_scenario_carries_its_reason() -> None:
    results = {
        "skill-tools/na": _result("na", Verdict.NOT_APPLICABLE, "gate: gate keeps no pool"),
        "skill-tools/ok": _result("ok", Verdict.PASSED),
    }
    document = complete(
        _document(("na", [_step("skipped"), _step("skipped")]), ("ok", [_step("passed")])),
        results,
    )
    found = _statuses(document)
    assert found["na"] == [("skipped", "not applicable: gate: gate keeps no pool")] * 2
    assert found["ok"] == [("passed", None)]


def test_a_document_of_another_shape_is_left_as_it_is() -> None:
    assert complete({"not": "a list"}, {}) == {"not": "a list"}
    assert complete([1, {"elements": []}], {}) == [1, {"elements": []}]
