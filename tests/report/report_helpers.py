"""Results files made from the suite's own specs, for the report tests."""

from __future__ import annotations

import os
import resource
import shutil
import struct
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from skill_conformance.bundled import spec_digest, specs_dir
from skill_conformance.catalogue import Entry, load_catalogue
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

ENTRIES = load_catalogue(specs_dir()).entries()


def header(adapter: str, version: str, digest: str | None = None) -> Header:
    return Header("0.1.0", digest or spec_digest(), adapter, version, adapter)


def result(entry: Entry, verdict: str, reason: str = "") -> ScenarioResult:
    return ScenarioResult(
        entry.capability,
        entry.requirement.slug,
        entry.requirement.title,
        entry.id,
        entry.name,
        Verdict(verdict),
        reason,
    )


def results_file(
    path: Path,
    adapter: str,
    version: str,
    verdict: Callable[[int, Entry], tuple[str, str] | None],
    *,
    digest: str | None = None,
    extra: tuple[ScenarioResult, ...] = (),
) -> Path:
    """Write a results file: ``verdict(index, entry)`` gives each scenario's verdict and reason."""
    scenarios = []
    for index, entry in enumerate(ENTRIES):
        chosen = verdict(index, entry)
        if chosen is not None:
            scenarios.append(result(entry, *chosen))
    status = int(any(s.verdict.bad for s in scenarios))
    results = Results(header(adapter, version, digest), (*scenarios, *extra), "2026-12-02", status)
    write_results(path, results)
    return path


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) pixels of an 8-bit, non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, chunks, width, height, channels = 8, [], 0, 0, 0
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, interlace) == (8, 0), (depth, interlace)
            assert colour in (2, 6), colour
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            chunks.append(body)
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + guess) & 0xFF
        rows.append(bytes(line) if channels == 3 else bytes(_rgb(line)))
        previous = line
    return width, height, rows


def _rgb(line: bytearray) -> bytearray:
    out = bytearray()
    for x in range(0, len(line), 4):
        out += line[x : x + 3]
    return out


def chromium() -> str:
    """Headless Chromium's command: skipped where it is missing, but failed in CI, which has it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def _unbounded_address_space() -> None:
    """Lift the suite's --memory-limit (inherited): Chromium reserves terabytes it never uses."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def run_chromium(page: Path, width: int, height: int, *options: str) -> str:
    """Load ``page`` in a ``width`` x ``height`` window; what Chromium printed."""
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        *options,
        page.as_uri(),
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=_unbounded_address_space,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
