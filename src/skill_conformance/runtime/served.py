"""The server profile: an MCP server under test, the skills a scenario writes for it, its answers.

A server under test is given as an MCP-server entry, the form MCP clients configure servers in:
``{"command": ..., "args": [...], "env": {...}}``, optionally with ``"name"``, ``"version"`` and
``"unsupported"`` (optional features the server lacks, each with its reason: ``prefixed-skills``,
``nested-skills``). ``{skills}`` in an argument or an environment value is replaced by the folder
the scenario wrote its skills into. ``reference`` names the suite's own skills server.

The suite is the MCP client, through the ``mcp`` SDK's session, on one protocol era: the
``initialize`` handshake (``2025-11-25``, every SDK) or ``server/discover`` (``2026-07-28``, the
``mcp`` 2.x SDK). Every request is sent as written
(a URI is not parsed, so ``..`` and percent-escapes reach the server as they are) and every answer
is kept, so that a scenario can say that none of them held a secret.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from skill_conformance.errors import ImplementationError, InputError
from skill_conformance.verdicts import expect

__all__ = [
    "ERAS",
    "EXTENSION",
    "HANDSHAKE_ERA",
    "MODERN_ERA",
    "ProfileAbility",
    "RpcFailure",
    "ServedTree",
    "ServerEntry",
    "SkillsClient",
    "digest",
    "protocol_era",
]

EXTENSION = "io.modelcontextprotocol/skills"
HANDSHAKE_ERA = "2025-11-25"
"""The newest revision reached by the ``initialize`` handshake."""
MODERN_ERA = "2026-07-28"
"""The revision the extension is written against, reached by ``server/discover``."""
ERAS = (HANDSHAKE_ERA, MODERN_ERA)
_ABILITIES = ("prefixed-skills", "nested-skills", *ERAS)


def protocol_era(option: str, value: object) -> str:
    """``value`` as one of :data:`ERAS`."""
    if value is None:
        return HANDSHAKE_ERA
    if value not in ERAS:
        raise InputError(f"{option}: {value!s:.40} is not one of {', '.join(ERAS)}")
    return str(value)


PLACEHOLDER = "{skills}"

ProfileAbility = str
"""An optional feature of a server: ``prefixed-skills``, ``nested-skills``, or a protocol era
(``2025-11-25``, ``2026-07-28``) on which it does not serve the extension."""


def digest(data: bytes) -> str:
    """The digest the extension gives a file: ``sha256:`` and 64 lowercase hex digits."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ServerEntry:
    """How to start the server under test, and what it declares it lacks."""

    name: str
    version: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    unsupported: Mapping[ProfileAbility, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, option: str, value: str) -> ServerEntry:
        """The entry ``value`` gives: ``reference``, a JSON object, or a file holding one."""
        if value == "reference":
            return cls(
                "skills-server",
                _suite_version(),
                sys.executable,
                ("-m", "skill_conformance.testing.skills_server", PLACEHOLDER),
                unsupported={
                    MODERN_ERA: "the suite's skills server is written on the mcp 1.x SDK, "
                    f"which speaks no protocol after {HANDSHAKE_ERA}"
                },
            )
        text = value
        if not value.lstrip().startswith("{"):
            try:
                text = Path(value).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise InputError(f"{option} {value!r}: cannot read: {error}") from None
        try:
            data = json.loads(text)
        except ValueError as error:
            raise InputError(f"{option}: not JSON: {error}") from None
        return cls._of(option, data)

    @classmethod
    def _of(cls, option: str, data: object) -> ServerEntry:
        if not isinstance(data, dict):
            raise InputError(f"{option}: an MCP server entry is a JSON object")
        command, args, env = data.get("command"), data.get("args", []), data.get("env", {})
        if "url" in data and command is None:
            raise InputError(
                f"{option}: a url entry names a server already running, which cannot serve the "
                "skills each scenario writes; give a command (with {skills})"
            )
        if not isinstance(command, str) or not command:
            raise InputError(f"{option}: 'command' must be a non-empty string")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise InputError(f"{option}: 'args' must be a list of strings")
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise InputError(f"{option}: 'env' must map strings to strings")
        unsupported = data.get("unsupported", {})
        if not isinstance(unsupported, dict) or not all(
            k in _ABILITIES and isinstance(v, str) for k, v in unsupported.items()
        ):
            raise InputError(
                f"{option}: 'unsupported' maps {', '.join(_ABILITIES)} to the reason, a string"
            )
        name, version = data.get("name", "mcp-server"), data.get("version", "unknown")
        if not isinstance(name, str) or not isinstance(version, str):
            raise InputError(f"{option}: 'name' and 'version' must be strings")
        return cls(name, version, command, tuple(args), dict(env), dict(unsupported))

    def placed(self, skills: Path) -> tuple[str, list[str], dict[str, str]]:
        """The command, arguments and environment with ``{skills}`` replaced by ``skills``."""
        where = str(skills)
        return (
            self.command,
            [a.replace(PLACEHOLDER, where) for a in self.args],
            {k: v.replace(PLACEHOLDER, where) for k, v in self.env.items()},
        )


