"""Skills served over MCP's Skills Extension (``io.modelcontextprotocol/skills``): the host's side.

:class:`ServedSkillsCap` is an MCP server child whose skills come, when the server declares the
extension, from ``skills/list`` and ``skills/get``, never from its resource list; a server that
does not declare it is a remote skill provider of the older kind (:class:`McpServerCap`: each
resource a skill). As a host it:

- loads a skill from its ``SKILL.md`` URI alone (``skills/get`` of the URI, listed or not), the
  skill's name the last segment of its path;
- checks the bytes of ``SKILL.md`` it reads against the digest and size of the skill's entry, and
  refuses a skill whose bytes differ, reporting it on one line;
- offers no nested skill (one whose path continues another served skill's) as a skill: that takes
  an approval, which this host has no way to ask for.

Each question opens its own connection (the ``mcp`` SDK's client session over stdio), bounded by
the startup timeout, and closes it before answering.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from mcp import ClientSession, types
from mcp.shared import exceptions as _exceptions

from skill_conformance.reference.capabilities import McpServerCap
from skill_conformance.reference.errors import SecurityError, SkillNotFoundError
from skill_conformance.reference.mcp_client import STARTUP_TIMEOUT, McpServer
from skill_conformance.reference.resources import SkillEntry
from skill_conformance.reference.skill import Skill
from skill_conformance.reference.stdio import bounded_stdio_client

McpError: type[Exception] = getattr(_exceptions, "MCPError", None) or _exceptions.McpError
"""The SDK's exception for an error answer: ``McpError`` on mcp 1.x, ``MCPError`` on 2.x."""

__all__ = ["EXTENSION", "ServedSkillsCap"]

EXTENSION = "io.modelcontextprotocol/skills"
_SKILL_FILE = "/SKILL.md"


class _Request(types.Request[dict[str, Any], str]):
    """A request of any method: the extension's are not in the SDK's model."""

    method: str
    params: dict[str, Any]


