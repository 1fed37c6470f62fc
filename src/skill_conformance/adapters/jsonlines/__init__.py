"""A language-neutral adapter (``--impl jsonlines``): the implementation is a process on JSON lines.

The command comes from the environment variable ``SKILL_CONFORMANCE_JSONL_CMD`` (split as a shell
would, without a shell), for example ``SKILL_CONFORMANCE_JSONL_CMD="node impl.js"``. The protocol
is in docs/jsonlines-protocol.md: one JSON object per line on the process's stdin (requests) and
stdout (responses); the tail of its stderr is shown when it dies.

One process serves the scenarios of a run one after another, as Bowtie's harnesses do. When it
dies, hangs past the scenario timeout or breaks the protocol, that scenario ends *errored*, the
process and everything it started are killed, and the next scenario starts a fresh one. The
process is stopped when the run ends; none is left behind.

The package by job: :mod:`.protocol` (messages), :mod:`.streams` (bounded reading of the
process's output), :mod:`.processes` (starting and killing the process tree), :mod:`.channel`
(one process and its request/response lines), :mod:`.implementation` (the handshake and the
process's life across a run), :mod:`.system` (one scenario's system over the channel).
"""

from __future__ import annotations

from skill_conformance.adapters.jsonlines.channel import Channel
from skill_conformance.adapters.jsonlines.implementation import (
    COMMAND_VARIABLE,
    JsonlinesImplementation,
)
from skill_conformance.adapters.jsonlines.protocol import PROTOCOL_VERSION, ProtocolError
from skill_conformance.adapters.jsonlines.system import JsonlinesSystem

__all__ = [
    "COMMAND_VARIABLE",
    "PROTOCOL_VERSION",
    "Channel",
    "JsonlinesImplementation",
    "JsonlinesSystem",
    "ProtocolError",
]
