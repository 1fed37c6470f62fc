"""Benchmark: wall time of the whole conformance run on an implementation, and where it goes.

    uv run python benchmarks/conformance_run.py [--impl reference] [--repeat 3]

Prints, per repeat, the wall time of ``pytest steps``, the time pytest needs to collect the
scenarios, the summed setup / call / teardown time of the scenarios, and the median time one
test MCP server takes from spawn to a completed MCP handshake.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str) -> tuple[float, str]:
    command = [sys.executable, "-m", "pytest", "steps", "-q", "-p", "no:cacheprovider", *args]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):
        sys.exit(f"pytest exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed, done.stdout


async def _one_server_start() -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skill_conformance.testing.mcp_server", "--label", "bench", "--tool", "echo"],
    )
    began = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        elapsed = time.perf_counter() - began
    return elapsed


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="reference")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    starts = [asyncio.run(_one_server_start()) for _ in range(5)]
    print(
        f"MCP test server spawn to handshake: median {statistics.median(starts):.2f} s (5 starts)"
    )
    for attempt in range(1, options.repeat + 1):
        collect, _ = _pytest("--collect-only", "--impl", options.impl)
        wall, output = _pytest("--durations=0", "--impl", options.impl)
        phases = {"setup": 0.0, "call": 0.0, "teardown": 0.0}
        for seconds, phase in re.findall(r"^([0-9.]+)s (setup|call|teardown) ", output, re.M):
            phases[phase] += float(seconds)
        outcome = re.findall(r"^=*\s*(\d+ passed.*?) in ", output, re.M)
        print(
            f"run {attempt}: wall {wall:.1f} s | collection {collect:.1f} s | scenarios "
            f"setup {phases['setup']:.1f} s, call {phases['call']:.1f} s, "
            f"teardown {phases['teardown']:.1f} s | {outcome[-1] if outcome else output[-200:]}"
        )


if __name__ == "__main__":
    main()
