"""Benchmark: the conformance run against its own collect-only run, measured side by side.

    uv run python benchmarks/conformance_run.py [--impl reference] [--repeat 5] [--no-zygote-too]
        [--user-plugins-too] [--one-process-too] [--python VENV/bin/python]

Each repeat runs, one right after the other, ``pytest steps --collect-only`` (the interpreter, the
imports, the implementation's loading, parsing the features) and ``pytest steps`` (all that, then
every scenario, real MCP server processes included, in the workers ``--scenario-workers auto``
forks); with ``--one-process-too`` the run once more with every scenario in pytest's own process
(``--scenario-workers 1``); with ``--no-zygote-too`` the run once more
with every test MCP server importing the ``mcp`` SDK itself; with ``--user-plugins-too`` the pair
once more without the pytest plugins that only the suite's dev dependencies bring (as a project
that installs only ``skill-conformance`` runs it). A pair runs first unmeasured: it writes
pytest's assertion-rewrite cache where bytecode may be written, as a user's first run does.
It prints the medians and the ratios of each repeat's pair, wall and CPU time (user + system,
child processes included), the cost per scenario, and how long a test MCP server takes from spawn
to a completed handshake (through the zygote with the compiled launcher and with the Python one,
and without the zygote), and the CPU of the process spawned, against a bare interpreter's start.
Ratios measured side by side are what carry from one machine, or one load, to another: the load
average is printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.metadata
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.testing.mcp_server import COMMAND_ARGS

ROOT = Path(__file__).resolve().parent.parent
SERVER = ("--label", "bench", "--tool", "echo")
DEV_ONLY = {"hypothesis", "syrupy", "pytest-xdist", "pytest-timeout", "pytest-random-order"}
"""The distributions of the suite's dev dependency group that register pytest plugins."""


def _dev_only_plugins() -> list[str]:
    """``-p no:NAME`` for each pytest plugin a dev-only distribution registers."""
    return [
        option
        for entry in importlib.metadata.entry_points(group="pytest11")
        if entry.dist is not None and entry.dist.name in DEV_ONLY
        for option in ("-p", f"no:{entry.name}")
    ]


