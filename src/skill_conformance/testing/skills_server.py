"""The suite's reference skills server: a folder of skills served per MCP's Skills Extension.

::

    python -m skill_conformance.testing.skills_server SKILLS_DIR

Serves, over stdio, every folder below ``SKILLS_DIR`` holding a ``SKILL.md`` whose frontmatter
``name`` is the folder's name (prefixed and nested skills included) as ``skill://<path>/SKILL.md``,
with ``skills/list``, ``skills/get`` and ``resources/directory/read``. It reads the folder anew
for each request, follows no symbolic link, and serves a URI only if it is one of the URIs it
lists: ``..``, percent-escapes and links out of the folder reach nothing. Written on the ``mcp``
SDK's server session; the SDK's request model is widened by the extension's three methods (and
``resources/read``, whose URI the SDK would otherwise normalize before it could be refused).
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Union, cast
from urllib.parse import quote, unquote

import anyio
import yaml
from mcp import types
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.session import RequestResponder
from pydantic import ConfigDict, RootModel

__all__ = ["SkillsFolder", "main", "serve"]

EXTENSION = "io.modelcontextprotocol/skills"
INVALID_PARAMS = -32602
DIRECTORY = "inode/directory"


class _Params(types.RequestParams):
    model_config = ConfigDict(extra="allow")


class _ExtensionRequest(types.Request[_Params | None, str]):
    method: Literal["skills/list", "skills/get", "resources/directory/read", "resources/read"]
    params: _Params | None = None


_Known = tuple(
    member for member in types.ClientRequestType.__args__ if member is not types.ReadResourceRequest
)


_Incoming = RootModel[Union[(*_Known, _ExtensionRequest)]]  # type: ignore[valid-type]
"""Every request the SDK knows, but ``resources/read``, and the extension's."""


class _Refused(Exception):
    """A request refused with Invalid params."""


def _frontmatter(data: bytes) -> dict[str, Any] | None:
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return None
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    try:
        loaded = yaml.safe_load(text[4:end])
    except yaml.YAMLError:
        return None
    return loaded if isinstance(loaded, dict) else None


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _uri(segments: list[str]) -> str:
    return "skill://" + "/".join(quote(s, safe="") for s in segments)


