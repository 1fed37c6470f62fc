"""A JSON-lines implementation that misbehaves on purpose, for the adapter's own tests.

    python faulty.py --at OP --do crash|hang|exit|garbage|report-crash|not-found|endless|
        grandchild|stderr-flood|refuse-hello|unknown-ability|half-answer|fork-and-exit
        [--pids FILE]

It answers ``hello`` (declaring MCP unsupported) and every other op with an empty success, until
op ``--at``, where it does what ``--do`` says. With ``--pids`` it appends its own pid, and that of
a child process it starts (a ``sleep``, standing in for an MCP server), to FILE, so a test can
check that neither outlives the run; ``hang`` then touches ``FILE.hanging`` when it starts to hang.

The hostile ones: ``endless`` writes a line that never ends (at most 512 MiB, then hangs);
``grandchild`` starts a ``sleep`` in a session of its own that holds stdout and stderr, records
its pid, and hangs; ``stderr-flood`` writes 64 MiB to stderr and answers, then exits with code 3
at the next request other than ``problems``; ``refuse-hello`` answers ``hello`` with an error;
``unknown-ability`` declares an ability the suite does not know; ``half-answer`` writes the start
of its answer, no end of line, and exits with code 3; ``fork-and-exit`` forks a copy of itself
(which hangs, holding stdout) and calls ``os._exit(3)``; ``slow-hello-again`` (with
``--pids``) crashes at ``--at``, and every process started after the first hangs on ``hello``.
"""

from __future__ import annotations

import argparse
import json
import os
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
            handle.write(f"{child.pid}\n{os.getpid()}\n")
    flooded = False
    for line in sys.stdin:
        request = json.loads(line)
        op, ident = request["op"], request["id"]
        if op == "hello" and options.do == "slow-hello-again" and options.pids:
            if Path(options.pids + ".started").exists():  # not the first process: hang
                time.sleep(3600)
            Path(options.pids + ".started").touch()
            answer: dict[str, object] = {"ok": {"name": "faulty", "version": "0.1"}}
        elif op == options.at and options.do == "slow-hello-again":
            raise SystemExit(3)
        elif op == "hello" and options.do == "refuse-hello":
            answer = {"error": {"kind": "crash", "message": "go away"}}
        elif op == "hello":
            unsupported = {"mcp": "faulty has none"}
            if options.do == "unknown-ability":
                unsupported["teleport"] = "nobody has it"
            hello = {"name": "faulty", "version": "0.1", "unsupported": unsupported}
            answer = {"ok": hello}
        elif op == options.at and options.do == "endless":
            chunk = b"x" * (1 << 20)
            for _ in range(512):
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
            time.sleep(3600)
            continue
        elif op == options.at and options.do == "grandchild":
            grandchild = subprocess.Popen(["sleep", "300"], start_new_session=True)
            if options.pids:
                with Path(options.pids).open("a") as handle:
                    handle.write(f"{grandchild.pid}\n")
            time.sleep(3600)
            continue
        elif op == options.at and options.do == "stderr-flood":
            chunk = b"e" * (1 << 20)
            for _ in range(64):
                sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.write(b"\nthe last words\n")
            sys.stderr.buffer.flush()
            flooded = True
            answer = {"ok": EMPTY.get(op)}
        elif (flooded and op != "problems") or (op == options.at and options.do == "crash"):
            raise SystemExit(3)
        elif op == options.at and options.do == "half-answer":
            sys.stdout.write(json.dumps({"id": ident, "ok": None})[:9])
            sys.stdout.flush()
            raise SystemExit(3)
        elif op == options.at and options.do == "fork-and-exit":
            if os.fork() == 0:  # the copy: holds stdout and the pipes, hangs
                time.sleep(3600)
            os._exit(3)
        elif op == options.at and options.do == "exit":
            sys.exit(0)
        elif op == options.at and options.do == "hang":
            if options.pids:  # the moment it hangs, for a test that must signal only then
                Path(options.pids + ".hanging").touch()
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
