"""What the signal tests look at: live processes by a marker in their environment, handlers."""

from __future__ import annotations

import signal
from pathlib import Path


def processes_with(marker: str) -> list[str]:
    """Command lines of the live (not zombie) processes whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if state != "Z":
            found.append(f"{entry.name}: {command}")
    return found


def catches(pid: int, signum: int = signal.SIGTERM) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (``SigCgt`` in its status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False
