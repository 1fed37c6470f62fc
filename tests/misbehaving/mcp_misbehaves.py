"""An MCP server over stdio that misbehaves after its handshake, in plain JSON-RPC.

    python mcp_misbehaves.py --do mute-listing|huge-line|exits|not-mcp [--pids FILE]

``mute-listing`` answers ``initialize`` and never answers ``tools/list`` (it reads on, until
stdin closes); ``huge-line`` answers ``tools/list`` with one line of 300 MB; ``exits`` exits
with code 3 before reading anything; ``not-mcp`` writes lines of text that are not JSON-RPC and
answers nothing. With ``--pids`` it appends its pid to FILE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _answer(ident: object, result: object) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--do", required=True)
    parser.add_argument("--pids")
    options = parser.parse_args()
    if options.pids:
        with open(options.pids, "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    if options.do == "exits":
        raise SystemExit(3)
    if options.do == "not-mcp":
        print("Usage: this is a shell tool, not an MCP server", flush=True)
    for line in sys.stdin:
        if options.do == "not-mcp":
            print(f"unknown command: {line.strip()[:40]}", flush=True)
            continue
        request = json.loads(line)
        method, ident = request.get("method"), request.get("id")
        if method == "initialize":
            _answer(
                ident,
                {
                    "protocolVersion": request["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehaves", "version": "0"},
                },
            )
        elif method == "tools/list" and options.do == "huge-line":
            head = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"tools": []}})[:-2]
            sys.stdout.write(head + ', "padding": "')
            chunk = "x" * (1 << 20)
            for _ in range(300):
                sys.stdout.write(chunk)
            sys.stdout.write('"}}\n')
            sys.stdout.flush()


if __name__ == "__main__":
    main()
