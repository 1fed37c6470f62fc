"""The machine-readable results of a conformance run (``--skill-conformance-results FILE``).

A results file is JSON::

    {
      "format": "skill-conformance-results/1",
      "header": {"suite_version": "0.1.0", "spec_digest": "sha256:...",
                 "adapter": {"name": "reference", "version": "0.1.0"}, "impl": "reference"},
      "created": "2026-12-02T17:00:00+00:00",
      "exit_status": 0,
      "counts": {"passed": 55, "not-applicable": 1},
      "scenarios": [
        {"capability": "skill-tools",
         "requirement": {"slug": "load-skill-...", "title": "load_skill tool SHALL ..."},
         "id": "load-skill-....skill-not-found", "name": "Skill not found",
         "verdict": "failed",
         "reason": "the call did not fail; expected a not-found error, observed the text 'x'"}
      ]
    }

A file that contradicts itself is refused, since any verdict read from it could be the wrong one: a
scenario listed twice, ``counts`` that are not the scenarios' own, an exit status of 0 beside a
verdict that fails the run.

A run stopped by Ctrl-C or SIGTERM adds ``"interrupted": true`` (and exit status 2): its
``scenarios`` are only those that ended before the interrupt; the one in flight has no verdict.

``verdict`` is a :class:`~skill_conformance.verdicts.verdict.Verdict`'s value. ``reason`` is, on
one line and whole, what a failed scenario's step expected and observed, the error of an errored
one, and the declared reason of an expected failure or a not-applicable scenario.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from skill_conformance.atomic import write_atomic
from skill_conformance.bounded import read_regular
from skill_conformance.errors import InputError
from skill_conformance.verdicts.verdict import Verdict

__all__ = [
    "FORMAT",
    "Header",
    "Results",
    "ResultsError",
    "ScenarioResult",
    "load_results",
    "schema",
    "write_results",
]

FORMAT = "skill-conformance-results/1"


class ResultsError(InputError):
    """A results file that cannot be read; the message is one line naming the file."""


@dataclass(frozen=True)
class Header:
    """What a run tested: the suite, the specs it was generated from, the adapter."""

    suite_version: str
    spec_digest: str
    adapter: str
    adapter_version: str
    impl: str

    def line(self) -> str:
        """The header on one line, as the run prints it."""
        return (
            f"skill-conformance {self.suite_version}, specs {self.spec_digest[:19]}, "
            f"adapter {self.adapter} {self.adapter_version} (--impl {self.impl})"
        )

    def properties(self) -> list[tuple[str, str]]:
        """The header as name/value pairs (JUnit XML test suite properties)."""
        return [
            ("skill_conformance_version", self.suite_version),
            ("spec_digest", self.spec_digest),
            ("adapter", self.adapter),
            ("adapter_version", self.adapter_version),
            ("impl", self.impl),
        ]


@dataclass(frozen=True)
class ScenarioResult:
    """The verdict of one scenario."""

    capability: str
    requirement_slug: str
    requirement_title: str
    id: str
    name: str
    verdict: Verdict
    reason: str = ""
    raw: Verdict | None = None
    """For an expected failure, what the scenario really did: failed or errored."""
    observed: str = ""
    """For an expected failure, the reason of its raw verdict (the expectation's is ``reason``)."""

    @property
    def key(self) -> str:
        """``{capability}/{id}``: the scenario's key, as expectations files use it."""
        return f"{self.capability}/{self.id}"

    def to_json(self) -> dict[str, object]:
        """The result as a results file holds it."""
        entry: dict[str, object] = {
            "capability": self.capability,
            "requirement": {"slug": self.requirement_slug, "title": self.requirement_title},
            "id": self.id,
            "name": self.name,
            "verdict": self.verdict.value,
            "reason": self.reason,
        }
        if self.raw is not None:
            entry.update(raw=self.raw.value, observed=self.observed)
        return entry

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> ScenarioResult:
        """The inverse of :meth:`to_json`; ``ValueError`` for an unknown verdict."""
        try:
            verdict = Verdict(entry["verdict"])
        except ValueError:
            raise ValueError(f"unknown verdict {entry['verdict']!r} of {entry['id']!r}") from None
        return cls(
            capability=str(entry["capability"]),
            requirement_slug=str(entry["requirement"]["slug"]),
            requirement_title=str(entry["requirement"]["title"]),
            id=str(entry["id"]),
            name=str(entry["name"]),
            verdict=verdict,
            reason=str(entry.get("reason", "")),
            raw=Verdict(entry["raw"]) if "raw" in entry else None,
            observed=str(entry.get("observed", "")),
        )


@dataclass(frozen=True)
class Results:
    """A whole run: its header and one result per scenario."""

    header: Header
    scenarios: tuple[ScenarioResult, ...]
    created: str = ""
    exit_status: int | None = None
    interrupted: bool = False
    """The run was stopped (Ctrl-C, SIGTERM): :attr:`scenarios` holds only those that ended."""

    def counts(self) -> Counter[Verdict]:
        """How many scenarios got each verdict."""
        return Counter(result.verdict for result in self.scenarios)

    def to_json(self) -> dict[str, object]:
        """The JSON document of this run."""
        counts = self.counts()
        return {
            "format": FORMAT,
            "header": {
                "suite_version": self.header.suite_version,
                "spec_digest": self.header.spec_digest,
                "adapter": {"name": self.header.adapter, "version": self.header.adapter_version},
                "impl": self.header.impl,
            },
            "created": self.created,
            "exit_status": self.exit_status,
            **({"interrupted": True} if self.interrupted else {}),
            "counts": {verdict.value: counts[verdict] for verdict in Verdict if counts[verdict]},
            "scenarios": [result.to_json() for result in self.scenarios],
        }


def write_results(path: Path, results: Results) -> None:
    """Write ``results`` to ``path`` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results.to_json(), indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8"))


MAX_RESULTS_BYTES = 256 * 1024 * 1024
"""The largest results file read, in bytes."""
_MAX_DIGITS = 32
"""The most digits of a number read from a results file (the schema bounds every number)."""


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > _MAX_DIGITS:
        raise _NumberError(f"a number of {len(digits):,} digits")
    return int(digits)


class _NumberError(ValueError):
    """A number in a results file too long to be one the schema admits."""


def schema() -> dict[str, Any]:
    """The JSON Schema of the results format (``results.schema.json``, published in docs/)."""
    text = resources.files(__package__).joinpath("results.schema.json").read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def _invalid(data: object) -> str | None:
    """Where ``data`` breaks the schema, and how, on one line; ``None`` when it does not."""
    import jsonschema  # only a command reading results files needs it

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema()).iter_errors(data)
    )
    if error is None:
        return None
    what = error.message if len(error.message) <= 200 else f"{error.message[:200]}…"
    return f"{error.json_path}: {what}"


def load_results(path: Path) -> Results:
    """Read a results file; raise :class:`ResultsError` naming the file and the defect.

    The file is read as :mod:`skill_conformance.bounded` reads what it is given (a regular file,
    at most :data:`MAX_RESULTS_BYTES`) and checked against :func:`schema` before it is used.
    """
    try:
        data = json.loads(read_regular(path, MAX_RESULTS_BYTES).decode("utf-8"), parse_int=_integer)
    except OSError as error:
        raise ResultsError(f"{path}: cannot read: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ResultsError(f"{path}: not UTF-8: byte {error.start} cannot be decoded") from None
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}: not JSON: {error}") from error
    except _NumberError as error:
        raise ResultsError(f"{path}: not a {FORMAT} file: {error}") from None
    except RecursionError:
        raise ResultsError(f"{path}: not a {FORMAT} file: nested too deeply") from None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        invalid = _invalid(data)
        if invalid is not None:
            raise ResultsError(f"{path}: not a {FORMAT} file: {invalid}")
    try:
        return _parse(data)
    except _InconsistentError as error:
        raise ResultsError(f"{path}: contradicts itself: {error}; refused") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ResultsError(f"{path}: not a {FORMAT} file: {error!r:.200}") from error


class _InconsistentError(ValueError):
    """A results file well formed but contradicting itself; the message says how."""


def _parse(data: object) -> Results:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"format is not {FORMAT!r}")
    head = data["header"]
    header = Header(
        suite_version=str(head["suite_version"]),
        spec_digest=str(head["spec_digest"]),
        adapter=str(head["adapter"]["name"]),
        adapter_version=str(head["adapter"]["version"]),
        impl=str(head.get("impl", head["adapter"]["name"])),
    )
    scenarios = [ScenarioResult.from_json(entry) for entry in data["scenarios"]]
    status = data.get("exit_status")
    _check_consistent(scenarios, data.get("counts"), status)
    return Results(
        header=header,
        scenarios=tuple(scenarios),
        created=str(data.get("created", "")),
        exit_status=status if isinstance(status, int) else None,
        interrupted=data.get("interrupted") is True,
    )


def _check_consistent(scenarios: list[ScenarioResult], counts: object, exit_status: object) -> None:
    """Raise :class:`_InconsistentError` naming the first contradiction of a results file."""
    keys = Counter(result.key for result in scenarios)
    for key, times in keys.items():
        if times > 1:
            verdicts = ", then ".join(r.verdict.value for r in scenarios if r.key == key)
            raise _InconsistentError(f"scenario {key!r} is listed {times} times ({verdicts})")
    if counts is not None:
        if not isinstance(counts, dict):
            raise _InconsistentError("counts is not a mapping of verdicts to numbers")
        own = Counter(result.verdict.value for result in scenarios)
        for verdict in sorted(set(counts) | set(own)):
            if counts.get(verdict, 0) != own[verdict]:
                raise _InconsistentError(
                    f"counts say {counts.get(verdict, 0)} {verdict}, the scenarios {own[verdict]}"
                )
    bad = next((result for result in scenarios if result.verdict.bad), None)
    if exit_status == 0 and bad is not None:
        raise _InconsistentError(f"exit status 0, yet scenario {bad.key!r} is {bad.verdict.value}")
