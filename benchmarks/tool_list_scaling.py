"""Benchmark: building the agent's tool list, and filtering it, as skills grow (100 tools each).

    uv run python benchmarks/tool_list_scaling.py [--impl reference] [--sizes 10,100,1000]
        [--real-python /path/to/venv/bin/python ...]

For each size N it writes N skills, each declaring 100 Python tools and allowing 50 of them
(``allowed-tools``, so the composite filter has work on every tool), then through the port:
``start`` (load the skills, import and register the tools) and ``tool_names`` (one real agent
run: the skill manager's toolset, its composite filter, the tool list the model is offered).
It prints the time of each, the cost per skill, the ratio to the smallest size, and the slope of
log(time) on log(N): 1 is linear, 2 quadratic.

Then it checks the MCP construction figure: with 100 skills each declaring an MCP server,
``start`` starts no process (the test server logs every start).

``--real-python`` runs the same measurement in another interpreter (the real codebase's venv,
with this project installed there), ``--impl agentpool``, and prints it side by side; where the
real codebase is neither importable here nor given, it prints "not installed".
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from skill_conformance.port import Implementation, Setup
from skill_conformance.runtime.blocking import blocking
from skill_conformance.runtime.loading import load_implementation
from skill_conformance.runtime.servers import ServerLog
from skill_conformance.runtime.world import World

TOOLS = 100
ALLOWED = 50


def _write_skills(root: Path, count: int) -> Path:
    skills = root / "skills"
    module = root / "modules" / "sc_bench_tools.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(
        "".join(
            f"def t{i:03d}() -> str:\n    'Tool {i}.'\n    return 't{i}'\n\n" for i in range(TOOLS)
        )
    )
    for index in range(count):
        name = f"bench-{index:04d}"
        directory = skills / name
        directory.mkdir(parents=True)
        tools = "".join(
            f"  - type: python\n    import_path: sc_bench_tools:t{i:03d}\n" for i in range(TOOLS)
        )
        allowed = " ".join(f"t{i:03d}" for i in range(0, TOOLS, TOOLS // ALLOWED))
        (directory / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Bench skill {index}.\n"
            f"allowed-tools: {allowed}\ntools:\n{tools}---\nInstructions of {name}.\n"
        )
    return skills


def measure(implementation: Implementation, count: int) -> dict[str, float]:
    """Seconds of ``start`` and of ``tool_names`` for ``count`` skills, and the tools offered."""
    with tempfile.TemporaryDirectory(prefix="sc-bench-") as directory:
        root = Path(directory)
        skills = _write_skills(root, count)
        sys.path.insert(0, str(root / "modules"))
        try:
            system = blocking(implementation.open(Setup(skills_dir=skills)), timeout=3600)
            began = time.perf_counter()
            system.start()
            built = time.perf_counter()
            names = system.tool_names()
            listed = time.perf_counter()
            system.close()
        finally:
            sys.path.remove(str(root / "modules"))
            sys.modules.pop("sc_bench_tools", None)
    skill_tools = sum("__tool__" in name for name in names)
    return {"start": built - began, "tool_names": listed - built, "offered": skill_tools}


def slope(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) on log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-9)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def run_sizes(impl: str, sizes: list[int]) -> dict[str, object]:
    """The measurements of every size, with the implementation's name and version."""
    implementation = load_implementation(impl)
    rows = {str(n): measure(implementation, n) for n in sizes}
    return {"name": implementation.name, "version": implementation.version, "rows": rows}


def mcp_starts(skills: int = 100) -> tuple[int, int]:
    """Processes started by ``start`` with ``skills`` MCP-declaring skills, and skills seen."""
    implementation = load_implementation("reference")
    with tempfile.TemporaryDirectory(prefix="sc-bench-mcp-") as directory:
        world = World(Path(directory))
        try:
            for index in range(skills):
                world.add_mcp_server(f"mcp-{index:03d}", f"server-{index:03d}", ["echo"])
            world.write()
            system = blocking(implementation.open(world.setup()), 600)
            system.start()
            started = len(ServerLog(world.mcp_log).started())
            system.close()
        finally:
            world.teardown()
    return started, skills


def _print(result: dict[str, object], sizes: list[int]) -> None:
    rows = result["rows"]
    assert isinstance(rows, dict)
    print(f"{result['name']} {result['version']}: N skills x {TOOLS} tools, {ALLOWED} allowed each")
    print(
        f"  {'N':>5} {'start s':>9} {'per skill ms':>13} {'tool_names s':>13} {'per skill ms':>13}"
    )
    for n in sizes:
        row = rows[str(n)]
        print(
            f"  {n:>5} {row['start']:>9.2f} {1000 * row['start'] / n:>13.2f} "
            f"{row['tool_names']:>13.2f} {1000 * row['tool_names'] / n:>13.2f}"
            f"   ({int(row['offered'])} skill tools offered)"
        )
    for phase in ("start", "tool_names"):
        seconds = [rows[str(n)][phase] for n in sizes]
        ratio = seconds[-1] / seconds[0] if seconds[0] else float("inf")
        print(
            f"  {phase}: x{ratio:.0f} time for x{sizes[-1] // sizes[0]} skills; "
            f"log-log slope {slope(sizes, seconds):.2f} (1 = linear)"
        )


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="reference")
    parser.add_argument("--sizes", default="10,30,100,300,1000")
    parser.add_argument("--real-python", action="append", default=[], metavar="PYTHON")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON only")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    if options.json:
        print(json.dumps(run_sizes(options.impl, sizes)))
        return
    _print(run_sizes(options.impl, sizes), sizes)
    real = [name for name in ("wolfharness", "agentpool") if importlib.util.find_spec(name)]
    if real:
        _print(run_sizes(real[0], sizes), sizes)
    for python in options.real_python:
        if not Path(python).exists():
            print(f"real codebase at {python}: not installed")
            continue
        command = [python, __file__, "--impl", "agentpool", "--sizes", options.sizes, "--json"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"real codebase at {python}: failed: {done.stderr.strip()[-300:]}")
            continue
        _print(json.loads(done.stdout.strip().splitlines()[-1]), sizes)
    if not real and not options.real_python:
        print("agentpool / wolfharness: not installed (give --real-python PATH to compare)")
    started, skills = mcp_starts()
    print(f"construction with {skills} MCP-declaring skills: {started} processes started")


if __name__ == "__main__":
    main()
