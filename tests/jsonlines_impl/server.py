"""The reference implementation behind the JSON-lines protocol, in a process of its own.

    SKILL_CONFORMANCE_JSONL_CMD="python tests/jsonlines_impl/server.py" \
        pytest steps --impl jsonlines

It reads one request per line on stdin and writes one response per line on stdout, as
docs/jsonlines-protocol.md says; every request is served in order, on one asyncio task (the MCP
clients of the reference need that). It is the example a porter in another language can follow.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from skill_conformance.adapters.reference import ReferenceImplementation
from skill_conformance.port import (
    AgentPath,
    AsyncSkillSystem,
    McpChild,
    Scope,
    ServerCommand,
    Setup,
    SkillSystemError,
    ToolsChild,
    Unsupported,
)

PROTOCOL = 1


def _setup(data: dict[str, Any]) -> Setup:
    children: list[ToolsChild | McpChild] = []
    for child in data.get("children", []):
        if child["kind"] == "mcp":
            server = child["server"]
            command = ServerCommand(
                server["command"], tuple(server.get("args", ())), dict(server.get("env", {}))
            )
            children.append(McpChild(child["label"], command))
        else:
            children.append(ToolsChild(child["label"], tuple(child["tools"])))
    workdir = data.get("workdir")
    return Setup(
        skills_dir=Path(data["skills_dir"]),
        children=tuple(children),
        skills_tools_provider=bool(data.get("skills_tools_provider", True)),
        workdir=None if workdir is None else Path(workdir),
        python_path=tuple(Path(entry) for entry in data.get("python_path", [])),
        give_up_after=data.get("give_up_after"),
    )


class Server:
    """One process's state: the implementation and the one system open at a time."""

    def __init__(self) -> None:
        self.implementation = ReferenceImplementation()
        self.system: AsyncSkillSystem | None = None

    def _system(self) -> AsyncSkillSystem:
        if self.system is None:
            raise RuntimeError("no system is open")
        return self.system

    async def handle(self, op: str, args: dict[str, Any]) -> object:
        if op == "hello":
            implementation = self.implementation
            return {
                "name": f"{implementation.name}-jsonlines",
                "version": implementation.version,
                "unsupported": {str(k): v for k, v in implementation.unsupported.items()},
                "protocol": PROTOCOL,
            }
        if op == "open":
            self.system = self.implementation.open(_setup(args["setup"]))
            return None
        system = self._system()
        if op == "close":
            try:
                await system.close()
            finally:
                self.system = None
            return None
        if op in ("start", "rebuild", "enter", "exit"):
            await getattr(system, op)()
            return None
        if op == "problems":
            return list(system.problems())
        if op == "tool_names":
            return list(await system.tool_names())
        if op == "run_tool":
            record = await system.run_tool(args["name"], args.get("arguments") or {})
            return {"offered": list(record.offered), "result": record.result}
        if op == "load_skill":
            return await system.load_skill(args["skill"], args.get("arguments"))
        if op == "list_skills":
            return [vars(entry) for entry in await system.list_skills()]
        if op == "read_skill_file":
            return await system.read_skill_file(args["skill"], args["path"])
        if op == "resolve_uri":
            resolved = await system.resolve_uri(args["uri"])
            return {"name": resolved.name, "instructions": resolved.instructions}
        if op == "registry_skill_names":
            return list(await system.registry_skill_names(Scope(args["scope"])))
        if op == "agent_tool_names":
            return list(await system.agent_tool_names(AgentPath(args["path"])))
        if op == "agent_load_skill":
            return await system.agent_load_skill(AgentPath(args["path"]), args["skill"])
        raise NotImplementedError(f"unknown op {op!r}")


def _respond(out: BinaryIO, ident: object, body: dict[str, object]) -> None:
    out.write(json.dumps({"id": ident, **body}, default=str).encode() + b"\n")
    out.flush()


async def serve(out: BinaryIO) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    server = Server()
    while line := await reader.readline():
        request = json.loads(line)
        ident = request.get("id")
        try:
            value = await server.handle(request["op"], request.get("args") or {})
        except SkillSystemError as error:
            _respond(out, ident, {"error": {"kind": error.kind.value, "message": error.message}})
        except Unsupported as error:
            _respond(out, ident, {"error": {"kind": "unsupported", "message": error.reason}})
        except Exception as error:
            message = f"{type(error).__name__}: {error}"
            _respond(out, ident, {"error": {"kind": "crash", "message": message}})
        else:
            _respond(out, ident, {"ok": value})
    if server.system is not None:  # stdin closed mid-scenario: release what is open
        await server.system.close()


def main() -> None:
    # Keep stdout for the protocol alone: anything else printing goes to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    asyncio.run(serve(out))


if __name__ == "__main__":
    main()
