"""A JSON-lines implementation that misbehaves on purpose, for the adapter's own tests.

    python faulty.py --at OP --do crash|hang|exit|garbage|report-crash|not-found [--pids FILE]

It answers ``hello`` (declaring MCP unsupported) and every other op with an empty success, until
op ``--at``, where it does what ``--do`` says. With ``--pids`` it appends its own pid, and that of
a child process it starts (a ``sleep``, standing in for an MCP server), to FILE, so a test can
check that neither outlives the run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

EMPTY: dict[str, object] = {
    "tool_names": [],
    "problems": [],
    "list_skills": [],
    "registry_skill_names": [],
    "agent_tool_names": [],
    "load_skill": "",
    "agent_load_skill": "",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--at", default="start")
    parser.add_argument("--do", default="crash")
    parser.add_argument("--pids")
    options = parser.parse_args()
    if options.pids:
        child = subprocess.Popen(["sleep", "300"])
        with Path(options.pids).open("a") as handle:
            handle.write(f"{child.pid}\n{__import__('os').getpid()}\n")
    for line in sys.stdin:
        request = json.loads(line)
        op, ident = request["op"], request["id"]
        if op == "hello":
            hello = {"name": "faulty", "version": "0.1", "unsupported": {"mcp": "faulty has none"}}
            answer: dict[str, object] = {"ok": hello}
        elif op == options.at and options.do == "crash":
            raise SystemExit(3)
        elif op == options.at and options.do == "exit":
            sys.exit(0)
        elif op == options.at and options.do == "hang":
            time.sleep(3600)
            continue
        elif op == options.at and options.do == "garbage":
            print("this is not JSON", flush=True)
            continue
        elif op == options.at and options.do == "report-crash":
            answer = {"error": {"kind": "crash", "message": "it broke inside"}}
        elif op == options.at and options.do == "not-found":
            answer = {"error": {"kind": "not-found", "message": "no skill 'x'"}}
        else:
            answer = {"ok": EMPTY.get(op)}
        print(json.dumps({"id": ident, **answer}), flush=True)


if __name__ == "__main__":
    main()
