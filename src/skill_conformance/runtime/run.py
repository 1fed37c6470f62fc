"""One conformance run: its options, the implementation, the scenarios, the ledger, the servers.

:class:`ConformanceRun` is created when pytest configures a run that names an implementation,
and stashed on pytest's config; the suite's hooks (:mod:`.session`) each hand it their work.
Everything the run checks before any scenario runs (its options, the adapter, the expectations
file) is refused there in one line, as pytest's usage error.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_conformance import __version__, _compat
from skill_conformance.bundled import spec_digest
from skill_conformance.errors import InputError
from skill_conformance.options import positive_seconds, whole_mib, whole_seed, writable_file
from skill_conformance.port import (
    Ability,
    Implementation,
    Unsupported,
    cannot_drive,
    hosts_mcp_skills,
)
from skill_conformance.runtime.abilities import EITHER_OF, EITHER_SEPARATOR
from skill_conformance.runtime.context import ScenarioContext
from skill_conformance.runtime.environment import environment
from skill_conformance.runtime.interrupts import raise_on_sigterm
from skill_conformance.runtime.loading import load_implementation
from skill_conformance.runtime.memory import MemoryCap, cap_memory
from skill_conformance.runtime.options import (
    ERA,
    IMPL,
    OPTIONS,
    RESULTS,
    SERVER,
    TRACEBACK,
    SuiteOption,
)
from skill_conformance.runtime.profiles import ServerUnderTest, in_profile
from skill_conformance.runtime.served import HANDSHAKE_ERA, ServerEntry, protocol_era
from skill_conformance.runtime.world import World
from skill_conformance.testing.zygote import Zygote
from skill_conformance.verdicts.cucumber import CucumberCompletion
from skill_conformance.verdicts.expectations_apply import (
    AppliedExpectations,
    ChosenExpectations,
    choose_expectations,
)
from skill_conformance.verdicts.junit import write_usage_error
from skill_conformance.verdicts.ledger import ScenarioInfo
from skill_conformance.verdicts.reporting import Reporting
from skill_conformance.verdicts.results import Header

__all__ = ["ZYGOTE_VARIABLE", "ConformanceRun", "missing_abilities", "spec_tags"]

ZYGOTE_VARIABLE = "SKILL_CONFORMANCE_ZYGOTE"
"""Names the address of a zygote that an outer process owns, to be used instead of one's own."""

_OPTION = {option.name: option for option in OPTIONS}


def _value(config: pytest.Config, option: SuiteOption) -> object:
    return config.getoption(option.dest)


@dataclass(frozen=True)
class RunOptions:
    """The suite's options of a run, checked."""

    impl: str
    timeout: float
    memory_limit_mib: int
    results: Path | None
    traceback: bool
    zygote: bool
    server: ServerEntry | None = None
    """The MCP server under test (``--server``): the run is then the server profile's."""
    era: str = HANDSHAKE_ERA
    """The protocol revision the server profile's client speaks (``--protocol-era``)."""
    seed: int | None = None
    """The property scenarios' seed (``--skill-conformance-seed``); ``None``: the fixed default."""

    @classmethod
    def of(cls, config: pytest.Config) -> RunOptions:
        """The options of ``config``; raise :class:`OptionError` naming one that cannot be used."""
        timeout, memory = _OPTION["scenario-timeout"], _OPTION["memory-limit"]
        results = _value(config, RESULTS)
        path = None if results is None else Path(str(results))
        if path is not None and not hasattr(config, "workerinput"):  # the xdist controller writes
            writable_file(RESULTS.pytest_flag, path)
        server = _value(config, SERVER)
        return cls(
            server=None if server is None else ServerEntry.parse(SERVER.pytest_flag, str(server)),
            impl=str(_value(config, IMPL) or f"server:{server}"),
            timeout=positive_seconds(timeout.pytest_flag, _value(config, timeout)),
            memory_limit_mib=whole_mib(memory.pytest_flag, _value(config, memory)),
            results=path,
            traceback=bool(_value(config, TRACEBACK)),
            zygote=not _value(config, _OPTION["no-zygote"]),
            era=protocol_era(ERA.pytest_flag, _value(config, ERA)),
            seed=None
            if (chosen := _value(config, _OPTION["seed"])) is None
            else whole_seed(_OPTION["seed"].pytest_flag, chosen),
        )


