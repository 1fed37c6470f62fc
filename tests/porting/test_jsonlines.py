"""The JSON-lines adapter: an implementation in another process, its faults told apart.

The reference behind the protocol (tests/jsonlines_impl/server.py) must get the same verdicts as
the reference run directly; a process that crashes, hangs, exits or writes garbage must give
*errored* scenarios and leave no process behind.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

import pytest

from skill_conformance.adapters.jsonlines import JsonlinesImplementation, ProtocolError
from skill_conformance.bundled import specs_dir
from skill_conformance.catalogue import load_catalogue
from skill_conformance.port import Ability, ErrorKind, Setup, SkillSystemError
from skill_conformance.runtime.blocking import ImplementationCrash, ImplementationHang, blocking
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation
from tests.porting.porting_helpers import (
    HOSTED,
    SCENARIOS,
    faulty,
    jsonl_command,
    pids_in,
    run_suite,
    still_alive,
    verdicts,
)


def test_the_handshake_gives_name_version_and_unsupported_abilities() -> None:
    implementation = JsonlinesImplementation(faulty())
    try:
        assert (implementation.name, implementation.version) == ("faulty", "0.1")
        assert implementation.unsupported == {
            Ability.MCP: "faulty has none",
            Ability.CANCELLATION: implementation.unsupported[Ability.CANCELLATION],
        }
        assert "process of its own" in implementation.unsupported[Ability.CANCELLATION]
    finally:
        implementation.close()


def test_the_command_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILL_CONFORMANCE_JSONL_CMD", shlex.join(faulty()))
    implementation = load_implementation("jsonlines")
    assert implementation.name == "faulty"
    assert isinstance(implementation, JsonlinesImplementation)
    implementation.close()
    monkeypatch.delenv("SKILL_CONFORMANCE_JSONL_CMD")
    with pytest.raises(AdapterLoadError, match="set SKILL_CONFORMANCE_JSONL_CMD"):
        load_implementation("jsonlines")


def test_a_command_that_does_not_exist_is_one_line() -> None:
    with pytest.raises(ProtocolError, match="cannot start"):
        JsonlinesImplementation(["/nonexistent/impl-sc"])


@pytest.mark.parametrize(
    ("do", "message"),
    [
        ("crash", r"exited \(code 3\) without answering"),
        ("exit", r"exited \(code 0\) without answering"),
        ("garbage", "not a JSON line on stdout: 'this is not JSON'"),
        ("half-answer", r"exited \(code 3\) in the middle of an answer: '\{\"id\": \d+,'"),
        ("report-crash", "the implementation reported crash: it broke inside"),
    ],
)
def test_faults_are_crashes_and_the_next_scenario_gets_a_fresh_process(
    tmp_path: Path, do: str, message: str
) -> None:
    pids = tmp_path / "pids"
    command = faulty("--at", "start", "--do", do, "--pids", str(pids))
    implementation = JsonlinesImplementation(command)
    try:
        for _ in range(2):  # the second scenario must not inherit the first one's dead process
            system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=10)
            with pytest.raises(ImplementationCrash, match=message):
                system.start()
            system.close()
    finally:
        implementation.close()
    started = pids_in(pids)
    assert len(started) >= 4 if do != "report-crash" else len(started) == 2
    assert still_alive(started, within=10.0) == []


def test_a_hang_is_a_hang_and_kills_the_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    implementation = JsonlinesImplementation(
        faulty("--at", "tool_names", "--do", "hang", "--pids", str(pids))
    )
    try:
        system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=1)
        system.start()
        began = time.monotonic()
        with pytest.raises(ImplementationHang, match=r"tool_names\(\) did not finish within 1 s"):
            system.tool_names()
        assert time.monotonic() - began < 4
        system.close()
        assert (
            still_alive(pids_in(pids), within=10.0) == []
        )  # the process and its child, killed at once
    finally:
        implementation.close()


def test_port_errors_cross_the_protocol(tmp_path: Path) -> None:
    implementation = JsonlinesImplementation(faulty("--at", "load_skill", "--do", "not-found"))
    try:
        system = blocking(implementation.open(Setup(skills_dir=tmp_path)), timeout=10)
        system.start()
        with pytest.raises(SkillSystemError) as error:
            system.load_skill("x")
        assert (error.value.kind, error.value.message) == (ErrorKind.NOT_FOUND, "no skill 'x'")
        assert list(system.tool_names()) == []
        system.close()
    finally:
        implementation.close()


def test_in_a_run_a_hang_is_errored_and_no_process_outlives_it(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = jsonl_command("faulty.py", "--at", "run_tool", "--do", "hang", "--pids", str(pids))
    dump = tmp_path / "verdicts.json"
    done = run_suite(
        dump,
        "--skill-conformance-impl=jsonlines",
        "--skill-conformance-scenario-timeout=2",
        "-k",
        "tool_merging or positional_argument or skill_with_python_tools_registered",
        env={"SKILL_CONFORMANCE_JSONL_CMD": command},
    )
    assert done.returncode == 1, done.stdout[-3000:]
    found = verdicts(dump)
    assert found["test_skillmanagercap_inherits_tool_merging"] == "not-applicable"  # needs mcp
    assert found["test_skill_with_python_tools_registered"] == "errored", found
    assert "run_tool() did not finish within 2 s" in done.stdout
    started = pids_in(pids)
    assert started
    assert still_alive(started, within=10.0) == []


@pytest.mark.skipif(
    os.environ.get("SKILL_CONFORMANCE_SKIP_SLOW") == "1", reason="SKILL_CONFORMANCE_SKIP_SLOW=1"
)
@pytest.mark.slow  # a whole-suite run: `make ci`
def test_the_reference_behind_the_protocol_gets_the_reference_verdicts(tmp_path: Path) -> None:
    direct, wrapped = tmp_path / "direct.json", tmp_path / "wrapped.json"
    run_suite(direct, "--skill-conformance-impl=reference")
    done = run_suite(
        wrapped,
        "--skill-conformance-impl=jsonlines",
        env={"SKILL_CONFORMANCE_JSONL_CMD": jsonl_command("server.py")},
    )
    assert "skill-conformance: reference-jsonlines" in done.stdout, done.stdout[-3000:]
    behind, alone = verdicts(wrapped), verdicts(direct)
    # The reference is a host of MCP's skills extension; the protocol declares none.
    assert len(alone) == SCENARIOS + len(HOSTED)
    assert set(behind) <= set(alone)
    assert len(set(alone) - set(behind)) == len(HOSTED)  # the host profile's, left out behind it
    alone = {name: verdict for name, verdict in alone.items() if name in behind}
    # The protocol has no message that cancels a request in flight (the adapter says so): the
    # scenarios that cancel one are not applicable behind it; every other verdict is the same.
    differ = {
        name: (alone[name], behind.get(name)) for name in alone if behind.get(name) != alone[name]
    }
    assert {after for _, after in differ.values()} <= {"not-applicable"}, differ
    assert len(differ) == len(_cancelling()), differ


def _cancelling() -> list[str]:
    """The scenarios that need to cancel a call in flight."""
    entries = load_catalogue(specs_dir()).entries()
    return [e.name for e in entries if f"@needs:{Ability.CANCELLATION}" in e.scenario.tags]


def test_a_tool_module_calling_os_exit_costs_its_tool_only_behind_the_protocol(
    tmp_path: Path,
) -> None:
    """The reference tries the import in a child first: ``os._exit`` ends the child only."""
    from skill_conformance.runtime.world import World

    implementation = JsonlinesImplementation(shlex.split(jsonl_command("server.py")))
    world = World(tmp_path / "world")
    try:
        module = world.modules_dir / "sc_exits_at_import.py"
        module.write_text("import os\nos._exit(7)\n")
        world.skill("doomed").tools.append("sc_exits_at_import:tool")
        world.add_python_tool("healthy", "json:loads")
        world.write()
        try:
            system = blocking(implementation.open(world.setup()), timeout=30)
            system.start()
            assert list(system.tool_names()) == ["healthy__tool__loads"]
            (problem,) = [p for p in system.problems() if "sc_exits_at_import" in p]
            assert "exit status 7" in problem
            system.close()
        finally:
            implementation.close()
    finally:
        world.teardown()
