"""The implementation port: the one surface the step definitions talk to.

An implementation under test is plugged in as an :class:`Implementation`. For each scenario the
suite writes real SKILL.md directories into a fresh temporary directory, describes the rest of the
world in a :class:`Setup`, and calls :meth:`Implementation.open`. What comes back is an
:class:`AsyncSkillSystem`: every question a scenario asks, answered with plain data.

Implementations are asynchronous; pytest-bdd steps are not. :func:`blocking` (in
``skill_conformance.runtime.blocking``) gives the steps a synchronous :class:`SkillSystem` that
runs every call on one event loop, in one task, each wait bounded.

Errors cross the port as :class:`SkillSystemError` with an :class:`ErrorKind`. An operation the
implementation has no equivalent for raises :class:`Unsupported`: the scenario is then *not
applicable*, with the reason given. Anything else an implementation raises is a crash of the
implementation, reported as such.

What an implementation lacks by design is declared as :class:`Ability` values in
:attr:`Implementation.unsupported`; scenarios name what they need with ``@needs:<ability>`` tags.
A scenario without such a tag needs only what every Agent Skills implementation has: a directory
of skill folders with a ``SKILL.md`` each, the ``load_skill`` and ``list_skills`` tools, and an
agent run whose model is offered tools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = [
    "CANNOT_DRIVE",
    "MCP_SKILLS_HOST",
    "PROBLEM_FORM",
    "SKILL_TOOLS",
    "Ability",
    "AgentPath",
    "AsyncSkillSystem",
    "ErrorKind",
    "Implementation",
    "McpChild",
    "ResolvedSkill",
    "RunRecord",
    "Scope",
    "ServerCommand",
    "Setup",
    "SkillListing",
    "SkillSystem",
    "SkillSystemError",
    "ToolsChild",
    "Unsupported",
    "cannot_drive",
    "hosts_mcp_skills",
    "skill_tool_names",
]


class ErrorKind(StrEnum):
    """The kinds of error the specs name."""

    NOT_FOUND = "not-found"
    SECURITY = "security"
    INVALID_CONFIG = "invalid-config"
    RUN_ENDED = "run-ended"
    """The implementation's refusal ended the agent's run (an exception out of it) instead of
    reaching the model as a result it could act on; the message says what ended it. Never a
    kind the specs accept: a refusal is something the agent continues from."""
    UNCLASSIFIED = "unclassified"
    """The implementation refused or failed with an error that names none of the kinds above.

    An adapter lacking :attr:`Ability.ERROR_KINDS` reports every error of its implementation so;
    a scenario that checks no kind (that nothing leaked, say) still sees the error's text.
    """


class SkillSystemError(Exception):
    """An error of the implementation, mapped by its adapter to a kind the specs name."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