@dataclass(frozen=True)
class Sample:
    """One measured command: wall and CPU seconds, and the scenarios it ran or collected."""

    wall: float
    cpu: float
    scenarios: int
    outcome: str
    """pytest's closing line."""
    workers: str
    """The suite's line saying where the scenarios ran, if it printed one."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PYTHON = [sys.executable]
"""The interpreter pytest runs in (``--python``: the venv of another implementation)."""


def _pytest(impl: str, *args: str) -> Sample:
    command = [
        PYTHON[0],
        "-m",
        "pytest",
        "src/skill_conformance/steps",
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    cpu, began = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [*command, "--impl", impl, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - began, _children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.exit(f"pytest exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = re.findall(r"(\d+) (?:passed|failed|skipped|xfailed|xpassed|error|tests? coll)", last)
    workers = next((line for line in done.stdout.splitlines() if "scenarios ran in" in line), "")
    return Sample(wall, cpu, sum(int(count) for count in counts), last, workers)


async def _handshake(command: Sequence[str]) -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=list(command[1:]))
    began = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return time.perf_counter() - began


def _start_server(command: Sequence[str]) -> float:
    return asyncio.run(_handshake(command))


def _interpreter_start() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - began


def _timed(start: Callable[[], float]) -> tuple[float, float]:
    """Wall seconds ``start`` reports, and the CPU seconds of the processes it reaped."""
    cpu = _children_cpu()
    return start(), _children_cpu() - cpu


def _starts(count: int) -> dict[str, list[tuple[float, float]]]:
    """Each kind of server start, interleaved with bare interpreters: (wall, CPU) seconds.

    The wall time runs from the spawn to a completed handshake; the CPU is the spawned process's.
    """
    from skill_conformance.testing.zygote import Zygote, launch_command, native_launcher

    zygote = Zygote()
    try:
        commands = {
            "python": [*launch_command(zygote.address, None), *SERVER],
            "alone": [sys.executable, *COMMAND_ARGS, *SERVER],
        }
        asyncio.run(_handshake(commands["python"]))  # the zygote's own start is not a server's
        compiled = native_launcher(zygote.address, wait=10)  # built once its imports are done
        if compiled is not None:
            commands["compiled"] = [*launch_command(zygote.address, compiled), *SERVER]
        times: dict[str, list[tuple[float, float]]] = {kind: [] for kind in commands}
        times["interpreter"] = []
        for _ in range(count):
            times["interpreter"].append(_timed(_interpreter_start))
            for kind, command in commands.items():
                times[kind].append(_timed(functools.partial(_start_server, command)))
        return times
    finally:
        zygote.stop()


def _calibration(count: int = 5) -> float:
    """Median seconds of a fixed pure-Python loop: how fast this machine runs Python right now.

    The machines are virtual and shared: their speed drifts (by 40 % within one session, seen on
    2026-12-06), which no load average shows. Taken before and after, it tells whether a figure
    was measured on a machine that changed speed meanwhile.
    """
    times = []
    for _ in range(count):
        began = time.perf_counter()
        sum(range(5_000_000))
        times.append(time.perf_counter() - began)
    return _median(times)


def _progress(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _median(values: Sequence[float]) -> float:
    return statistics.median(values)


def _spread(values: Sequence[float], unit: str = "s", digits: int = 1) -> str:
    return (
        f"median {_median(values):.{digits}f} {unit} "
        f"({min(values):.{digits}f} to {max(values):.{digits}f})"
    )


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="reference")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="run pytest with this interpreter (the real codebase's venv, holding the suite)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--starts", type=int, default=7, help="server starts measured per kind")
    parser.add_argument(
        "--no-zygote-too", action="store_true", help="also time runs with --no-zygote"
    )
    parser.add_argument(
        "--one-process-too",
        action="store_true",
        help="also time runs with every scenario in pytest's own process (--scenario-workers 1)",
    )
    parser.add_argument(
        "--user-plugins-too",
        action="store_true",
        help="also time the pair without the dev-only pytest plugins",
    )
    options = parser.parse_args()
    PYTHON[0] = options.python
    load_before = os.getloadavg()
    speed_before = _calibration()
    print(
        f"conformance run, --impl {options.impl}, {os.cpu_count()} CPUs, {options.repeat} repeats"
        + (f", with {options.python}" if options.python != sys.executable else "")
    )
    writes = not os.environ.get("PYTHONDONTWRITEBYTECODE")
    print(
        "pytest's assertion-rewrite cache: "
        + (
            "written by the unmeasured first pair, then read (as a user's runs after the first)"
            if writes
            else "not written (PYTHONDONTWRITEBYTECODE is set): each run rewrites what it lacks"
        )
    )
    user = _dev_only_plugins()
    _pytest(options.impl, "--collect-only")
    _pytest(options.impl)

    collects: list[Sample] = []
    runs: list[Sample] = []
    cold: list[Sample] = []
    single: list[Sample] = []
    user_pairs: list[tuple[Sample, Sample]] = []
    for attempt in range(1, options.repeat + 1):
        collects.append(_pytest(options.impl, "--collect-only"))
        runs.append(_pytest(options.impl))
        _progress(
            f"repeat {attempt}: collect-only {collects[-1].wall:.1f} s, run {runs[-1].wall:.1f} s"
        )
        if options.one_process_too:
            single.append(_pytest(options.impl, "--scenario-workers", "1"))
            _progress(f"repeat {attempt}: run in one process {single[-1].wall:.1f} s")
        if options.no_zygote_too:
            cold.append(_pytest(options.impl, "--no-zygote"))
            _progress(f"repeat {attempt}: run --no-zygote {cold[-1].wall:.1f} s")
        if options.user_plugins_too:
            pair = (_pytest(options.impl, "--collect-only", *user), _pytest(options.impl, *user))
            user_pairs.append(pair)
            _progress(
                f"repeat {attempt}, user plugins: collect-only {pair[0].wall:.1f} s, "
                f"run {pair[1].wall:.1f} s"
            )
    _progress("server starts")
    starts = _starts(options.starts)
    load_after = os.getloadavg()
    speed_after = _calibration()

    scenarios = runs[0].scenarios
    wall_ratios = [run.wall / collect.wall for run, collect in zip(runs, collects, strict=True)]
    cpu_ratios = [run.cpu / collect.cpu for run, collect in zip(runs, collects, strict=True)]
    per_wall = [(r.wall - c.wall) / scenarios * 1000 for r, c in zip(runs, collects, strict=True)]
    per_cpu = [(r.cpu - c.cpu) / scenarios * 1000 for r, c in zip(runs, collects, strict=True)]
    print(f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print(
        f"machine speed, a fixed Python loop: {speed_before * 1000:.0f} ms before, "
        f"{speed_after * 1000:.0f} ms after (a change means the machine's speed drifted)"
    )
    print(f"scenarios: {scenarios} (last run: {runs[-1].outcome})")
    where = runs[-1].workers or "in pytest's own process"
    print(f"where they ran: {where}")
    print(
        f"collect-only: wall {_spread([c.wall for c in collects])}, "
        f"CPU {_spread([c.cpu for c in collects])}"
    )
    print(
        f"run:          wall {_spread([r.wall for r in runs])}, "
        f"CPU {_spread([r.cpu for r in runs])}"
    )
    print(
        f"run / collect-only: wall {_spread(wall_ratios, '', 2)}, CPU {_spread(cpu_ratios, '', 2)}"
    )
    print(
        f"per scenario (run - collect-only) / {scenarios}: wall {_spread(per_wall, 'ms', 0)}, "
        f"CPU {_spread(per_cpu, 'ms', 0)}"
    )
    if user_pairs:
        user_ratios = [run.wall / collect.wall for collect, run in user_pairs]
        print(
            f"without the dev-only plugins ({len(user) // 2}): collect-only wall "
            f"{_spread([c.wall for c, _ in user_pairs])}, run wall "
            f"{_spread([r.wall for _, r in user_pairs])}; run / collect-only: wall "
            f"{_spread(user_ratios, '', 2)}"
        )
    if single:
        single_ratios = [s.wall / k.wall for s, k in zip(single, collects, strict=True)]
        speedups = [s.wall / r.wall for s, r in zip(single, runs, strict=True)]
        print(
            f"run in one process (--scenario-workers 1): wall {_spread([s.wall for s in single])}, "
            f"CPU {_spread([s.cpu for s in single])}; / collect-only: wall "
            f"{_spread(single_ratios, '', 2)}; / run: wall {_spread(speedups, '', 2)}"
        )
    if cold:
        cold_ratios = [c.wall / k.wall for c, k in zip(cold, collects, strict=True)]
        print(
            f"run --no-zygote: wall {_spread([c.wall for c in cold])}, "
            f"CPU {_spread([c.cpu for c in cold])}; / collect-only: wall "
            f"{_spread(cold_ratios, '', 2)}"
        )
    interpreter = _median([wall for wall, _ in starts["interpreter"]])
    bare = [wall * 1000 for wall, _ in starts["interpreter"]]
    print(f"bare interpreter start (python -c pass): {_spread(bare, 'ms', 0)}")
    kinds = (
        ("compiled", "forked by the zygote, compiled launcher (launcher.c)", "launcher"),
        ("python", "forked by the zygote, Python launcher", "launcher"),
        ("alone", "importing mcp itself", "server"),
    )
    for kind, label, spawned in kinds:
        if kind not in starts:
            print(f"test MCP server, {label}: not built within 10 s (no C compiler?)")
            continue
        walls = [wall * 1000 for wall, _ in starts[kind]]
        cpus = [cpu * 1000 for _, cpu in starts[kind]]
        print(
            f"test MCP server, spawn to handshake, {label}: {_spread(walls, 'ms', 0)}, "
            f"{_median(walls) / 1000 / interpreter:.1f}x an interpreter start; CPU of the "
            f"{spawned} {_spread(cpus, 'ms', 1)}"
        )


if __name__ == "__main__":
    main()