class ConformanceRun:
    """The state of one run, from pytest's configuration to its end."""

    def __init__(
        self,
        config: pytest.Config,
        options: RunOptions,
        implementation: Implementation,
        expectations: ChosenExpectations,
    ) -> None:
        self.config = config
        self.options = options
        self.implementation = implementation
        self.chosen = expectations
        self.header = Header(
            suite_version=__version__,
            spec_digest=spec_digest(),
            adapter=implementation.name,
            adapter_version=implementation.version,
            impl=options.impl,
            environment=environment(type(implementation).__module__),
        )
        self.scenarios: dict[str, ScenarioInfo] = {}
        """The scenarios collected in this process (under xdist: in this worker), by node id."""
        self.expectations: AppliedExpectations | None = None
        """The expectations file as applied to the collected scenarios."""
        self.reporting = Reporting(
            config,
            self.scenarios,
            self.header,
            self.notes,
            traceback=options.traceback,
            results=options.results,
        )
        self.zygote: Zygote | None = None
        self._memory: MemoryCap | None = None
        self._sigterm = False

    @classmethod
    def start(cls, config: pytest.Config) -> ConformanceRun:
        """The run ``config`` asks for; a usage error, in one line, if it cannot be made."""
        try:
            options = RunOptions.of(config)
            implementation: Implementation = (
                load_implementation(options.impl)
                if options.server is None
                else ServerUnderTest(options.server)
            )
            explicit = _value(config, _OPTION["expectations"])
            chosen = choose_expectations(
                implementation,
                None if explicit is None else Path(str(explicit)),
                disabled=bool(_value(config, _OPTION["no-expectations"])),
            )
        except InputError as error:  # an option, the adapter, the expectations file
            write_usage_error(config, str(error))
            raise pytest.UsageError(str(error)) from None
        run = cls(config, options, implementation, chosen)
        config.pluginmanager.register(run.reporting, "skill-conformance-reporting")
        ledger = run.reporting.ledger
        completion = CucumberCompletion(lambda: {r.key: r for r in ledger.results()})
        config.pluginmanager.register(completion, "skill-conformance-cucumber")
        run._memory = cap_memory(options.memory_limit_mib)
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # leave others' handlers
            signal.signal(signal.SIGTERM, raise_on_sigterm)
            run._sigterm = True
        return run

    def stop(self) -> None:
        """Close the implementation and stop the servers; undo the memory bound and SIGTERM."""
        try:
            self.implementation.close()
        except Exception as error:  # its verdicts are in; the run still ends cleanly
            print(
                f"skill-conformance: {self.implementation.name}: close() raised "
                f"{type(error).__name__}: {error}",
                file=sys.stderr,
            )
        if self.zygote is not None:
            self.zygote.stop()
        if self._memory is not None:
            self._memory.release()
        if self._sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

    # -- collection ------------------------------------------------------------------------------

    def collected(self, items: list[pytest.Item]) -> None:
        """Know the collected scenarios of the run's profile; apply the expectations file to them.

        The server profile's scenarios run only when a server is under test, and only they then:
        the others are deselected, not reported as not applicable. The host profile's run only
        for an implementation declaring itself a host of MCP's Skills Extension.
        """
        server = self.options.server is not None
        host = hosts_mcp_skills(self.implementation)
        kept = [item for item in items if in_profile(spec_tags(item), server, host)]
        # pytest-bdd's --generate-missing (`trace`) asks whether every scenario is bound: all are.
        if len(kept) != len(items) and not getattr(self.config.option, "generate_missing", False):
            self.config.hook.pytest_deselected(items=[i for i in items if i not in kept])
            items[:] = kept
        for item in items:
            info = scenario_info(item)
            if info is not None:
                self.scenarios[item.nodeid] = info
        if self.scenarios:
            self.expectations = self.chosen.apply(items, self.scenarios)

    def notes(self) -> list[str]:
        """The lines above the summary: the expectations file applied."""
        return self.expectations.describe() if self.expectations is not None else []

    # -- the servers -----------------------------------------------------------------------------

    def start_servers(self, session: pytest.Session) -> None:
        """Start the zygote now, unless nothing will run here: it warms up during collection."""
        xdist_controller = bool(getattr(session.config.option, "numprocesses", None)) and not (
            hasattr(session.config, "workerinput")
        )
        if not session.config.option.collectonly and not xdist_controller:
            self.zygote_address()

    def zygote_address(self) -> str | None:
        """The zygote's address: an outer process's, else this run's (started on first use).

        ``None`` (each server imports ``mcp`` itself) with ``--skill-conformance-no-zygote``.
        """
        if not self.options.zygote:
            return None
        outer = os.environ.get(ZYGOTE_VARIABLE)
        if outer:
            return outer
        if self.zygote is None:
            self.zygote = Zygote()
        return self.zygote.address

    # -- a scenario ------------------------------------------------------------------------------

    def before_scenario(self, item: pytest.Item) -> None:
        """Skip a scenario the adapter cannot drive, or whose needs the implementation lacks.

        Decided as its steps are about to run, so that pytest-bdd has begun its report: Cucumber
        JSON lists the scenario, every step skipped.
        """
        undriven = cannot_drive(self.implementation) if item.nodeid in self.scenarios else None
        if undriven is not None:
            _compat.steps_not_run(item)
            self.reporting.cannot_drive(item, undriven)
        needs = scenario_alternatives(item)
        if not needs:
            return
        unsupported = dict(self.implementation.unsupported)
        if any(Ability.SYMLINKS in group for group in needs) and not _can_symlink():
            unsupported.setdefault(Ability.SYMLINKS, "this platform cannot create symbolic links")
        reason = missing_abilities(needs, unsupported)
        if reason is not None:
            _compat.steps_not_run(item)
            self.reporting.not_applicable(item, f"{self.implementation.name}: {reason}")

    def unsupported(self, item: pytest.Item, error: Unsupported) -> None:
        """A scenario whose implementation raised :class:`Unsupported`: not applicable."""
        self.reporting.not_applicable(item, f"{self.implementation.name}: {error.reason}")

    def context(self, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ScenarioContext]:
        """The context of one scenario; a server left running after it fails the scenario.

        Trouble closing a scenario that failed already (a close that hangs, servers left
        running) is told beside its verdict, which stands.
        """
        node = request.node
        context = ScenarioContext(
            implementation=self.implementation,
            world=World(tmp_path, zygote=self.zygote_address()),
            timeout=self.options.timeout,
            needs=scenario_needs(node) if node.nodeid in self.scenarios else None,
        )
        yield context
        failed = self.reporting.failed(node)
        try:
            leftovers = context.close()
        except Exception as trouble:
            if not failed:
                raise
            self.reporting.teardown_trouble(node, str(trouble))
            return
        if leftovers:
            message = (
                f"{context.implementation.name} left MCP server processes running after close: "
                f"{leftovers} (killed)"
            )
            if not failed:
                pytest.fail(message, pytrace=False)
            self.reporting.teardown_trouble(node, message)


