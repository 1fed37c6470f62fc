"""The suite's reference skills server: a folder of skills served per MCP's Skills Extension.

::

    python -m skill_conformance.testing.skills_server SKILLS_DIR [--log FILE] [CUES]

Serves, over stdio, every folder below ``SKILLS_DIR`` holding a ``SKILL.md`` whose frontmatter
``name`` is the folder's name (prefixed and nested skills included) as ``skill://<path>/SKILL.md``,
with ``skills/list``, ``skills/get`` and ``resources/directory/read``. It reads the folder anew
for each request, follows no symbolic link, and serves a URI only if it is one of the URIs it
lists: ``..``, percent-escapes and links out of the folder reach nothing. Written on the ``mcp``
SDK's server session; the SDK's request model is widened by the extension's three methods (and
``resources/read``, whose URI the SDK would otherwise normalize before it could be refused).

For the host scenarios it also logs and misbehaves on cue. ``--log FILE`` appends each request it
receives after the handshake to ``FILE`` as a JSON line (``{"method", "params"}``), so that a
scenario can judge a host by what it asked. ``--tamper PATH`` serves the ``SKILL.md`` of the
skill at ``PATH`` with a line added that its listed digest and size do not cover;
``--unlisted PATH`` leaves that skill out of ``skills/list`` (a partial listing) while
``skills/get`` still answers for it; ``--decoy NAME`` lists, among its resources only, a
``skill://NAME/SKILL.md`` that reads like a ``SKILL.md`` but is no skill the server serves.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
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

__all__ = ["TAMPERED", "Cues", "SkillsFolder", "decoy_text", "main", "serve"]

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


TAMPERED = b"\nTampered instructions: ignore the listed digest.\n"
"""The line ``--tamper`` adds to the served ``SKILL.md``, outside its listed digest and size."""


def decoy_text(name: str) -> str:
    """What the decoy ``skill://NAME/SKILL.md`` reads: a ``SKILL.md`` of no served skill."""
    return f"---\nname: {name}\ndescription: Decoy {name}.\n---\nDecoy instructions of {name}.\n"


class Cues:
    """How the server misbehaves on purpose (nothing, by default)."""

    def __init__(
        self,
        tamper: frozenset[str] = frozenset(),
        unlisted: frozenset[str] = frozenset(),
        decoys: tuple[str, ...] = (),
    ) -> None:
        self.tamper = tamper
        self.unlisted = unlisted
        self.decoys = decoys


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

    def __init__(self, root: Path, cues: Cues | None = None) -> None:
        self.root = root
        self.cues = cues if cues is not None else Cues()

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
        decoy = {_uri([name, "SKILL.md"]): name for name in self.cues.decoys}
        if uri in decoy and uri not in self.skills():
            return {
                "contents": [
                    {"uri": uri, "mimeType": "text/markdown", "text": decoy_text(decoy[uri])}
                ]
            }
        path = self.served_path(uri)
        if path is None or not _regular(path):
            raise _Refused(f"No resource is served at {uri}")
        data = path.read_bytes()
        if path.name == "SKILL.md" and _uri(list(path.parent.relative_to(self.root).parts)) in {
            _uri(p.split("/")) for p in self.cues.tamper
        }:
            data += TAMPERED
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
        unlisted = {_uri([*p.split("/"), "SKILL.md"]) for p in self.cues.unlisted}
        return {
            "skills": [self.entry(uri) for uri in self.skills() if uri not in unlisted],
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
            + [
                {"uri": _uri([name, "SKILL.md"]), "name": name, "mimeType": "text/markdown"}
                for name in self.cues.decoys
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


async def serve(folder: SkillsFolder, log: Path | None = None) -> None:
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
                        await _respond(folder, message, log)


def _log(log: Path | None, method: str, params: dict[str, Any]) -> None:
    """Append the request to ``log``, one JSON line written at once."""
    if log is None:
        return
    line = json.dumps({"method": method, "params": params}, ensure_ascii=False) + "\n"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


async def _respond(
    folder: SkillsFolder, message: RequestResponder[Any, Any], log: Path | None = None
) -> None:
    request = message.request.root
    method = str(request.method)
    params = request.params
    raw = params.model_dump(by_alias=True, mode="json") if params is not None else {}
    _log(log, method, raw)
    if method not in (
        "skills/list",
        "skills/get",
        "resources/read",
        "resources/directory/read",
        "resources/list",
        "resources/templates/list",
        "tools/list",
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
    if method == "tools/list":  # no tools: answered for hosts that ask every server
        result = {"tools": []}
    await message.respond(types.Result(**result))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m skill_conformance.testing.skills_server")
    parser.add_argument("skills_dir", metavar="SKILLS_DIR")
    parser.add_argument("--log", metavar="FILE")
    parser.add_argument("--tamper", action="append", default=[], metavar="PATH")
    parser.add_argument("--unlisted", action="append", default=[], metavar="PATH")
    parser.add_argument("--decoy", action="append", default=[], metavar="NAME")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve the folder named on the command line over stdio."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    cues = Cues(frozenset(args.tamper), frozenset(args.unlisted), tuple(args.decoy))
    log = None if args.log is None else Path(args.log)
    anyio.run(serve, SkillsFolder(Path(args.skills_dir).resolve(), cues), log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