def _suite_version() -> str:
    from skill_conformance import __version__

    return __version__


@dataclass
class ServedTree:
    """The skills a scenario wrote into the served folder, and the files it put beside it."""

    root: Path
    """The served folder (``{skills}``)."""
    outside: Path
    """A folder beside it, never served."""
    skills: dict[str, dict[str, bytes]] = field(default_factory=dict)
    """By skill path (``acme/billing/refunds``): each file's path in the skill and its bytes."""
    frontmatter: dict[str, str] = field(default_factory=dict)
    """By skill path: the YAML text of its frontmatter, as written."""
    links: dict[str, list[str]] = field(default_factory=dict)
    """By skill path: the paths in the skill that are symbolic links out of the tree."""

    def add_skill(
        self, path: str, extra: str = "", *, bom: bool = False, crlf: bool = False
    ) -> None:
        """Write the skill at ``path`` (its last segment its name), with a ``SKILL.md``."""
        name = path.rsplit("/", 1)[-1]
        yaml = f"name: {name}\ndescription: Skill {name}.\n{extra}"
        text = f"---\n{yaml}---\n\n# {name}\n\nInstructions of {name}.\n"
        if crlf:
            text = text.replace("\n", "\r\n")
        data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
        self.skills[path] = {}
        self.frontmatter[path] = yaml
        self.add_file(path, "SKILL.md", data)

    def add_file(self, skill: str, relative: str, data: bytes) -> None:
        """Write ``relative`` into ``skill``; a skill enclosing it gets the file as its own too."""
        target = self.root / skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self._record(skill, relative, data)

    def add_hard_link(self, skill: str, relative: str, source: str) -> None:
        """Make ``relative`` a hard link to the file ``source`` outside the tree."""
        target = self.root / skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.hardlink_to(self.outside / source)
        self._record(skill, relative, (self.outside / source).read_bytes())

    def add_link_out(self, skill: str, relative: str, source: str) -> None:
        """Make ``relative`` a symbolic link to the file ``source`` outside the tree."""
        target = self.root / skill / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(self.outside / source)
        self.links.setdefault(skill, []).append(relative)

    def write_outside(self, relative: str, data: bytes) -> None:
        """Write a file beside the served folder, which no answer may reveal."""
        target = self.outside / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def _record(self, skill: str, relative: str, data: bytes) -> None:
        for path, files in self.skills.items():
            if path == skill:
                files[relative] = data
            elif skill.startswith(path + "/"):
                files[f"{skill[len(path) + 1 :]}/{relative}"] = data

    def skill_path(self, name: str) -> str:
        """The path of the skill named ``name`` (the last segment of its path)."""
        for path in self.skills:
            if path.rsplit("/", 1)[-1] == name:
                return path
        raise KeyError(name)


def _cannot_spawn(error: BaseException) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return any(_cannot_spawn(e) for e in error.exceptions)
    return isinstance(error, FileNotFoundError | PermissionError)


def _last_line(log: Path, limit: int = 200) -> str:
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "(no stderr)"
    last = lines[-1].strip() if lines else "(nothing)"
    return last if len(last) <= limit else last[:limit] + "..."


@dataclass(frozen=True)
class RpcFailure:
    """A JSON-RPC error the server answered with."""

    code: int
    message: str


