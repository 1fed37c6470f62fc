"""The agentpool/wolfharness adapter's own logic, tested without the real codebase installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from skill_conformance.adapters import agentpool
from skill_conformance.port import Ability, ErrorKind, Scope, SkillListing
from skill_conformance.runtime.loading import AdapterLoadError, load_implementation


def _finder(*importable: str) -> object:
    def find_spec(name: str) -> object | None:
        return object() if name in importable else None

    return find_spec


@pytest.mark.parametrize(
    ("importable", "expected"),
    [
        (("wolfharness", "agentpool"), "wolfharness"),
        (("agentpool",), "agentpool"),
        (("wolfharness",), "wolfharness"),
        ((), None),
    ],
)
def test_detect_flavour_prefers_the_renamed_package(
    importable: tuple[str, ...], expected: str | None
) -> None:
    assert agentpool.detect_flavour(_finder(*importable)) == expected  # type: ignore[arg-type]


def test_detect_flavour_passes_over_a_package_whose_lookup_fails() -> None:
    def find_spec(name: str) -> object | None:
        if name == "wolfharness":
            raise ValueError("wolfharness.__spec__ is None")
        return object()

    assert agentpool.detect_flavour(find_spec) == "agentpool"


def test_the_real_code_is_not_importable_here() -> None:
    """CI has no real codebase; the adapter's module imports without it."""
    assert agentpool.detect_flavour() is None


def test_loading_without_the_real_code_is_one_clear_line() -> None:
    with pytest.raises(AdapterLoadError) as caught:
        load_implementation("agentpool")
    message = str(caught.value)
    assert "\n" not in message
    assert "neither wolfharness nor agentpool is importable" in message
    assert sys.executable in message


def test_version_label_names_the_commit_of_a_checkout() -> None:
    assert agentpool.version_label("2.9.5", "b686ede72") == "2.9.5+gb686ede72"
    assert agentpool.version_label("4.0.0", None) == "4.0.0"


def _git(directory: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_source_revision_reads_the_checkout_commit(tmp_path: Path) -> None:
    package = tmp_path / "src" / "agentpool"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    assert agentpool.source_revision(package) == _git(tmp_path, "rev-parse", "--short=9", "HEAD")


def test_source_revision_outside_a_checkout_is_none(tmp_path: Path) -> None:
    assert agentpool.source_revision(tmp_path) is None
    assert agentpool.source_revision(None) is None
    assert agentpool.source_revision(tmp_path / "missing") is None


def _error_named(name: str, base: type[Exception] = Exception) -> Exception:
    error: Exception = type(name, (base,), {})("boom")
    return error


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("SkillNotFoundError", ErrorKind.NOT_FOUND),
        ("ReferenceNotFoundError", ErrorKind.NOT_FOUND),
        ("SecurityError", ErrorKind.SECURITY),
        ("ValidationError", ErrorKind.INVALID_CONFIG),
        ("ConfigError", ErrorKind.INVALID_CONFIG),
    ],
)
def test_real_errors_map_to_port_kinds_by_class_name(name: str, kind: ErrorKind) -> None:
    assert agentpool.error_kind_for(_error_named(name)) is kind


def test_a_subclass_maps_through_its_ancestry() -> None:
    security = type("SecurityError", (Exception,), {})
    traversal = type("TraversalError", (security,), {})
    assert agentpool.error_kind_for(traversal("..")) is ErrorKind.SECURITY


@pytest.mark.parametrize("error", [ValueError("x"), KeyError("k"), RuntimeError("r")])
def test_other_errors_are_not_mapped(error: Exception) -> None:
    """An unmapped error crosses the port as a crash of the implementation."""
    assert agentpool.error_kind_for(error) is None


def _package(flavour: str, era: str) -> dict[str, object]:
    """Stand-ins of a real package's modules, as they were in ``era``: only what probe looks at."""

    class AgentPool:
        skill_capabilities = ()
        session_pool = None

        async def _rebuild_skill_capabilities(self) -> None: ...

    modules: dict[str, object] = {
        flavour: SimpleNamespace(AgentPool=AgentPool, AgentsManifest=object),
        f"{flavour}.agents.context": SimpleNamespace(AgentContext=object),
    }
    if era == "pre-m3":  # a SkillCapability per skill; the toolset's functions; no registry
        modules[f"{flavour}_toolsets.builtin.skills"] = SimpleNamespace(
            SkillsTools=object, load_skill=object, list_skills=object
        )
        modules[f"{flavour}.host.factory"] = SimpleNamespace(_add_pool_providers=object)
    else:  # 4.0: the manager offers load_skill; the toolset keeps wrappers, not the provider
        modules[f"{flavour}_toolsets.builtin.skills"] = SimpleNamespace(load_skill=object)
        modules[f"{flavour}.host.factory"] = SimpleNamespace(_inject_pool_providers=object)
        modules[f"{flavour}.capabilities.extension_registry"] = SimpleNamespace()
    return modules


