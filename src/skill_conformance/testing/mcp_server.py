"""A real MCP server for the conformance suite (stdio, or streamable HTTP), written with ``mcp``.

It offers the tools and skills (as MCP resources) named on its command line and records its own
start and stop as JSON lines in a log, so that scenarios can observe lifecycle and order on real
processes::

    python -m skill_conformance.testing.mcp_server --label server1 --tool echo --log mcp.log

Every tool takes an optional ``text`` and returns ``"{label}:{tool}:{text}"`` (``"{label}:{tool}"``
without text), except a tool named ``getenv``: it returns ``"{label}:getenv:{value}"``, the value of
the environment variable named by ``text`` (empty when unset). Each ``--skill NAME`` is a resource
named ``NAME`` with the description ``"Remote skill NAME."`` and the content
``"Instructions of NAME."``.

Each ``--binary-skill NAME`` is such a resource served as bytes (a blob): the same text in UTF-8,
then one byte that is not UTF-8 (``0xff``).

``--http PORT`` serves streamable HTTP on ``http://127.0.0.1:PORT/mcp`` instead of stdio; with
``--require-header NAME=VALUE`` every request lacking that header is refused with status 401. An
HTTP server has no stdin to lose, so it stops by itself when its parent process is gone (even
killed with SIGKILL), instead of outliving the run that started it.

``--mode`` makes it misbehave on purpose: ``crash`` exits before serving, ``hang`` reads every
request and answers none (it exits when stdin closes, or on SIGTERM).

``--zygote ADDRESS`` has the warm parent at ``ADDRESS`` (:mod:`skill_conformance.testing.zygote`)
fork the server, which then serves this process's stdio; this process stays, forwards signals and
exits with the server's status. Without a zygote there, the command serves on its own. This module
imports only the standard library, so that the command is cheap when a zygote serves.
"""

from __future__ import annotations

import sys

__all__ = ["COMMAND_ARGS", "main"]

COMMAND_ARGS = ("-S", "-P", __file__)
"""What to give ``sys.executable`` to run this command: the file itself, so that no ``runpy`` is
imported; with ``-P`` nothing of the working directory is on the path, and with ``-S`` no
``site`` is run (its ``.pth`` files are read at every start): the command puts
this package's own directory on the path, and runs ``site`` only to serve without a zygote."""


def main(argv: list[str] | None = None) -> int:
    """Serve, through the zygote when one answers at ``--zygote``, else in this process."""
    arguments = sys.argv[1:] if argv is None else argv
    address, rest = _split_zygote(arguments)
    if address is not None:
        from skill_conformance.testing.launcher import Unavailable, launch

        try:
            return launch(address, rest)
        except Unavailable:
            pass
    if "site" not in sys.modules:  # run with -S: serving needs the installed packages
        import site

        site.main()
    from skill_conformance.testing._mcp_app import serve_argv

    return serve_argv(rest)


def _split_zygote(arguments: list[str]) -> tuple[str | None, list[str]]:
    """The address of ``--zygote ADDRESS`` (or ``--zygote=ADDRESS``) and the other arguments."""
    address: str | None = None
    rest: list[str] = []
    taking = False
    for argument in arguments:
        if taking:
            address, taking = argument, False
        elif argument == "--zygote":
            taking = True
        elif argument.startswith("--zygote="):
            address = argument.partition("=")[2]
        else:
            rest.append(argument)
    return address, rest


if __name__ == "__main__":
    import os

    if "site" not in sys.modules:  # run with -S (COMMAND_ARGS): find this package without it
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    status = main()
    if "skill_conformance.testing._mcp_app" not in sys.modules:
        # A launcher wrote nothing and holds nothing: an interpreter's shutdown would only delay
        # the exit its client waits for.
        os._exit(status)
    sys.exit(status)
