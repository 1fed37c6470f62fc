"""Benchmark: the Gherkin generator's time as the spec tree grows (1k vs 10k scenarios).

    uv run python benchmarks/generator_scaling.py [--sizes 1000,10000] [--repeat 3]
        [--shape one-spec|many-specs|one-requirement]

For each size N it writes an OpenSpec tree holding N scenarios (two steps each) and times
``skill-conformance gherkin --specs ... --out ...`` in-process (parse, render and write), best
of ``--repeat``. ``one-spec`` puts them all in one spec, one requirement per scenario;
``many-specs`` spreads them over specs of 100; ``one-requirement`` puts them all under one
requirement. It prints each time, the time per scenario, and the ratio of each size to the
smallest divided by the size ratio: about 1 is linear, about 10 (for 1k vs 10k) quadratic.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from skill_conformance.commands.main import main


def _scenario(number: int) -> str:
    return (
        f"#### Scenario: Case {number}\n"
        f"- **WHEN** the widget gets input {number}\n"
        f"- **THEN** it answers {number}\n\n"
    )


def write_tree(root: Path, size: int, shape: str) -> None:
    """Write an OpenSpec tree with ``size`` scenarios under ``root``."""
    per_spec = size if shape != "many-specs" else 100
    for first in range(0, size, per_spec):
        spec = root / f"cap-{first:06d}" / "spec.md"
        spec.parent.mkdir(parents=True)
        parts = [f"# cap-{first}\n\n## Purpose\nScaling.\n\n## Requirements\n\n"]
        if shape == "one-requirement":
            parts.append("### Requirement: Everything\nThe system SHALL answer.\n\n")
        for number in range(first, min(size, first + per_spec)):
            if shape != "one-requirement":
                parts.append(f"### Requirement: Answer {number}\nThe system SHALL answer.\n\n")
            parts.append(_scenario(number))
        spec.write_text("".join(parts), encoding="utf-8")


def measure(size: int, shape: str, repeat: int) -> float:
    """Best time, in seconds, to generate the features of a tree of ``size`` scenarios."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        specs, out = Path(folder) / "specs", Path(folder) / "features"
        write_tree(specs, size, shape)
        for _ in range(repeat):
            sink = io.StringIO()
            began = time.perf_counter()
            with redirect_stdout(sink), redirect_stderr(sink):
                code = main(["gherkin", "--specs", str(specs), "--out", str(out)])
            best = min(best, time.perf_counter() - began)
            if code != 0:
                raise SystemExit(f"generation failed (exit {code}): {sink.getvalue()[:500]}")
    return best


def main_() -> None:
    """Print the time per size and the growth ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--shape", choices=("one-spec", "many-specs", "one-requirement"), default="one-spec"
    )
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    times = {size: measure(size, options.shape, options.repeat) for size in sizes}
    smallest = sizes[0]
    print(f"shape {options.shape}, best of {options.repeat}")
    for size in sizes:
        ratio = times[size] / times[smallest]
        per = times[size] / size * 1e6
        growth = ratio / (size / smallest)
        print(
            f"{size:>7} scenarios: {times[size]:7.3f} s  {per:6.1f} us/scenario  "
            f"x{ratio:5.1f} for x{size / smallest:g} scenarios (1 = linear): {growth:4.2f}"
        )


if __name__ == "__main__":
    main_()
