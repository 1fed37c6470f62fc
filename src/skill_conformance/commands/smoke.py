"""``skill-conformance smoke``: which port operations of an adapter work, on one screen.

It writes a tiny world (one skill ``smoke`` with the file ``references/guide.md``, the Python tool
``ping`` unless the adapter lacks ``python-tools``, and, with ``--mcp``, the test MCP server
``smoke-server`` offering ``echo``), opens the implementation on it and calls each port operation
once, in scenario order. Each gets one line: ``ok`` (with what came back), ``unsupported`` (it
needs an ability the adapter declares it lacks, so it is not called, or it raised
:class:`~skill_conformance.port.Unsupported`) or ``error`` (it raised, hung, or returned
something plainly wrong). The exit status is 1 if any operation errored, 2 if the adapter could
not be loaded, 0 otherwise.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from skill_conformance.escape.terminal import printable
from skill_conformance.options import seconds_argument
from skill_conformance.port import Ability as A
from skill_conformance.port import AgentPath, Implementation, Scope, Unsupported
from skill_conformance.runtime.abilities import operation_needs
from skill_conformance.runtime.blocking import BlockingSkillSystem, ImplementationCrash, blocking
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from skill_conformance.runtime.options import OPTIONS
from skill_conformance.runtime.production import production_warnings
from skill_conformance.runtime.servers import ServerLog
from skill_conformance.runtime.world import World

__all__ = ["Check", "add_smoke", "smoke"]

SKILL = "smoke"
TOOL = f"{SKILL}__tool__ping"
MCP_TOOL = f"{SKILL}__mcp__echo"
INSTRUCTIONS = "Smoke instructions: say $ARGUMENTS."
GUIDE = "references/guide.md"
GUIDE_TEXT = "Smoke guide."

_WIDTH = 90
"""Characters of a detail, so that a line fits a wide terminal."""

Probe = Callable[[BlockingSkillSystem], str]
"""Calls one operation and returns the one-line detail of an ``ok``; raises otherwise."""


class _Wrong(Exception):
    """The operation returned, but not what the tiny world makes certain."""


@dataclass(frozen=True)
class Check:
    """One line of the smoke report."""

    operation: str
    status: str
    detail: str


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _Wrong(message)


def _short(value: object, width: int = 56) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _tool_names(wanted: list[str]) -> Probe:
    def probe(system: BlockingSkillSystem) -> str:
        names = list(system.tool_names())
        for name in wanted:
            _expect(name in names, f"{name!r} not offered; offered {_short(names)}")
        return f"{len(names)} tools: {_short(names)}"

    return probe


def _run_tool(system: BlockingSkillSystem) -> str:
    record = system.run_tool(TOOL, {})
    _expect(record.result == "smoke:ping", f"{TOOL} returned {_short(record.result)}")
    return f"{TOOL} returned {record.result!r}; {len(record.offered)} tools offered"


def _load_skill(system: BlockingSkillSystem) -> str:
    text = system.load_skill(SKILL)
    _expect("Smoke instructions" in text, f"instructions not in the result: {_short(text)}")
    return _short(text)


def _load_with_arguments(system: BlockingSkillSystem) -> str:
    text = system.load_skill(SKILL, "hello")
    _expect("say hello" in text, f"arguments not substituted: {_short(text)}")
    return _short(text)


def _load_uri(system: BlockingSkillSystem) -> str:
    text = system.load_skill(f"skill://{SKILL}/{GUIDE}")
    _expect(GUIDE_TEXT in text, f"{GUIDE} not in the result: {_short(text)}")
    return _short(text)


def _list_skills(system: BlockingSkillSystem) -> str:
    names = [entry.name for entry in system.list_skills()]
    _expect(SKILL in names, f"{SKILL!r} not listed: {names}")
    return f"{names}"


def _read_skill_file(system: BlockingSkillSystem) -> str:
    text = system.read_skill_file(SKILL, GUIDE)
    _expect(GUIDE_TEXT in text, f"{GUIDE} read as {_short(text)}")
    return f"{GUIDE}: {_short(text)}"


def _resolve_uri(system: BlockingSkillSystem) -> str:
    resolved = system.resolve_uri(f"skill://{SKILL}")
    _expect(resolved.name == SKILL, f"resolved to {resolved.name!r}")
    return f"skill://{SKILL} -> {resolved.name}"


def _registry(system: BlockingSkillSystem) -> str:
    names = list(system.registry_skill_names(Scope.POOL))
    _expect(SKILL in names, f"{SKILL!r} not visible at pool scope: {names}")
    return f"pool scope: {names}"


def _agent_tools(path: AgentPath) -> Probe:
    def probe(system: BlockingSkillSystem) -> str:
        names = list(system.agent_tool_names(path))
        _expect("load_skill" in names, f"no load_skill offered: {_short(names)}")
        return f"{len(names)} tools: {_short(names)}"

    return probe


def _agent_load(path: AgentPath) -> Probe:
    def probe(system: BlockingSkillSystem) -> str:
        return _short(system.agent_load_skill(path, SKILL))

    return probe


def _done(call: Callable[[BlockingSkillSystem], object]) -> Probe:
    def probe(system: BlockingSkillSystem) -> str:
        call(system)
        return "done"

    return probe


Probes = list[tuple[str, Probe, frozenset[A]]]


def _probes(python_tools: bool, mcp: bool) -> Probes:
    """Every operation, the probe calling it, and the abilities it needs."""
    child, alone = AgentPath.CHILD_SESSION, AgentPath.STANDALONE
    offered = [TOOL] * python_tools + [MCP_TOOL] * mcp
    probes: list[tuple[str, Probe, tuple[object, ...]]] = [
        ("problems", lambda s: f"{len(s.problems())} reported: {_short(list(s.problems()))}", ()),
        ("tool_names", _tool_names(offered), ()),
        ("run_tool", _run_tool, ()),
        ("load_skill", _load_skill, (SKILL,)),
        ("load_skill(arguments)", _load_with_arguments, (SKILL, "hello")),
        ("load_skill(skill://)", _load_uri, (f"skill://{SKILL}/{GUIDE}",)),
        ("list_skills", _list_skills, ()),
        ("read_skill_file", _read_skill_file, ()),
        ("resolve_uri", _resolve_uri, ()),
        ("registry_skill_names(pool)", _registry, ()),
        ("enter", _done(lambda s: s.enter()), ()),
        ("exit", _done(lambda s: s.exit()), ()),
        ("rebuild", _done(lambda s: s.rebuild()), ()),
        ("agent_tool_names(child-session)", _agent_tools(child), (child,)),
        ("agent_tool_names(standalone)", _agent_tools(alone), (alone,)),
        ("agent_load_skill(child-session)", _agent_load(child), (child, SKILL)),
        ("agent_load_skill(standalone)", _agent_load(alone), (alone, SKILL)),
    ]
    found: Probes = []
    for operation, probe, arguments in probes:
        needs = operation_needs(operation.partition("(")[0], *arguments)
        if operation == "run_tool":
            needs |= {A.PYTHON_TOOLS}
        found.append((operation, probe, needs))
    return found


def _error(error: BaseException) -> str:
    if isinstance(error, _Wrong):
        return f"wrong result: {error}"
    cause = error.error if isinstance(error, ImplementationCrash) else error
    lines = str(cause).strip().splitlines()
    text = f"{type(cause).__name__}: {lines[0] if lines else ''}"
    return text if len(text) <= _WIDTH else text[: _WIDTH - 3] + "..."


def _attempt(operation: str, call: Callable[[], str]) -> Check:
    try:
        return Check(operation, "ok", call())
    except Unsupported as unsupported:
        return Check(operation, "unsupported", f"no equivalent: {unsupported.reason}")
    except Exception as error:
        return Check(operation, "error", _error(error))


def _unsupported(needs: frozenset[A], unsupported: Mapping[A, str]) -> str | None:
    lacking = [ability for ability in A if ability in needs and ability in unsupported]
    if not lacking:
        return None
    return "; ".join(f"needs {ability.value}: {unsupported[ability]}" for ability in lacking)


def smoke(implementation: Implementation, *, mcp: bool, timeout: float) -> list[Check]:
    """Open ``implementation`` on the tiny world and try each operation once."""
    unsupported = dict(implementation.unsupported)
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="sc-smoke-") as directory:
        world = World(Path(directory))
        try:
            world.skill(SKILL).instructions = INSTRUCTIONS
            world.skill(SKILL).files[GUIDE] = GUIDE_TEXT
            python_tools = A.PYTHON_TOOLS not in unsupported
            if python_tools:
                world.add_python_tool(SKILL, "ping")
            with_mcp = mcp and A.MCP not in unsupported
            if mcp and not with_mcp:
                checks.append(Check("mcp server", "unsupported", f"mcp: {unsupported[A.MCP]}"))
            if with_mcp:
                world.add_mcp_server(SKILL, "smoke-server", ["echo"])
            world.write()
            setup = world.setup()
            try:
                with production_warnings():
                    opened = implementation.open(setup)
                system = blocking(opened, timeout)
            except Exception as error:
                return [*checks, Check("open", "error", _error(error))]
            start = _done(lambda s: s.start())
            checks.append(_attempt("start", lambda: start(system)))
            for operation, probe, needs in _probes(python_tools, with_mcp):
                reason = _unsupported(needs, unsupported)
                if reason is not None:
                    checks.append(Check(operation, "unsupported", reason))
                    continue
                checks.append(_attempt(operation, functools.partial(probe, system)))
            checks.append(_attempt("close", lambda: _close(system, world)))
        finally:
            world.teardown()
    return checks


def _close(system: BlockingSkillSystem, world: World) -> str:
    system.close()
    from skill_conformance.runtime.context import wait_for_exit

    servers = ServerLog(world.mcp_log)
    left = wait_for_exit(servers.pids(), timeout=5.0)
    _expect(not left, f"MCP server processes still running after close: {left}")
    started = len(servers.started())
    return f"closed; {started} MCP server start(s) in all, none left running"


def report(implementation: Implementation, checks: list[Check], out: TextIO) -> int:
    """Print the checks, one line each, and a total; return the exit status."""
    out.write(printable(f"smoke: {implementation.name} {implementation.version}") + "\n")
    for check in checks:
        out.write(f"  {check.status:<11} {check.operation:<32} {printable(check.detail)}\n")
    counts = {status: sum(c.status == status for c in checks) for status in _STATUSES}
    out.write(", ".join(f"{n} {status}" for status, n in counts.items()) + "\n")
    return 1 if counts["error"] else 0


_STATUSES = ("ok", "unsupported", "error")

_RUN_TIMEOUT = next(o.default or "" for o in OPTIONS if o.name == "scenario-timeout")
"""The timeout `run` gives each call by default: smoke's too (a first start() may import an SDK)."""


