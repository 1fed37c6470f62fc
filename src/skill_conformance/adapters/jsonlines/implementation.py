"""The implementation behind ``--impl jsonlines``: the handshake and the process's life in a run."""

from __future__ import annotations

import os
import shlex
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from skill_conformance.adapters.jsonlines.channel import Channel
from skill_conformance.adapters.jsonlines.protocol import HELLO, ProtocolError, shown, value_of
from skill_conformance.adapters.jsonlines.system import JsonlinesSystem
from skill_conformance.port import Ability, AsyncSkillSystem, Setup

__all__ = ["COMMAND_VARIABLE", "HANDSHAKE_TIMEOUT", "JsonlinesImplementation"]

COMMAND_VARIABLE = "SKILL_CONFORMANCE_JSONL_CMD"
HANDSHAKE_TIMEOUT = 60.0
"""Seconds the process may take to start and answer ``hello``."""


def _command() -> list[str]:
    value = os.environ.get(COMMAND_VARIABLE, "").strip()
    if not value:
        raise ValueError(
            f"set {COMMAND_VARIABLE} to the command that starts the implementation, "
            f'e.g. {COMMAND_VARIABLE}="python impl.py"'
        )
    return shlex.split(value)


_NO_CANCELLATION = (
    "the implementation runs in a process of its own, and the protocol has no message that"
    " cancels a request in flight"
)


def _abilities(unsupported: object) -> dict[Ability, str]:
    if not isinstance(unsupported, dict):
        raise ProtocolError(f"hello: 'unsupported' must be an object, not {shown(unsupported)}")
    known = {ability.value for ability in Ability}
    unknown = sorted(str(name) for name in unsupported if name not in known)
    if unknown:
        raise ProtocolError(f"hello: 'unsupported' names unknown abilities: {shown(unknown)}")
    return {Ability(ability): str(reason) for ability, reason in unsupported.items()}


class JsonlinesImplementation:
    """An implementation in another process; ``name``, ``version`` and abilities from ``hello``.

    Args:
        command: The command to start; ``SKILL_CONFORMANCE_JSONL_CMD`` when None.

    """

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self.command = list(command) if command is not None else _command()
        self._channel: Channel | None = None
        self._starting: Channel | None = None
        self._lock = threading.Lock()
        self.cannot_drive: str | None = None
        hello = self._handshake()
        try:
            self.name = str(hello.get("name", "jsonlines"))
            self.version = str(hello.get("version", "?"))
            self.unsupported: Mapping[Ability, str] = {
                **_abilities(hello.get("unsupported") or {}),
                Ability.CANCELLATION: _NO_CANCELLATION,
            }
        except BaseException:
            self.discard()
            raise

    def _handshake(self) -> dict[str, Any]:
        channel = Channel(self.command)
        with self._lock:
            self._starting = channel
        try:
            hello = value_of("hello", channel.request("hello", HELLO, HANDSHAKE_TIMEOUT))
            if not isinstance(hello, dict):
                raise ProtocolError(f"hello: expected an object, got {shown(hello)}")
        except BaseException:
            channel.kill()
            raise
        finally:
            with self._lock:
                self._starting = None
        self._channel = channel
        return hello

    def channel(self) -> Channel:
        """The live process, started (with its handshake) if the last one is gone."""
        if self._channel is None or not self._channel.alive():
            self.discard()
            self._handshake()
        assert self._channel is not None
        return self._channel

    def discard(self) -> None:
        """Kill the current process and one still shaking hands (after a hang or a fault)."""
        with self._lock:
            channels = [self._channel, self._starting]
            self._channel = self._starting = None
        for channel in channels:
            if channel is not None:
                channel.kill()

    def close(self) -> None:
        """Stop the process at the end of the run (a second call does nothing)."""
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.stop()

    def open(self, setup: Setup) -> AsyncSkillSystem:
        """A system for one scenario; the process is asked to ``open`` it on ``start``."""
        return JsonlinesSystem(self, setup)
