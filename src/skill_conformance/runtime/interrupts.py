"""SIGTERM raised as the interrupt Ctrl-C raises, so that both stop a run the same way."""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["Terminated", "raise_on_sigterm"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that the run ends as it does on Ctrl-C."""


def raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler: raise :class:`Terminated` once, then ignore SIGTERM.

    Once: a second SIGTERM during the clean-up must not cut the clean-up short.
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated(f"terminated by signal {signum}")
