"""``make mutation``: mutmut over ``reference/``, judged by the scenarios alone, then with tests.

    uv run python tests/mutants/mutation_report.py [--max-children N] [--only PATTERN ...]

A regression gate is worth what its *scenarios* catch: only they travel to another
implementation. So the first run lets only ``pytest steps`` (the conformance scenarios) decide
whether a mutant is killed, as ``[tool.mutmut]`` in ``pyproject.toml`` says; its kill rate is
printed first, with each survivor and what it changes (:mod:`tests.mutants.survivors`), and the
rate over the mutants that change more than a message. The second run gives those survivors to the
reference's own unit tests (``tests/reference``) alone: a mutant they kill is killed by the two
together, so the second rate is that of ``steps`` and ``tests/reference`` combined. Each run works
in its own copy under ``build/mutation/`` and leaves ``scenarios.json`` and ``together.json`` there;
every test MCP server of both is forked by one zygote. A line of progress is printed every 30 s.
``--only`` bounds the run to the mutants whose names match a pattern (mutmut's own, fnmatch:
``skill_conformance.reference.uri.*``), as CI does. The scenarios' kill rate is reported against
its aim, 90 % (below it, the line says so: a figure, as ``make bench``'s); the exit status is 2
when a mutmut run fails (the tool broke), else 0.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.mutants.survivors import Change

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "mutation"
COPIED = ("src", "features", "openspec", "expectations", "tests", "pyproject.toml")
SECTION = re.compile(r"^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", re.M | re.S)
"""``[tool.mutmut]`` of pyproject.toml, whole: each copy gets its own."""
SCENARIOS = (
    ["src/skill_conformance/steps/test_conformance.py"],
    # What `skill-conformance run` gives pytest: the suite's own configuration, not the project's
    # (whose --strict-markers refuses the features' tags), and the implementation to drive.
    [
        "-c",
        "src/skill_conformance/runtime/suite.ini",
        "--noconftest",
        "--skill-conformance-impl=reference",
    ],
)
"""The scenarios' run: its test selection, and the arguments every pytest run of mutmut's gets."""
NOT_KILLED = ("survived", "no tests", "suspicious", "not checked", "segfault")
THRESHOLD = 90.0
UNIT_DESELECTED = (
    "--deselect",
    "tests/reference/test_reference_import_isolation.py"
    "::test_a_real_interrupt_while_waiting_is_not_swallowed",
    "--deselect",
    "tests/reference/test_reference_mcp_isolation.py"
    "::test_an_import_that_hangs_does_not_stall_the_event_loop",
)
"""Two tests that pass under pytest but fail in mutmut's clean run, mutants or none: one sends the
process a real SIGINT, the other counts event-loop turns while an import hangs for 1 s."""
MUTATED = Path("mutants/src/skill_conformance/reference")
"""Where mutmut writes the mutants of the reference, in a run's copy."""


@dataclass(frozen=True)
class Outcome:
    """Per mutant name, its status (killed, survived, timeout, ...) after one mutmut run."""

    statuses: dict[str, str]

    def killed(self) -> set[str]:
        """Mutants a test failed on, or that ran out of time."""
        return {name for name, status in self.statuses.items() if status in ("killed", "timeout")}

    def not_killed(self) -> dict[str, str]:
        """The others, with their status; skipped mutants (``pragma: no mutate``) are not here."""
        return {n: s for n, s in self.statuses.items() if s in NOT_KILLED}


def _workspace(name: str, selection: list[str], arguments: list[str]) -> Path:
    """A fresh copy of what mutmut needs, with its test selection and pytest arguments set."""
    place = BUILD / name
    shutil.rmtree(place, ignore_errors=True)
    place.mkdir(parents=True)
    for entry in COPIED:
        source = ROOT / entry
        ignore = shutil.ignore_patterns("__pycache__", "mutants")
        if source.is_dir():
            shutil.copytree(source, place / entry, ignore=ignore)
        else:
            shutil.copy2(source, place / entry)
    config = place / "pyproject.toml"
    text = config.read_text()
    section = SECTION.search(text)
    if section is None:
        raise SystemExit("make mutation: pyproject.toml has no [tool.mutmut]")
    settings = tomllib.loads(section.group())["tool"]["mutmut"]
    settings["pytest_add_cli_args_test_selection"] = selection
    settings["pytest_add_cli_args"] = [*settings.get("pytest_add_cli_args", []), *arguments]
    lines = [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    config.write_text(text.replace(section.group(), "\n".join(["[tool.mutmut]", *lines, "", ""])))
    return place


def _mutmut(
    place: Path, names: list[str], children: int, env: dict[str, str], label: str
) -> Outcome | None:
    """Run mutmut in ``place`` (on ``names`` only, if any), printing progress; its outcome.

    ``None`` when mutmut failed (its log's end is printed).
    """
    log = place / "mutmut.log"
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children), *names]
    began = time.monotonic()
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=place, stdout=output, stderr=subprocess.STDOUT, env=env
        )
        while process.poll() is None:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                print(
                    f"  [{label}] {time.monotonic() - began:.0f} s: {_last_status(log)}", flush=True
                )
    if process.returncode != 0:
        sys.stdout.write(log.read_text(errors="replace")[-2000:])
        print(f"make mutation: mutmut failed in {place} (see {log})", flush=True)
        return None
    listing = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=place,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    statuses = {}
    for line in listing.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name and (not names or any(fnmatch.fnmatch(name, pattern) for pattern in names)):
            statuses[name] = status  # mutmut lists every mutant, those left out unchecked
    return Outcome(statuses)


