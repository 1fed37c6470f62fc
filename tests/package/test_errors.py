"""One base for the errors the suite reports to its user, and what a command does with them."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import skill_conformance
from skill_conformance.commands import main as main_module
from skill_conformance.errors import ConformanceError, ImplementationError, InputError
from skill_conformance.runtime.loading import AdapterLoadError

PACKAGE = Path(skill_conformance.__file__).parent

OUTSIDE = {
    "skill_conformance.port": "an implementation raises the port's errors; it imports no suite",
    "skill_conformance.reference": "an implementation, with errors of its own",
}
"""Packages whose exceptions are not the suite's to report."""

NOT_SHOWN = {
    "skill_conformance.testing.launcher.Unavailable": "control flow: no zygote, serve alone",
}
"""Exceptions that never reach a user."""


def _suite_exceptions() -> list[type[BaseException]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(relative.parts).removesuffix(".__init__")
        if any(name == o or name.startswith(o + ".") for o in OUTSIDE):
            continue
        classes = [
            node.name
            for node in ast.parse(path.read_text("utf-8")).body
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
        ]
        if not classes:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:  # a third party's adapter, without the third party
            missing = error.name or ""
        else:
            missing = ""
        if missing:
            assert not missing.startswith("skill_conformance"), (name, missing)
            assert not any("Error" in c or "Exception" in c for c in classes), (name, classes)
            continue
        for class_name in classes:
            value = getattr(module, class_name)
            exception = inspect.isclass(value) and issubclass(value, Exception)  # not interrupts
            if exception and f"{name}.{class_name}" not in NOT_SHOWN:
                found.append(value)
    return found


def test_every_error_the_suite_reports_shares_one_base() -> None:
    errors = _suite_exceptions()
    assert len(errors) > 10
    assert [e.__qualname__ for e in errors if not issubclass(e, ConformanceError)] == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("skill_conformance.options.OptionError", InputError),
        ("skill_conformance.gherkin.errors.SpecError", InputError),
        ("skill_conformance.verdicts.results.ResultsError", InputError),
        ("skill_conformance.verdicts.expectations.ExpectationsError", InputError),
        ("skill_conformance.runtime.loading.AdapterLoadError", InputError),
        ("skill_conformance.runtime.blocking.ImplementationCrash", ImplementationError),
        ("skill_conformance.runtime.blocking.ImplementationHang", ImplementationError),
        ("skill_conformance.adapters.jsonlines.protocol.ProtocolError", ImplementationError),
        ("skill_conformance.adapters.template.NotImplementedOperation", ImplementationError),
    ],
)
def test_each_error_is_of_its_kind(name: str, kind: type[ConformanceError]) -> None:
    module, _, attribute = name.rpartition(".")
    assert issubclass(getattr(importlib.import_module(module), attribute), kind)


def test_a_command_turns_an_input_error_it_did_not_expect_into_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def generate(_args: object) -> int:
        raise AdapterLoadError("--impl nope: no module named 'nope'")

    monkeypatch.setattr(main_module, "_gherkin", generate)
    assert main_module.main(["gherkin", "--specs", "s", "--out", "o"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "skill-conformance: error: --impl nope: no module named 'nope'\n"