class SkillsClient:
    """One connection of the suite, as MCP client, to the server under test."""

    def __init__(
        self,
        entry: ServerEntry,
        tree: ServedTree,
        log: Path,
        timeout: float,
        era: str = HANDSHAKE_ERA,
    ) -> None:
        self.entry = entry
        self.tree = tree
        self.timeout = timeout
        self.era = era
        self.answers: list[str] = []
        """Every answer, result or error, as JSON text."""
        self._log = log
        self._stack = contextlib.ExitStack()
        self._portal: Any = None
        self.initialized: dict[str, Any] = {}
        self.refusal = ""
        """Why the connection is not on :attr:`era` (empty: it is): the server or the SDK."""

    def open(self) -> None:
        """Start the server and initialize the connection."""
        from anyio.from_thread import start_blocking_portal

        self._portal = self._stack.enter_context(start_blocking_portal())
        manager = self._portal.wrap_async_context_manager(self._session())
        try:
            self._session_object = self._stack.enter_context(manager)
        except TimeoutError:
            self.close()
            raise ImplementationError(
                f"the server did not initialize within {self.timeout:g} s"
            ) from None
        except Exception as error:
            self.close()
            if _cannot_spawn(error):
                raise ImplementationError(
                    f"the server's command cannot be started: {error}"
                ) from None
            method = "initialize" if self.era == HANDSHAKE_ERA else "server/discover"
            expect(
                False,
                f"the server ended without answering {method} on the folder the scenario wrote",
                expected=f"a server answering {method}",
                observed=f"its stderr ends: {_last_line(self._log)}",
            )

    def close(self) -> None:
        """Stop the server."""
        with contextlib.suppress(Exception):
            self._stack.close()

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[Any]:
        import anyio
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        command, args, env = self.entry.placed(self.tree.root)
        parameters = StdioServerParameters(command=command, args=args, env=env or None)
        with self._log.open("w", encoding="utf-8") as errlog:
            async with (
                stdio_client(parameters, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(self.timeout):
                    result = await self._connect(session)
                self.initialized = result
                yield session

    async def _connect(self, session: Any) -> dict[str, Any]:
        """The answer of ``initialize``, or of ``server/discover`` (empty: not offered)."""
        if self.era == HANDSHAKE_ERA:
            handshake: dict[str, Any] = (await session.initialize()).model_dump(
                by_alias=True, mode="json"
            )
            return handshake
        if not hasattr(session, "discover"):
            self.refusal = (
                f"the suite's client (mcp {_sdk_version()}) cannot speak it (mcp 2.x can)"
            )
            return {}
        while True:  # bounded by the caller's timeout
            try:
                result = await session.discover()
                break
            except _rpc_error() as raised:
                error = _failure(raised)
                if error.code == _REQUEST_TIMEOUT:
                    continue  # the SDK's own 10 s; a slow start answers a later probe
                if error.code == _CONNECTION_CLOSED:  # the server ended: not an answer
                    raise
                self.answers.append(json.dumps({"code": error.code, "message": error.message}))
                self.refusal = f"server/discover answered error {error.code}: {error.message:.200}"
                return {}
        discovered: dict[str, Any] = result.model_dump(by_alias=True, mode="json")
        return discovered | {"protocolVersion": session.protocol_version}

    @property
    def protocol(self) -> str:
        """The protocol revision the connection uses."""
        return str(self.initialized.get("protocolVersion", self.era))

    @property
    def settings(self) -> object:
        """What the server declared for the extension (``None``: nothing)."""
        extensions = self.initialized.get("capabilities", {}).get("extensions")
        return extensions.get(EXTENSION) if isinstance(extensions, dict) else None

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any] | RpcFailure:
        """Send ``method`` with ``params`` as written; its result, or the error answered."""
        return cast(
            "dict[str, Any] | RpcFailure", self._portal.call(self._request, method, dict(params))
        )

    async def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any] | RpcFailure:
        import anyio
        from mcp import types

        class _Any(types.Request[dict[str, Any], str]):
            method: str
            params: dict[str, Any]

        try:
            with anyio.fail_after(self.timeout):
                result = await self._session_object.send_request(
                    _Any(method=method, params=params), _result_type()
                )
        except TimeoutError:
            raise ImplementationError(f"{method} got no answer within {self.timeout:g} s") from None
        except _rpc_error() as raised:
            failure = _failure(raised)
            self.answers.append(json.dumps({"code": failure.code, "message": failure.message}))
            if failure.code == -32000 and "closed" in failure.message.lower():
                raise ImplementationError(
                    f"{method}: the server closed the connection; its stderr is in {self._log}"
                ) from None
            return failure
        answer: dict[str, Any] = (
            result
            if isinstance(result, dict)
            else result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )
        self.answers.append(json.dumps(answer, ensure_ascii=False))
        return answer


_CONNECTION_CLOSED = -32000
"""The code the SDK raises when the server's stream ends (no server sent it)."""
_REQUEST_TIMEOUT = -32001
"""The code the SDK raises when an answer did not come in time (no server sent it)."""


def _rpc_error() -> type[Exception]:
    """The SDK's exception for an error answer: ``McpError`` (1.x) or ``MCPError`` (2.x)."""
    from mcp.shared import exceptions

    found: type[Exception] = getattr(exceptions, "MCPError", None) or exceptions.McpError
    return found


def _failure(error: Exception) -> RpcFailure:
    """The code and message of the SDK's exception for an error answer."""
    data = getattr(error, "error", None)
    return RpcFailure(int(getattr(data, "code", 0)), str(getattr(data, "message", error)))


def _result_type() -> Any:
    """What a result is parsed as: every field kept (2.x's ``Result`` drops unknown ones)."""
    from mcp import types

    if hasattr(types.Result, "model_config") and types.Result.model_config.get("extra") == "allow":
        return types.Result
    from pydantic import TypeAdapter

    return TypeAdapter(dict[str, Any])


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("mcp")


@contextlib.contextmanager
def connected(
    entry: ServerEntry, tree: ServedTree, log: Path, timeout: float
) -> Iterator[SkillsClient]:
    """A client connected to a server started on ``tree``; the server stopped afterwards."""
    client = SkillsClient(entry, tree, log, timeout)
    client.open()
    try:
        yield client
    finally:
        client.close()