class Unsupported(Exception):
    """Raised by an operation the implementation has no equivalent for.

    The scenario calling it is reported *not applicable* with ``reason``, never failed or errored.
    Prefer declaring the missing :class:`Ability` in :attr:`Implementation.unsupported`, which
    spares the scenarios from being started at all; raise this where one operation, or one form
    of its arguments, has no equivalent although the ability as a whole is there.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Ability(StrEnum):
    """Optional abilities a scenario may need; its ``@needs:<ability>`` tags name them.

    An adapter lists those it lacks in :attr:`Implementation.unsupported`, each with a reason.
    A scenario needing any of them is reported *not applicable*, with the reasons of all it
    lacks; it is not started. A choice the format leaves open (``lenient-loading``,
    ``size-limits``, ``duplicate-keys``) is asked of the implementations declaring it, while the
    same scenario holds every other implementation to what both choices owe (a step's "where the
    implementation ..." names which).
    """

    MCP = "mcp"
    """Starts the stdio MCP servers skills declare (``mcp-servers``) and offers their tools as
    ``{skill}__mcp__{tool}``; takes non-skill MCP servers as children."""
    MCP_HTTP = "mcp-http"
    """Connects to the MCP servers skills declare by ``url``, over streamable HTTP."""
    LIFECYCLE = "lifecycle"
    """Can enter and exit the skill manager explicitly, starting and stopping its MCP servers."""
    CANCELLATION = "cancellation"
    """Cancelling the adapter's ``enter`` call cancels the implementation's enter in flight (an
    implementation run in the suite's process; one in a process of its own sees no cancellation)."""
    POOL_REBUILD = "pool-rebuild"
    """Rescans the skills directory and rebuilds what agents are offered, as a pool's rebuild."""
    CHILD_SESSION = "child-session"
    """Creates agents for child sessions through the agent factory."""
    STANDALONE_AGENT = "standalone-agent"
    """Creates standalone agents, without a session pool."""
    REMOTE_SKILLS = "remote-skills"
    """Discovers skills offered by a remote (MCP) skill provider."""
    SYMLINKS = "symlinks"
    """The platform can create symbolic links (the suite checks this itself)."""
    PYTHON_TOOLS = "python-tools"
    """Imports the functions a skill declares (``tools: [module:function]``) when the skills are
    loaded, and offers each as ``{skill}__tool__{function}``."""
    ALLOWED_TOOLS = "allowed-tools"
    """Narrows each skill's own tools to its ``allowed-tools``, by bare name, skill by skill."""
    ARGUMENTS = "arguments"
    """``load_skill`` takes an arguments string, substituted for ``$N``, ``$@``, ``$ARGUMENTS``."""
    SKILL_URI = "skill-uri"
    """``load_skill`` accepts ``skill://{name}`` and ``skill://{name}/{path}`` URIs."""
    INLINE_REFERENCES = "inline-references"
    """Includes a skill's ``references/`` files in what a bare-name ``load_skill`` returns."""
    REGISTRY = "registry"
    """Registers the skills with an extension registry that lists them by scope and resolves
    ``skill://`` URIs (``registry_skill_names``, ``resolve_uri``); rebuilds are pool-rebuild."""
    LISTING_SOURCE = "listing-source"
    """``list_skills`` names each skill's source (``local`` or its provider) and its URI."""
    ERROR_KINDS = "error-kinds"
    """Fails with the error kinds the specs name (not-found, security, invalid-config); without
    it, the adapter reports every error as :attr:`ErrorKind.UNCLASSIFIED`."""
    PROBLEMS = "problems"
    """Reports each refused skill, failed import or bad server entry as one problem line in the
    form :data:`PROBLEM_FORM` states."""
    READ_FILE = "read-file"
    """Reads one of a skill's files by its path relative to the skill directory, through the
    implementation's own file reader (:meth:`AsyncSkillSystem.read_skill_file`)."""
    LENIENT_LOADING = "lenient-loading"
    """Loads, and reports, what the Agent Skills client guide says to load with a warning though
    the format forbids it: a name differing from its folder (under the declared name), and an
    unquoted value holding ``: `` (read whole). A loader following the format refuses both."""
    SIZE_LIMITS = "size-limits"
    """Refuses, unparsed, a ``SKILL.md`` over 1 MiB and a frontmatter over 64 KiB, and a
    frontmatter nesting collections past 64 levels or expanding past 10,000 values; the format
    sets no size limit."""
    DUPLICATE_KEYS = "duplicate-keys"
    """Refuses a frontmatter holding a key twice, where PyYAML and most loaders keep the last."""
    LENGTH_LIMITS = "length-limits"
    """Refuses a name over 64 characters or a description over 1024, the format's limits, where
    the client guide allows keeping such a skill with a warning."""
    NAME_CHARACTERS = "name-characters"
    """Refuses a name outside the format's characters (lowercase letters, digits, single inner
    hyphens), where the client guide's lenient validation keeps such a skill with a warning."""
    SKIPS_HIDDEN_FOLDERS = "skips-hidden-folders"
    """Takes no folder whose name starts with a dot for a skill; the client guide asks only that
    ``.git`` and ``node_modules`` be skipped, so a loader may scan other hidden folders."""
    PROBLEM_LOCATIONS = "problem-locations"
    """Names, in each problem, the line and the field at fault beside the file; the format
    prescribes no warning's form, so a problem naming the file alone is a choice."""
    STRICT_UTF8 = "strict-utf8"
    """Refuses a ``SKILL.md`` that is not valid UTF-8; a loader decoding leniently (bad bytes
    replaced) loads it, which the format does not forbid. Either way no other skill is lost."""
    NORMALISED_LINE_ENDINGS = "normalised-line-endings"
    """Hands a skill's body over with its line endings made ``\n``; the format says nothing of
    them, so a body returned as written (CRLF kept) is a choice."""
    CONTAINED_READER = "contained-reader"
    """The reader of a skill's files, and the loader reading each ``SKILL.md``, refuse a path
    leading outside the skills directory (climbing out, absolute, through a link). Without it
    the reader's scope is the whole host: the model reads skills with a general file tool (the
    client guide's file-read activation)."""
    SKILL_SCOPED_READER = "skill-scoped-reader"
    """The reader of a skill's files refuses a path into another skill. Without it the reader
    serves every skill's files alike (its scope is the skills directory): the format allows it."""
    LINKED_SKILL_FOLDERS = "linked-skill-folders"
    """Reads a symbolic link in the skills directory that leads to a skill's folder as that skill,
    as installers that link skill folders expect; the format says nothing of links."""


PROBLEM_FORM = (
    "one line of at most 1,000 characters that names the file at fault by a path ending in"
    " `<folder>/SKILL.md` (relative to the skills directory, or absolute), a failed tool by its"
    " skill and its entry, with the line (`SKILL.md:3` or `line 3`) and the field where the"
    " implementation knows them (problem-locations); the adapter may write the line itself from"
    " what the implementation reports (a log record, a warning), adding nothing it did not say"
)
"""The one definition of a problem line, used by the steps, this port and ``docs/porting.md``."""


class Scope(StrEnum):
    """The registry scopes a skill must be visible at."""

    POOL = "pool"
    SESSION = "session"
    AGENT = "agent"
    TURN = "turn"


class AgentPath(StrEnum):
    """Agent creation paths other than the session pool's own."""

    CHILD_SESSION = "child-session"
    STANDALONE = "standalone"


@dataclass(frozen=True)
class ServerCommand:
    """How to start a stdio MCP server: the suite's own test server, or any other."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolsChild:
    """A non-skill child capability offering plain Python tools; not a skill resource.

    Each tool takes no arguments and returns the text ``"{label}:{tool}"``.
    """

    label: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class McpChild:
    """A non-skill child that is an MCP server.

    Its tools are offered unprefixed; the skills it offers (as MCP resources) are remote skills
    whose source is ``label``. In the host profile's scenarios it is the suite's skills server,
    which declares MCP's Skills Extension: a host (:data:`MCP_SKILLS_HOST`) takes its skills
    through ``skills/list`` and ``skills/get`` instead.
    """

    label: str
    server: ServerCommand


@dataclass(frozen=True)
class Setup:
    """Everything an implementation is opened on, for one scenario.

    Attributes:
        skills_dir: A directory of skill directories, each with a ``SKILL.md``.
        children: Non-skill children of the skill manager, in order.
        skills_tools_provider: Whether the host offers a skill tools provider
            (``load_skill``/``list_skills``) to the agents it creates.
        workdir: A scratch directory the adapter may use; removed after the scenario.
        python_path: Directories of the Python modules the skills' tools name
            (``module:function``), for this scenario only: the implementation imports from them
            as it would from its own import path, and forgets them at ``close``.
        give_up_after: Seconds the scenario asks the implementation to wait, at most, for a tool
            module to import or a skill's MCP server to answer its handshake, where its
            configuration lets them be bounded; ``None`` (most scenarios): its own defaults. Set
            where a module or server of the scenario never finishes, so that the run does not
            wait out a production default.

    """

    skills_dir: Path
    children: tuple[ToolsChild | McpChild, ...] = ()
    skills_tools_provider: bool = True
    workdir: Path | None = None
    python_path: tuple[Path, ...] = ()
    give_up_after: float | None = None


@dataclass(frozen=True)
class SkillListing:
    """One entry of what ``list_skills`` returns."""

    name: str
    description: str
    source: str
    uri: str | None = None


@dataclass(frozen=True)
class ResolvedSkill:
    """What a ``skill://`` URI resolved to."""

    name: str
    instructions: str


@dataclass(frozen=True)
class RunRecord:
    """One agent run in which the model called one tool.

    Attributes:
        offered: The tool names the model was offered in that run, in order.
        result: What the tool returned to the model.

    """

    offered: tuple[str, ...]
    result: object


class AsyncSkillSystem(Protocol):
    """One implementation, opened on one :class:`Setup`, for one scenario.

    Methods are called in scenario order on a single task of one event loop. An operation that
    needs an ability the adapter declared unsupported is never called; one the implementation has
    no equivalent for raises :class:`Unsupported`. An adapter may subclass this protocol and mark
    each method ``@override``: mypy then names any method it misses.
    """

    async def start(self) -> None:
        """Build the skill manager the way production does (the pool's start-up path).

        Called once, before any other operation. Must start no MCP server process.
        """

    async def tool_names(self) -> Sequence[str]:
        """The tool names the model is offered in a real agent run, in order."""

    async def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        """Run an agent whose model calls tool ``name`` with ``arguments`` once."""

    async def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """Call the real ``load_skill`` tool with a bare name or a ``skill://`` URI."""

    async def list_skills(self) -> Sequence[SkillListing]:
        """Call the real ``list_skills`` tool and return its entries."""

    async def read_skill_file(self, skill: str, path: str) -> str:
        """The text of the file at ``path`` (relative to the directory of ``skill``).

        Read through the implementation's own reader, the one that serves a skill's files to
        an agent; ``path`` is passed on as given, even when it is absolute or climbs out with
        ``..``. A path that leads outside the skill is refused with an error, nothing read.
        """

    async def resolve_uri(self, uri: str) -> ResolvedSkill:
        """Resolve ``uri`` through the URI resolver backed by the extension registry."""

    async def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        """Names of all skills the registry's visible skill resources list at ``scope``.

        A skill listed by two registered resources appears twice.
        """

    async def rebuild(self) -> None:
        """Rescan the skills directory and rebuild, through the pool's rebuild path."""

    async def enter(self) -> None:
        """Enter the skill manager (its async context)."""

    async def exit(self) -> None:
        """Exit the skill manager entered by :meth:`enter`."""

    async def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        """Create an agent through ``path`` and return the tool names its model is offered."""

    async def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        """Create an agent through ``path`` and call its own ``load_skill`` tool."""

    def problems(self) -> Sequence[str]:
        """Problems reported so far, each in the form :data:`PROBLEM_FORM` states.

        Bad skills and failed imports are found when building; an MCP server found unusable
        when the manager is entered or during a run is a problem from then on.
        """

    async def close(self) -> None:
        """Shut the host down as production does; after this no process it started may run.

        The suite exits an entered skill manager first, except where a scenario closes without
        exiting: then stopping the manager's servers is the host's own shutdown's to do, so an
        adapter calls that shutdown and does not exit the manager itself.
        """


class SkillSystem(Protocol):
    """The synchronous facade of :class:`AsyncSkillSystem` that the steps use.

    Each method blocks on the :class:`AsyncSkillSystem` method of the same name.
    """

    def start(self) -> None:
        """Blocking :meth:`AsyncSkillSystem.start`."""

    def tool_names(self) -> Sequence[str]:
        """Blocking :meth:`AsyncSkillSystem.tool_names`."""

    def run_tool(self, name: str, arguments: Mapping[str, object]) -> RunRecord:
        """Blocking :meth:`AsyncSkillSystem.run_tool`."""

    def load_skill(self, skill: str, arguments: str | None = None) -> str:
        """Blocking :meth:`AsyncSkillSystem.load_skill`."""

    def list_skills(self) -> Sequence[SkillListing]:
        """Blocking :meth:`AsyncSkillSystem.list_skills`."""

    def read_skill_file(self, skill: str, path: str) -> str:
        """Blocking :meth:`AsyncSkillSystem.read_skill_file`."""

    def resolve_uri(self, uri: str) -> ResolvedSkill:
        """Blocking :meth:`AsyncSkillSystem.resolve_uri`."""

    def registry_skill_names(self, scope: Scope) -> Sequence[str]:
        """Blocking :meth:`AsyncSkillSystem.registry_skill_names`."""

    def rebuild(self) -> None:
        """Blocking :meth:`AsyncSkillSystem.rebuild`."""

    def enter(self) -> None:
        """Blocking :meth:`AsyncSkillSystem.enter`."""

    def exit(self) -> None:
        """Blocking :meth:`AsyncSkillSystem.exit`."""

    def agent_tool_names(self, path: AgentPath) -> Sequence[str]:
        """Blocking :meth:`AsyncSkillSystem.agent_tool_names`."""

    def agent_load_skill(self, path: AgentPath, skill: str) -> str:
        """Blocking :meth:`AsyncSkillSystem.agent_load_skill`."""

    def problems(self) -> Sequence[str]:
        """Blocking :meth:`AsyncSkillSystem.problems`."""

    def close(self) -> None:
        """Blocking :meth:`AsyncSkillSystem.close`."""


CANNOT_DRIVE = "cannot_drive"
"""The optional attribute by which an :class:`Implementation` says it cannot drive what is
installed at all (a version whose entry points its adapter does not know): a one-line reason."""


def cannot_drive(implementation: object) -> str | None:
    """Why the adapter of ``implementation`` cannot drive it at all, or ``None`` if it can."""
    reason = getattr(implementation, CANNOT_DRIVE, None)
    return reason if isinstance(reason, str) and reason else None


MCP_SKILLS_HOST = "mcp_skills_host"
"""The optional attribute by which an :class:`Implementation` declares itself a host of MCP's
Skills Extension (``True``): a skill system that takes skills from the MCP servers it is given as
children (:class:`McpChild`) through ``skills/list`` and ``skills/get``. Only then does a run
include the host profile's scenarios (``@profile:mcp-host``); an implementation without the
attribute is not judged by them at all."""


def hosts_mcp_skills(implementation: object) -> bool:
    """Whether ``implementation`` declares itself a host of MCP's Skills Extension."""
    return getattr(implementation, MCP_SKILLS_HOST, False) is True


SKILL_TOOLS = "skill_tools"
"""The optional attribute by which an :class:`Implementation` names the tools its agents get in
place of the two the specs call ``load_skill`` and ``list_skills``: a mapping from either name to
the tool that does that work (``{"load_skill": "read_text_file"}`` for a design whose model reads
``SKILL.md`` with a file tool), or to ``None`` where no tool does it (a catalogue in the system
prompt instead of ``list_skills``). Unmapped names stand for themselves."""


def skill_tool_names(implementation: object, *names: str) -> dict[str, str | None]:
    """What each of ``names`` (``load_skill``, ``list_skills``) is called in ``implementation``."""
    mapping = getattr(implementation, SKILL_TOOLS, None)
    mapping = mapping if isinstance(mapping, Mapping) else {}
    return {name: mapping.get(name, name) for name in names}


@runtime_checkable
class Implementation(Protocol):
    """An implementation under test, as ``--impl`` selects it.

    Attributes:
        name: Short name shown in reports (``reference``, ``agentpool``...).
        version: The implementation's version, shown in the results header.
        unsupported: Abilities this adapter cannot provide, each with the reason shown
            for the scenarios that need it.

    An adapter that finds an installed version it cannot drive at all sets ``cannot_drive`` to
    the reason (:data:`CANNOT_DRIVE`), else to ``None``: every scenario then gets the verdict
    *cannot drive* with it, instead of a column of failures that say nothing about the
    implementation.

    """

    name: str
    version: str
    unsupported: Mapping[Ability, str]
    cannot_drive: str | None
    """Why the adapter cannot drive what is installed at all, or ``None`` (see above)."""

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """Prepare (but do not start) a system for one scenario."""
        ...

    def close(self) -> None:
        """Release what the implementation holds for the whole run (a process it talks to, say).

        Called once, after the last scenario, also when the run was interrupted; an adapter
        holding nothing does nothing.
        """
        ...