def test_4_0_offers_every_entry_point() -> None:
    offers = agentpool.probe("wolfharness", _package("wolfharness", "4.0").get)
    assert offers == agentpool.Offers(
        flavour="wolfharness",
        toolset_functions=False,
        registry=True,
        pool_providers="_inject_pool_providers",
        rebuild=True,
        sessions=True,
    )
    assert agentpool.unsupported_for(offers) == {}


def test_before_the_m3_refactor_load_skill_is_the_toolsets_and_there_is_no_registry() -> None:
    offers = agentpool.probe("agentpool", _package("agentpool", "pre-m3").get)
    assert offers.toolset_functions
    assert offers.pool_providers == "_add_pool_providers"
    assert offers.cannot_drive is None
    lacking = agentpool.unsupported_for(offers)
    assert list(lacking) == [Ability.REGISTRY]
    assert "agentpool has no extension registry" in lacking[Ability.REGISTRY]


def test_a_package_without_the_shared_entry_points_cannot_be_driven() -> None:
    modules = _package("agentpool", "4.0")
    modules["agentpool"] = SimpleNamespace(AgentsManifest=object)
    del modules["agentpool.agents.context"]
    offers = agentpool.probe("agentpool", modules.get)
    assert offers.cannot_drive == (
        "agentpool has no agentpool.AgentPool, no AgentPool.skill_capabilities, "
        "no agentpool.agents.context.AgentContext"
    )
    lacking = agentpool.unsupported_for(offers)
    assert {Ability.POOL_REBUILD, Ability.CHILD_SESSION} <= set(lacking)


@pytest.mark.parametrize(
    ("scope", "level", "keywords"),
    [
        (Scope.POOL, "POOL", {}),
        (Scope.SESSION, "SESSION", {"session_id": "conformance-session"}),
        (Scope.AGENT, "AGENT", {"session_id": "conformance-session", "agent_name": "test_agent"}),
    ],
)
def test_scopes_are_built_by_keyword(scope: Scope, level: str, keywords: dict[str, str]) -> None:
    assert agentpool.scope_keywords(scope) == (level, keywords)


def test_parse_listing_reads_entries_and_their_uris() -> None:
    text = "\n".join(
        [
            "## Available skills",
            "- **alpha**: First skill",
            "  - URI: `skill://alpha`",
            "- **beta**:",
            "Some trailing prose.",
        ]
    )
    assert agentpool.parse_listing(text) == [
        SkillListing("alpha", "First skill", "", "skill://alpha"),
        SkillListing("beta", "", "", None),
    ]


def test_parse_listing_of_text_without_entries_is_empty() -> None:
    assert agentpool.parse_listing("No skills available.") == []


def test_child_module_returns_label_and_tool() -> None:
    from skill_conformance.port import ToolsChild

    namespace: dict[str, object] = {}
    exec(agentpool.pool.child_module_source(ToolsChild("child-0", ("ping", "pong"))), namespace)
    assert [namespace["ping"](), namespace["pong"]()] == ["child-0:ping", "child-0:pong"]  # type: ignore[operator]


def test_not_installed_message_is_one_line() -> None:
    message = agentpool.not_installed_message("/venv/bin/python")
    assert "\n" not in message
    assert "/venv/bin/python" in message


def test_abilities_are_all_known_to_the_adapter() -> None:
    """A new ability in the port must be considered here: reachable, or unsupported with why."""
    assert {a.value for a in Ability} == {
        "mcp",
        "mcp-http",
        "lifecycle",
        # An enter cancelled through the adapter is the real manager's __aenter__ cancelled.
        "cancellation",
        "pool-rebuild",
        "child-session",
        "standalone-agent",
        "remote-skills",
        "symlinks",
        # AgentPool's own features, all reached through production entry points (read-file
        # through load_skill's skill://{name}/{path}, the one way production serves a file):
        "python-tools",
        "allowed-tools",
        "arguments",
        "skill-uri",
        "inline-references",
        "registry",
        "listing-source",
        "error-kinds",
        "problems",
        "read-file",
        # Loading choices of AgentPool's own loader, which it makes (spec skill-loading):
        "lenient-loading",
        "size-limits",
        "duplicate-keys",
        "length-limits",
        "name-characters",
        "skips-hidden-folders",
        "problem-locations",
        "strict-utf8",
        "normalised-line-endings",
        "contained-reader",
        "skill-scoped-reader",
        # Its discovery follows a linked skill folder (observed at the three commits):
        "linked-skill-folders",
    }


def test_a_skill_file_is_read_through_a_uri_that_gives_the_path_back_as_given() -> None:
    from urllib.parse import unquote

    for path in ("references/guide.md", "../../secret.md", "/abs/secret.md", "a b%2e.md"):
        uri = agentpool.skill_file_uri("my-skill", path)
        assert uri.startswith("skill://my-skill/")
        assert unquote(uri.removeprefix("skill://my-skill/")) == path