class SkillsFolder:
    """The skills of one folder, read anew on each question."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _walk(self, folder: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
        for top, dirs, files in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not (Path(top) / d).is_symlink())
            yield Path(top), dirs, sorted(f for f in files if _regular(Path(top) / f))

    def skills(self) -> dict[str, tuple[Path, dict[str, Any]]]:
        """By ``SKILL.md`` URI: each skill's folder and frontmatter."""
        found: dict[str, tuple[Path, dict[str, Any]]] = {}
        for top, _dirs, files in self._walk(self.root):
            if "SKILL.md" not in files or top == self.root:
                continue
            frontmatter = _frontmatter((top / "SKILL.md").read_bytes())
            if frontmatter is None or frontmatter.get("name") != top.name:
                continue
            segments = list(top.relative_to(self.root).parts)
            found[_uri([*segments, "SKILL.md"])] = (top, frontmatter)
        return found

    def files(self, folder: Path) -> dict[str, Path]:
        """By URI: every regular file below ``folder``."""
        base = list(folder.relative_to(self.root).parts)
        return {
            _uri([*base, *(top / name).relative_to(folder).parts]): top / name
            for top, _dirs, files in self._walk(folder)
            for name in files
        }

    def entry(self, uri: str) -> dict[str, Any]:
        """The ``Skill`` entry of the skill at ``uri``."""
        found = self.skills().get(uri)
        if found is None:
            raise _Refused(f"No skill is served at {uri}")
        folder, frontmatter = found
        resources = []
        for file_uri, path in self.files(folder).items():
            data = path.read_bytes()
            resources.append(
                {
                    "uri": file_uri,
                    "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                    "size": len(data),
                }
            )
        return {"uri": uri, "frontmatter": frontmatter, "resources": resources}

    def served_path(self, uri: str) -> Path | None:
        """The folder or file a URI names, when it lies in a served skill; else ``None``."""
        if not uri.startswith("skill://"):
            return None
        segments = [unquote(s) for s in uri[len("skill://") :].split("/")]
        if any(s in ("", ".", "..") or "/" in s or "\\" in s for s in segments):
            return None
        canonical = _uri(segments)
        for skill_uri, (folder, _frontmatter) in self.skills().items():
            root = skill_uri[: -len("/SKILL.md")]
            if canonical == root or canonical.startswith(root + "/"):
                path = self.root.joinpath(*segments)
                if canonical in self.files(folder) or self._is_dir(path):
                    return path
        return None

    @staticmethod
    def _is_dir(path: Path) -> bool:
        try:
            return stat.S_ISDIR(os.lstat(path).st_mode)
        except OSError:
            return False

    def read(self, uri: str) -> dict[str, Any]:
        """The ``resources/read`` result of a served file."""
        path = self.served_path(uri)
        if path is None or not _regular(path):
            raise _Refused(f"No resource is served at {uri}")
        data = path.read_bytes()
        mime = "text/markdown" if path.suffix == ".md" else mimetypes.guess_type(path.name)[0]
        content: dict[str, Any] = {"uri": uri, "mimeType": mime or "application/octet-stream"}
        try:
            content["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            content["blob"] = base64.b64encode(data).decode()
        return {"contents": [content]}

    def directory(self, uri: str) -> dict[str, Any]:
        """The ``resources/directory/read`` result of a served folder."""
        path = self.served_path(uri)
        if path is None or not self._is_dir(path):
            raise _Refused(f"{uri} is not a directory resource")
        children = []
        for child in sorted(path.iterdir()):
            child_uri = f"{uri}/{quote(child.name, safe='')}"
            if self._is_dir(child):
                children.append({"uri": child_uri, "name": child.name, "mimeType": DIRECTORY})
            elif _regular(child):
                children.append({"uri": child_uri, "name": child.name})
        return {"resources": children}

    def listing(self) -> dict[str, Any]:
        """The ``skills/list`` result: every skill, on one page."""
        return {
            "skills": [self.entry(uri) for uri in self.skills()],
            "ttlMs": 0,
            "cacheScope": "private",
        }

    def resources(self) -> dict[str, Any]:
        """The ``resources/list`` result: each skill's ``SKILL.md``."""
        return {
            "resources": [
                {
                    "uri": uri,
                    "name": str(frontmatter.get("name")),
                    "description": str(frontmatter.get("description", "")),
                    "mimeType": "text/markdown",
                }
                for uri, (_folder, frontmatter) in self.skills().items()
            ]
        }

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of ``method``; :class:`_Refused` for Invalid params."""
        uri = params.get("uri")
        if method in ("skills/get", "resources/read", "resources/directory/read") and not (
            isinstance(uri, str)
        ):
            raise _Refused("params.uri must be a string")
        if method == "skills/list":
            return self.listing()
        if method == "skills/get":
            return {"skill": self.entry(cast(str, uri)), "ttlMs": 0, "cacheScope": "private"}
        if method == "resources/read":
            return self.read(cast(str, uri))
        if method == "resources/directory/read":
            return self.directory(cast(str, uri))
        if method == "resources/list":
            return self.resources()
        return {}


async def serve(folder: SkillsFolder) -> None:
    """Serve ``folder`` over stdio until the client closes the connection."""
    capabilities = types.ServerCapabilities(
        resources=types.ResourcesCapability(),
        **{"extensions": {EXTENSION: {"directoryRead": True}}},  # type: ignore[arg-type]
    )
    options = InitializationOptions(
        server_name="skill-conformance-skills-server",
        server_version="1",
        capabilities=capabilities,
    )
    async with stdio_server() as (read, write):
        session = ServerSession(read, write, options)
        session._receive_request_type = _Incoming  # the widened model
        async with session:
            async for message in session.incoming_messages:
                if isinstance(message, RequestResponder):
                    with message:
                        await _respond(folder, message)


async def _respond(folder: SkillsFolder, message: RequestResponder[Any, Any]) -> None:
    request = message.request.root
    method = str(request.method)
    params = request.params
    raw = params.model_dump(by_alias=True, mode="json") if params is not None else {}
    if method not in (
        "skills/list",
        "skills/get",
        "resources/read",
        "resources/directory/read",
        "resources/list",
        "resources/templates/list",
        "ping",
    ):
        await message.respond(
            types.ErrorData(code=types.METHOD_NOT_FOUND, message=f"Method not found: {method}")
        )
        return
    try:
        result = folder.answer(method, raw)
    except _Refused as refused:
        await message.respond(types.ErrorData(code=INVALID_PARAMS, message=str(refused)))
        return
    if method == "resources/templates/list":
        result = {"resourceTemplates": []}
    await message.respond(types.Result(**result))


def main(argv: list[str] | None = None) -> int:
    """Serve the folder named on the command line over stdio."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 1:
        print(
            "usage: python -m skill_conformance.testing.skills_server SKILLS_DIR", file=sys.stderr
        )
        return 2
    anyio.run(serve, SkillsFolder(Path(arguments[0]).resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