def _last_status(log: Path) -> str:
    """mutmut's latest progress line (``done/total`` and counts), or what it is doing."""
    text = log.read_bytes().decode(errors="replace")
    lines = [part.strip() for part in re.split(r"[\r\n]", text) if part.strip()]
    counted = [line for line in lines if re.match(r"^\S*\s*\d+/\d+", line)]
    return (counted or lines or ["starting"])[-1][:150]


def _rate(killed: int, counted: int) -> float:
    return 100.0 * killed / counted if counted else 0.0


def main() -> int:
    """Both runs, each figure printed as soon as it is known."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only the mutants whose names match (fnmatch), e.g. skill_conformance.reference.uri.*",
    )
    options = parser.parse_args()
    sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
    from skill_conformance.runtime.run import ZYGOTE_VARIABLE
    from skill_conformance.testing.zygote import Zygote
    from tests.mutants.survivors import changes

    zygote = Zygote()
    # Each scenario in mutmut's own process: it learns which scenarios reach which mutant by
    # tracing them there, and it already runs a child per CPU.
    env = {**os.environ, ZYGOTE_VARIABLE: zygote.address}
    try:
        # Both copies now: the second run must mutate the very code the first one did.
        steps_copy = _workspace("steps", *SCENARIOS)
        unit_copy = _workspace("reference", ["tests/reference", *UNIT_DESELECTED], [])
        only = f" ({', '.join(options.only)})" if options.only else ""
        print(f"mutmut, scenarios alone (pytest steps){only}:", flush=True)
        scenarios = _mutmut(steps_copy, options.only, options.max_children, env, "steps")
        if scenarios is None:
            return 2
        what = changes(steps_copy / MUTATED, "skill_conformance.reference")
        alone = _report_scenarios(scenarios, what)
        escaped = sorted(scenarios.not_killed())
        print(f"mutmut, the {len(escaped)} not killed, given to tests/reference alone:", flush=True)
        unit = (
            _mutmut(unit_copy, escaped, options.max_children, env, "tests/reference")
            if escaped  # no names would make mutmut run every mutant again
            else Outcome({})
        )
    finally:
        zygote.stop()
    _report_together(scenarios, unit)
    below = "BELOW its aim" if alone < THRESHOLD else "within its aim"
    print(
        f"scenarios alone: {alone:.1f}%, {below} of {THRESHOLD:g}%"
        + (f"; with tests/reference: {_together(scenarios, unit):.1f}%" if unit else "")
    )
    return 0 if unit is not None else 2


def _report_scenarios(scenarios: Outcome, what: dict[str, Change]) -> float:
    """Print the first run's rate and every mutant it left alive; write them; the rate."""
    counted = len(scenarios.killed()) + len(scenarios.not_killed())
    alone = len(scenarios.killed())
    messages = {name for name in scenarios.statuses if name in what and what[name].message_only}
    judged = counted - len(messages & (scenarios.killed() | set(scenarios.not_killed())))
    judged_killed = alone - len(messages & scenarios.killed())
    print()
    print(
        f"scenarios alone (steps): {alone} killed of {counted} ({_rate(alone, counted):.1f}%); "
        f"not killed ({len(scenarios.not_killed())}; [message]: it changes only a message):"
    )
    for name, status in sorted(scenarios.not_killed().items()):
        change = what.get(name)
        tag = " [message]" if name in messages else ""
        shown = f"\n        {change.summary}" if change else ""
        print(f"    {name}: {status}{tag}{shown}")
    print(
        f"scenarios alone on the {judged} mutants that change more than a message: "
        f"{judged_killed} killed ({_rate(judged_killed, judged):.1f}%)",
        flush=True,
    )
    summary = {
        "counted": counted,
        "killed": alone,
        "not_killed": scenarios.not_killed(),
        "message_only": sorted(messages),
        "changes": {name: what[name].summary for name in scenarios.not_killed() if name in what},
    }
    (BUILD / "scenarios.json").write_text(json.dumps(summary, indent=2, sort_keys=True))
    return _rate(alone, counted)


def _together(scenarios: Outcome, unit: Outcome) -> float:
    counted = len(scenarios.killed()) + len(scenarios.not_killed())
    return _rate(
        len(scenarios.killed()) + len(unit.killed() & set(scenarios.not_killed())), counted
    )


def _report_together(scenarios: Outcome, unit: Outcome | None) -> None:
    """Print the second rate and the mutants neither run killed."""
    if unit is None:
        print("steps and tests/reference: not measured (the second run failed)")
        return
    remaining = {n: s for n, s in scenarios.not_killed().items() if n not in unit.killed()}
    print(
        f"steps and tests/reference: {_together(scenarios, unit):.1f}%; "
        f"not killed ({len(remaining)}):"
    )
    for name in sorted(remaining):
        print(f"    {name}: {remaining[name]}")
    (BUILD / "together.json").write_text(json.dumps(remaining, indent=2, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