class ServedSkillsCap(McpServerCap):
    """An MCP server child; a host of the Skills Extension when the server declares it.

    Args:
        server: The server's toolset (its tools are offered as :class:`McpServerCap` offers them).
        command: How to start it for the host's own questions.
        report: Where a refused skill is reported, one line each.
        timeout: Seconds each question may take, start and handshake included.

    """

    def __init__(
        self,
        server: McpServer,
        command: tuple[str, tuple[str, ...], Mapping[str, str]],
        report: Callable[[str], None],
        timeout: float = STARTUP_TIMEOUT,
    ) -> None:
        super().__init__(server)
        self._command = command
        self._report = report
        self._timeout = timeout
        self._declares: bool | None = None

    # -- the connection --------------------------------------------------------------------

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[ClientSession]:
        command, args, env = self._command
        async with (
            bounded_stdio_client(command, list(args), dict(env) or None) as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(self._timeout):
                result = await session.initialize()
            capabilities = result.capabilities.model_dump(by_alias=True)
            extensions = capabilities.get("extensions") or {}
            self._declares = isinstance(extensions, dict) and EXTENSION in extensions
            yield session

    async def _call(self, session: ClientSession, method: str, **params: Any) -> dict[str, Any]:
        with anyio.fail_after(self._timeout):
            request = cast("types.ClientRequest", _Request(method=method, params=params))
            result = await session.send_request(request, types.Result)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    @property
    def declared(self) -> bool:
        """Whether the server was found to declare the Skills Extension (so far)."""
        return bool(self._declares)

    async def declares_extension(self) -> bool:
        """Whether the server declares the Skills Extension (asked once).

        Read from the connection the pool opened, where it is open and the toolset keeps what the
        handshake said; else asked on a connection of its own.
        """
        if self._declares is None and self.server.is_running:
            declared = self.server.extensions()
            if declared is not None:
                self._declares = EXTENSION in declared
        if self._declares is None:
            try:
                async with self._session():
                    pass
            except Exception:
                self._declares = False
        return bool(self._declares)

    # -- as a skill resource -----------------------------------------------------------------

    async def list_skills(self) -> list[SkillEntry]:
        """The skills ``skills/list`` gives, nested ones left out; else the older resources."""
        if not await self.declares_extension():
            return await super().list_skills()
        async with self._session() as session:
            listed = (await self._call(session, "skills/list")).get("skills", [])
            entries = [entry for entry in listed if isinstance(entry, dict)]
            uris = {str(entry.get("uri", "")) for entry in entries}
            kept = []
            for entry in entries:
                uri = str(entry.get("uri", ""))
                root = _root(uri)
                if root is None or await self._nested(session, uri, uris):
                    continue
                frontmatter = entry.get("frontmatter") or {}
                name = str(frontmatter.get("name") or root.rsplit("/", 1)[-1])
                description = str(frontmatter.get("description") or name)
                kept.append(SkillEntry(name, description, self.label, str(entry["uri"])))
        return kept

    async def read_skill(self, name: str) -> Skill:
        """The served skill listed as ``name`` (or, without the extension, the resource)."""
        if not await self.declares_extension():
            return await super().read_skill(name)
        for entry in await self.list_skills():
            if entry.name == name and entry.uri is not None:
                return await self.load_uri(entry.uri)
        raise SkillNotFoundError(name)

    async def serves(self, uri: str) -> bool:
        """Whether ``uri`` may name a skill of this server: a ``SKILL.md`` URI, the extension on."""
        return _root(uri) is not None and await self.declares_extension()

    async def load_uri(self, uri: str) -> Skill:
        """The skill whose ``SKILL.md`` is at ``uri``, from the URI alone, its bytes verified.

        Raises:
            SkillNotFoundError: The server serves no skill there.
            SecurityError: The skill is nested in another (not approved), or its bytes do not
                match its digest and size (also reported).

        """
        root = _root(uri)
        if root is None:
            raise SkillNotFoundError(uri)
        # Raised only once the connection is closed: its task group would wrap the error.
        entry: dict[str, Any] | None = None
        nested = False
        async with self._session() as session:
            try:
                entry = (await self._call(session, "skills/get", uri=uri)).get("skill") or {}
            except McpError:
                entry = None
            if entry is not None:
                nested = await self._nested(session, uri, set())
                data = b"" if nested else await self._read(session, uri)
        if entry is None:
            raise SkillNotFoundError(uri)
        if nested:
            raise SecurityError(f"{uri} is nested in another served skill: not approved")
        self._verify(uri, entry, data)
        body = _body(data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n"))
        frontmatter = entry.get("frontmatter") or {}
        name = str(frontmatter.get("name") or root.rsplit("/", 1)[-1])
        return Skill(
            name=name,
            description=str(frontmatter.get("description") or name),
            instructions=body.strip("\n"),
            source=self.label,
        )

    # -- the checks --------------------------------------------------------------------------

    async def _nested(self, session: ClientSession, uri: str, listed: set[str]) -> bool:
        """Whether the skill at ``uri`` lies inside another served skill (listed, or served)."""
        scheme = uri.partition("://")[0]
        segments = (_root(uri) or "").split("/")
        for end in range(1, len(segments)):
            enclosing = f"{scheme}://{'/'.join(segments[:end])}{_SKILL_FILE}"
            if enclosing in listed:
                return True
            try:
                await self._call(session, "skills/get", uri=enclosing)
            except McpError:
                continue
            return True
        return False

    async def _read(self, session: ClientSession, uri: str) -> bytes:
        with anyio.fail_after(self._timeout):
            result = await session.read_resource(uri)  # type: ignore[arg-type]
        data = b""
        for content in result.contents:
            if isinstance(content, types.TextResourceContents):
                data += content.text.encode("utf-8")
            elif isinstance(content, types.BlobResourceContents):
                data += base64.b64decode(content.blob)
        return data

    def _verify(self, uri: str, entry: Mapping[str, Any], data: bytes) -> None:
        listed = [
            resource
            for resource in entry.get("resources") or []
            if isinstance(resource, dict) and resource.get("uri") == uri
        ]
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        if listed and listed[0].get("digest") == digest and listed[0].get("size") == len(data):
            return
        expected = (
            f"{listed[0].get('digest')}, {listed[0].get('size')} bytes" if listed else "no entry"
        )
        problem = (
            f"{uri}: served by {self.label!r}: the entry gives {expected}, the bytes read are "
            f"{digest}, {len(data)} bytes; skill refused"
        )
        self._report(problem)
        raise SecurityError(problem)


def _root(uri: str) -> str | None:
    """The part of a ``SKILL.md`` URI between its scheme and ``/SKILL.md``; else ``None``."""
    scheme, separator, rest = uri.partition("://")
    if not separator or not scheme or not rest.endswith(_SKILL_FILE):
        return None
    root = rest[: -len(_SKILL_FILE)]
    return root if root and "" not in root.split("/") else None


def _body(text: str) -> str:
    """The instructions: what follows the frontmatter's closing ``---`` line (all without one)."""
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---\n", 3)
    return text if end < 0 else text[end + len("\n---\n") :]
