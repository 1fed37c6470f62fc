"""Benchmark: the conformance run against its collect-only run, and what each speed trick saves.

    uv run python benchmarks/conformance_run.py [--impl reference] [--repeat 5] [--aim 2]
        [--python VENV/bin/python]

Each round runs, one right after the other in an order that turns from round to round,
``skill-conformance run --impl IMPL`` with ``--collect-only`` (the interpreter, the imports, the
implementation's loading, parsing the features), the whole run, and the whole run without each
speed trick the suite keeps: the zygote (``--no-zygote``: each test MCP server imports the ``mcp``
SDK itself).
A round runs first unmeasured (it writes the bytecode and assertion-rewrite caches, as a user's
first run does). It prints, for each, the median wall and CPU seconds (child processes included)
and what the trick saves of the run's wall time, with the load average: figures measured side by
side carry from one machine or load to another, single ones do not. A run's median more than
``--aim`` times its collect-only run's is reported, not failed: the figure depends on the machine
and its load. The exit status is 0 unless a command could not run (then 1).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.steps.properties import PROPERTIES
from skill_conformance.steps.property_runner import SHRINK_BUDGET

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {
    "collect-only": ["--collect-only"],
    "run": [],
    "run without the zygote": ["--no-zygote"],
    "run without the properties": ["-k", "not holds_over_its_domain"],
}
"""What each round times: the arguments after ``skill-conformance run --impl IMPL -q``."""


@dataclass(frozen=True)
class Sample:
    """One timed command: wall and CPU seconds, and pytest's closing line."""

    wall: float
    cpu: float
    outcome: str


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(python: str, impl: str, arguments: list[str]) -> Sample:
    command = [python, "-m", "skill_conformance", "run", "--impl", impl, "-q", *arguments]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}  # this checkout's suite, in any venv
    cpu, began = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - began, _children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    lines = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|test)", line)]
    return Sample(wall, cpu, lines[-1].strip("= ") if lines else "")


def main() -> int:
    """Run the rounds; print the table; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="reference")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="run pytest with this interpreter (the real codebase's venv, holding the suite)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--aim", type=float, default=2.0, help="the ratio of run to collect-only aimed at"
    )
    options = parser.parse_args()
    names = list(VARIANTS)
    for name in names:  # unmeasured: caches written
        _time(options.python, options.impl, VARIANTS[name])
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    loads = []
    for round_ in range(options.repeat):
        turned = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in turned:
            samples[name].append(_time(options.python, options.impl, VARIANTS[name]))
        loads.append(os.getloadavg()[0])
        print(f"  round {round_ + 1}/{options.repeat} done", file=sys.stderr, flush=True)
    wall = {name: statistics.median(s.wall for s in found) for name, found in samples.items()}
    cpu = {name: statistics.median(s.cpu for s in found) for name, found in samples.items()}
    print(
        f"skill-conformance run --impl {options.impl}: {options.repeat} interleaved rounds, "
        f"{os.cpu_count()} CPUs, load average {min(loads):.1f} to {max(loads):.1f}"
    )
    print(f"{'':32} {'wall, median':>13} {'CPU, median':>12} {'the trick saves':>16}")
    for name in names:
        saves = ""
        if name.startswith("run without the properties"):
            saves = f"they cost {(wall['run'] - wall[name]) / wall[name]:+.0%}"
        elif name.startswith("run without"):
            saves = f"{(wall[name] - wall['run']) / wall[name]:.0%} of the wall"
        print(f"{name:32} {wall[name]:11.2f} s {cpu[name]:10.2f} s {saves:>16}")
    print(
        "property scenarios: edges + at most N generated examples (+ at most "
        f"{SHRINK_BUDGET} while shrinking a failure), each on a fresh system:"
    )
    print(
        "  "
        + ", ".join(
            f"{p.name} {len(p.edges)}+{p.budget}"
            + (f" x{p.steps} steps" if hasattr(p, "steps") else "")
            for p in PROPERTIES.values()
        )
    )
    ratio = wall["run"] / wall["collect-only"]
    outcome = samples["run"][-1].outcome
    above = "ABOVE its aim" if ratio > options.aim else "within its aim"
    print(f"run / collect-only: {ratio:.2f}, {above} of {options.aim:g}; {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