def _run(args: argparse.Namespace) -> int:
    if "" not in sys.path and os.getcwd() not in sys.path:  # as `run` (python -m pytest) has it
        sys.path.insert(0, os.getcwd())
    try:
        implementation = load_implementation(args.impl)
    except AdapterLoadError as error:
        print(f"skill-conformance smoke: {printable(str(error))}", file=sys.stderr)
        return 2
    try:
        checks = smoke(implementation, mcp=bool(args.mcp), timeout=float(args.timeout))
    finally:
        implementation.close()
    return report(implementation, checks, sys.stdout)


def add_smoke(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``smoke`` subcommand."""
    parser = commands.add_parser(
        "smoke",
        help="try each port operation of an adapter once and say which work",
        description=(
            "Which port operations of an adapter work, on one screen: each is called once on a "
            "tiny world and gets one line, ok, unsupported or error. Exit 1 if any errored, 2 if "
            "the adapter cannot be loaded. A package.module:Attribute adapter is imported from "
            "the current directory too."
        ),
    )
    parser.add_argument(
        "--impl",
        default="reference",
        metavar="NAME",
        help="adapter: a registered name or package.module:Attribute (default: reference)",
    )
    parser.add_argument(
        "--mcp", action="store_true", help="give the skill a real stdio MCP server too"
    )
    parser.add_argument(
        "--scenario-timeout",
        "--timeout",
        dest="timeout",
        type=seconds_argument,
        default=float(_RUN_TIMEOUT),
        metavar="S",
        help=f"seconds each operation may take, as in `run` (default {_RUN_TIMEOUT})",
    )
    parser.set_defaults(command=_run)