def spec_tags(item: pytest.Item) -> dict[str, list[str]]:
    """The values of an item's feature tags by key (``@id:x`` gives ``{"id": ["x"]}``)."""
    tags: dict[str, list[str]] = {}
    for marker in item.iter_markers("spec"):
        key, value = marker.args
        tags.setdefault(key, []).append(value)
    return tags


def scenario_info(item: pytest.Item) -> ScenarioInfo | None:
    """Where ``item``'s scenario comes from; ``None`` for a test that is no scenario."""
    tags = spec_tags(item)
    if "id" not in tags:
        return None
    function = getattr(item, "obj", None)
    template = _compat.scenario_of(function) if function is not None else None
    if template is None:
        feature, name, rule, path, line = "?", item.name, None, item.nodeid.partition("::")[0], 0
    else:
        feature, name, path = template.feature.name, template.name, template.feature.rel_filename
        rule = template.rule.name if template.rule is not None else None
        line = template.line_number
    return ScenarioInfo(
        nodeid=item.nodeid,
        capability=tags.get("capability", ["?"])[0],
        requirement=rule or tags.get("requirement", ["?"])[0],
        scenario=name,
        feature=feature,
        scenario_id=tags["id"][0],
        needs=tuple(tags.get("needs", ())),
        requirement_slug=tags.get("requirement", [""])[0],
        path=path,
        line=line,
    )


def scenario_needs(item: pytest.Item) -> frozenset[Ability]:
    """Every ability a scenario's ``@needs`` tags name, one of an either-of need included.

    These are the abilities the scenario may rely on; :func:`scenario_alternatives` says which
    of them it can do without. An unknown ability, or an either-of need the suite does not
    know (:data:`EITHER_OF`), fails the scenario.
    """
    needs: set[Ability] = set()
    for group in scenario_alternatives(item):
        needs |= group
    return frozenset(needs)


def scenario_alternatives(item: pytest.Item) -> tuple[frozenset[Ability], ...]:
    """A scenario's needs, each the set of abilities of which one suffices (one for most)."""
    groups: list[frozenset[Ability]] = []
    for need in spec_tags(item).get("needs", []):
        try:
            group = frozenset(Ability(name) for name in need.split(EITHER_SEPARATOR))
        except ValueError:
            pytest.fail(f"scenario needs unknown ability {need!r}", pytrace=False)
        if len(group) > 1 and group not in EITHER_OF:
            pytest.fail(f"scenario needs an unknown either-of {need!r}", pytrace=False)
        groups.append(group)
    return tuple(groups)


def missing_abilities(
    needs: frozenset[Ability] | tuple[frozenset[Ability], ...], unsupported: Mapping[Ability, str]
) -> str | None:
    """Why a scenario needing ``needs`` is not applicable: every lacking ability, with its reason.

    ``needs`` is a set of abilities each needed, or needs each of which is met by any one of its
    abilities (:func:`scenario_alternatives`). ``None`` when nothing it needs is lacking.
    """
    groups = (
        tuple(frozenset({ability}) for ability in needs) if isinstance(needs, frozenset) else needs
    )
    lacking = {
        ability
        for group in groups
        if all(ability in unsupported for ability in group)
        for ability in group
    }
    if not lacking:
        return None
    return "; ".join(
        f"{ability.value}: {unsupported[ability]}" for ability in Ability if ability in lacking
    )


def _can_symlink() -> bool:
    with tempfile.TemporaryDirectory() as directory, contextlib.suppress(OSError):
        os.symlink("target", Path(directory) / "link")
        return True
    return False
