"""Expectations files: the scenarios an implementation version is known to fail, with why.

An expectations file is TOML::

    implementation = "agentpool"
    version = "2.9.5+gb686ede72"

    [expected-failures]
    "skill-tools/load-skill-tool-shall-resolve-skills-by-bare-name-or-uri.skill-not-found" = \
        "returns a string instead of raising"

Each key is ``{capability}/{id}``: the feature's ``@capability`` tag and the scenario's ``@id``
tag. The suite applies each entry as a strict xfail, so a known failure that starts passing fails
the run and the file cannot go stale. Files live at ``expectations/<implementation>/<version>.toml``
(:func:`default_path`), or anywhere with ``--expectations FILE``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from skill_conformance.atomic import write_atomic
from skill_conformance.bounded import read_regular
from skill_conformance.errors import InputError

__all__ = [
    "Expectations",
    "ExpectationsError",
    "default_path",
    "dump_expectations",
    "load_expectations",
    "scenario_key",
    "write_expectations",
]

_SECTION = "expected-failures"
_KEY = re.compile(r"[a-z0-9-]+/[a-z0-9.-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


class ExpectationsError(InputError):
    """An expectations file that cannot be read; the message is one line naming the file."""


@dataclass(frozen=True)
class Expectations:
    """Known failures of one implementation version: scenario key to one-line reason."""

    implementation: str
    version: str
    reasons: Mapping[str, str] = field(default_factory=dict)


def scenario_key(capability: str, scenario_id: str) -> str:
    """The key of a scenario in an expectations file."""
    return f"{capability}/{scenario_id}"


MAX_EXPECTATIONS_BYTES = 16 * 1024 * 1024
"""The largest expectations file read, in bytes."""


def default_path(root: Path, implementation: str, version: str) -> Path:
    """Where the expectations of ``implementation`` at ``version`` live under ``root``."""
    folder = root / "expectations" / _UNSAFE.sub("_", implementation)
    return folder / f"{_UNSAFE.sub('_', version)}.toml"


def load_expectations(path: Path) -> Expectations:
    """Read and check an expectations file; raise :class:`ExpectationsError` on any defect.

    The file is read as :mod:`skill_conformance.bounded` reads what it is given: a regular file of
    at most :data:`MAX_EXPECTATIONS_BYTES`.
    """
    try:
        data = tomllib.loads(read_regular(path, MAX_EXPECTATIONS_BYTES).decode("utf-8"))
    except OSError as error:
        raise ExpectationsError(f"{path}: cannot read: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ExpectationsError(
            f"{path}: not UTF-8: byte {error.start} cannot be decoded"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ExpectationsError(f"{path}: not valid TOML: {error}") from error
    except RecursionError:
        raise ExpectationsError(f"{path}: not valid TOML: nested too deeply") from None
    except ValueError as error:  # a number of more digits than int() converts
        raise ExpectationsError(f"{path}: not valid TOML: {str(error)[:120]}") from None
    implementation = _string(path, data, "implementation")
    version = _string(path, data, "version")
    unknown = sorted(set(data) - {"implementation", "version", _SECTION})
    if unknown:
        raise ExpectationsError(f"{path}: unknown key {unknown[0]!r}")
    section = data.get(_SECTION, {})
    if not isinstance(section, dict):
        raise ExpectationsError(f"{path}: [{_SECTION}] must be a table")
    reasons: dict[str, str] = {}
    for key, reason in section.items():
        if not _KEY.fullmatch(key):
            raise ExpectationsError(
                f"{path}: [{_SECTION}] key {key!r} is not 'capability/scenario-id'"
            )
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
            raise ExpectationsError(f"{path}: [{_SECTION}] {key!r} needs a one-line reason")
        reasons[key] = reason.strip()
    return Expectations(implementation, version, reasons)


def _string(path: Path, data: Mapping[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ExpectationsError(f"{path}: {key!r} must be a non-empty string")
    return value


def dump_expectations(expectations: Expectations) -> str:
    """The TOML text of ``expectations``, keys sorted, one entry per line."""
    lines = [
        f"implementation = {_quote(expectations.implementation)}",
        f"version = {_quote(expectations.version)}",
        "",
        f"[{_SECTION}]",
    ]
    reasons = expectations.reasons
    lines += [f"{_quote(key)} = {_quote(reasons[key])}" for key in sorted(reasons)]
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def write_expectations(path: Path, expectations: Expectations) -> None:
    """Write ``expectations`` to ``path`` atomically (a reader sees the old file or the new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, dump_expectations(expectations).encode("utf-8"))
