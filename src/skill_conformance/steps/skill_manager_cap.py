"""Steps of the skill-manager-cap capability: building, entering and exiting the manager."""

from __future__ import annotations

from pytest_bdd import then, when

from skill_conformance.runtime.context import ScenarioContext, wait_for_exit
from skill_conformance.steps._parsing import step
from skill_conformance.verdicts import expect


@when("the skill manager is built")
@when("the pool builds its skill manager")
@when("the pool starts")
def when_built(conformance: ScenarioContext) -> None:
    conformance.start()


@when("the skill manager is entered")
def when_entered(conformance: ScenarioContext) -> None:
    conformance.enter()


@when(
    step(
        "the skill manager is entered and the enter is cancelled once the MCP servers {servers:vs}"
        " have started"
    )
)
@when(
    step(
        "the skill manager is entered and the enter is cancelled once the MCP server {servers:vs}"
        " has started"
    )
)
def when_enter_cancelled(conformance: ScenarioContext, servers: list[str]) -> None:
    log = conformance.servers

    def started() -> bool:
        return set(servers) <= set(log.started())

    outcome = conformance.cancel_enter(started)
    # Entering starts every server (skill-manager-cap): an enter that ends before they all
    # started is wrong, and leaves nothing to cancel.
    expect(
        not outcome.startswith("finished"),
        "the enter finished before it started every MCP server",
        expected=f"the enter still running once the MCP servers {servers} have started",
        observed=f"it {outcome} when these had started: {log.started()}",
    )
    conformance.enter_outcome = outcome


@then("the enter ended cancelled")
def then_enter_cancelled(conformance: ScenarioContext) -> None:
    outcome = conformance.enter_outcome
    expect(
        outcome == "cancelled",
        "the enter did not end cancelled",
        expected="the cancellation to come back out of the enter",
        observed="the enter returned as if it had not been cancelled"
        if outcome == "returned"
        else f"the enter {outcome}",
    )


@when("the skill manager is entered, which may fail")
def when_entered_may_fail(conformance: ScenarioContext) -> None:
    conformance.enter_failure = conformance.try_enter() or ""


@then("either the enter succeeded, or it failed and no MCP server is running")
def then_failed_enter_left_nothing(conformance: ScenarioContext) -> None:
    failure = conformance.enter_failure
    assert failure is not None, "the skill manager was not entered; the step is misplaced"
    if not failure:
        return
    running = conformance.wait_until_no_server_runs()
    expect(
        not running,
        "the enter failed and left MCP servers running",
        expected="no MCP server running after a failed enter",
        observed=f"the enter failed ({failure}); still running: {running}",
    )


@when("the skill manager is exited")
def when_exited(conformance: ScenarioContext) -> None:
    conformance.exit()


@when("the pool is closed without exiting the skill manager")
def when_closed_entered(conformance: ScenarioContext) -> None:
    conformance.close_entered()


@then(step("the tool module of skill `{skill:v}` has been imported before any agent run"))
def then_imported_eagerly(conformance: ScenarioContext, skill: str) -> None:
    assert conformance.runs == 0, "an agent run already happened; the step is misplaced"
    marker = conformance.world.import_marker(skill)
    expect(
        marker.exists(),
        f"building the skill manager did not import the tool module of {skill!r}",
        expected="the tool module imported before any agent run",
        observed="not imported",
    )


@then("no MCP server has been started")
def then_none_started(conformance: ScenarioContext) -> None:
    started = conformance.servers.started()
    expect(
        not started, "MCP servers were started", expected="no start", observed=f"started {started}"
    )


@then(step("the MCP server `{server:v}` is running"))
@then(step("the MCP servers {servers:vs} are running"))
def then_running(
    conformance: ScenarioContext, server: str = "", servers: list[str] | None = None
) -> None:
    running = conformance.servers.running()
    wanted = servers or [server]
    missing = [name for name in wanted if name not in running]
    expect(
        not missing,
        f"MCP servers not running: {missing}",
        expected=f"{wanted} running",
        observed=f"running: {running}",
    )


@then(step("the MCP server `{server:v}` has been started once"))
def then_started_once(conformance: ScenarioContext, server: str) -> None:
    started = conformance.servers.started()
    expect(
        started.count(server) == 1,
        f"MCP server {server!r} was started {started.count(server)} times",
        expected=f"{server!r} started once",
        observed=f"starts: {started}",
    )


@then("no MCP server is running")
def then_none_running(conformance: ScenarioContext) -> None:
    running = conformance.wait_until_no_server_runs()
    expect(not running, "MCP servers still running", expected="none running", observed=f"{running}")


@then("the MCP servers stopped in the reverse of the order they started")
def then_reverse_order(conformance: ScenarioContext) -> None:
    started = conformance.servers.started()
    stopped = conformance.servers.stopped()
    expect(
        len(started) >= 2,
        "too few MCP servers started to see an order",
        expected="at least two started",
        observed=f"started {started}",
    )
    expect(
        stopped == started[::-1],
        "the MCP servers did not stop in the reverse of the order they started",
        expected=f"stopped in order {started[::-1]}",
        observed=f"stopped in order {stopped}",
    )


@then("the MCP server processes running before the rebuild have stopped")
def then_old_servers_stopped(conformance: ScenarioContext) -> None:
    before = conformance.running_before_rebuild
    expect(
        bool(before),
        "no MCP server was running before the rebuild",
        expected="the entered skill manager's servers running before the rebuild",
        observed="none running",
    )
    alive = wait_for_exit(before, timeout=5.0)
    expect(
        not alive,
        "MCP server processes of the replaced skill manager still run",
        expected=f"the processes {sorted(before)} stopped",
        observed=f"still running: {alive}",
    )


@then(step("the MCP server `{server:v}` is running at most once"))
def then_running_at_most_once(conformance: ScenarioContext, server: str) -> None:
    running = conformance.servers.running()
    expect(
        running.count(server) <= 1,
        f"the MCP server {server!r} runs more than once",
        expected="at most one process",
        observed=f"{running.count(server)} processes",
    )
