"""A tool module cannot take the host down while it imports: whatever it raises, however long."""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from skill_conformance.reference.errors import ToolImportError
from skill_conformance.reference.importer import import_tool


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    release = tmp_path / "release"
    yield tmp_path
    release.write_text("released")  # ends any import left hanging


def _module(directory: Path, body: str) -> str:
    name = f"sc_iso_{uuid.uuid4().hex[:8]}"
    (directory / f"{name}.py").write_text(body + "\ndef tool():\n    return 'ok'\n")
    return name


@pytest.mark.parametrize(
    ("raised", "shown"),
    [
        ("SystemExit(3)", "SystemExit: 3"),
        ("KeyboardInterrupt()", "KeyboardInterrupt"),
        ("GeneratorExit()", "GeneratorExit"),
        ("RecursionError('deep')", "RecursionError: deep"),
    ],
)
def test_whatever_a_module_raises_at_import_is_a_tool_import_error(
    module_dir: Path, raised: str, shown: str
) -> None:
    name = _module(module_dir, f"raise {raised}")
    with pytest.raises(ToolImportError, match=f"cannot import '{name}'.*{shown}"):
        import_tool(f"{name}:tool")
    assert threading.active_count() < 50


@pytest.mark.skipif(not hasattr(os, "fork"), reason="contained by trying the import in a fork")
@pytest.mark.parametrize(
    ("ending", "shown"),
    [
        ("os._exit(7)", "exit status 7"),
        ("os.kill(os.getpid(), signal.SIGKILL)", "killed by SIGKILL"),
        ("os.abort()", "killed by SIGABRT"),
    ],
)
def test_a_module_that_ends_its_process_at_import_is_refused_and_the_host_lives(
    module_dir: Path, capfd: pytest.CaptureFixture[str], ending: str, shown: str
) -> None:
    """The import is tried in a child first: the child ends, not the host."""
    name = _module(module_dir, f"import os, signal\nprint('printed at import')\n{ending}")
    with pytest.raises(ToolImportError, match=f"'{name}'.*ended the process.*{shown}"):
        import_tool(f"{name}:tool", timeout=10)
    assert name not in sys.modules
    assert "printed at import" not in "".join(capfd.readouterr())


def test_a_module_imports_in_the_host_after_its_trial(module_dir: Path) -> None:
    marker = module_dir / "imports"
    name = _module(module_dir, f"with open({str(marker)!r}, 'a') as f:\n    f.write('x')")
    assert import_tool(f"{name}:tool")() == "ok"
    assert marker.read_text() == "xx"  # once in the child, once in the host
    assert import_tool(f"{name}:tool")() == "ok"
    assert marker.read_text() == "xx", "a module already imported was tried again"


def test_a_module_that_hangs_is_abandoned_after_the_timeout_and_not_waited_for_again(
    module_dir: Path,
) -> None:
    release = module_dir / "release"
    name = _module(
        module_dir,
        f"import os, time\nwhile not os.path.exists({str(release)!r}):\n    time.sleep(0.02)\n",
    )
    started = time.monotonic()
    with pytest.raises(ToolImportError, match=f"'{name}'.*did not finish within 0.5 s"):
        import_tool(f"{name}:tool", timeout=0.5)
    assert time.monotonic() - started < 3
    started = time.monotonic()
    with pytest.raises(ToolImportError, match=r"still hangs|not tried again yet"):
        import_tool(f"{name}:other", timeout=5)
    assert time.monotonic() - started < 1
    release.write_text("released")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            assert import_tool(f"{name}:tool", timeout=5)() == "ok"
            break
        except ToolImportError:
            time.sleep(0.05)
    else:
        pytest.fail("the module never imported once released")


def test_a_real_interrupt_while_waiting_is_not_swallowed(module_dir: Path) -> None:
    """Ctrl-C reaches the thread waiting for the import, and stops it as usual."""
    import _thread

    name = _module(
        module_dir,
        f"import os, time\nwhile not os.path.exists({str(module_dir / 'release')!r}):\n"
        "    time.sleep(0.02)\n",
    )
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        import_tool(f"{name}:tool", timeout=10)
    timer.join()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="found by trying the import in a fork")
@pytest.mark.parametrize(
    "taking",
    [
        "sys.stdin.close(); sys.stdout.close(); sys.stderr.close()",
        "sys.stdout = None",
        "sys.stderr = open(os.devnull, 'w')",
    ],
)
def test_a_module_that_takes_the_host_streams_at_import_is_refused_and_they_survive(
    module_dir: Path, taking: str
) -> None:
    """Closed or replaced in the host, they would be every other skill's and server's too."""
    before = (sys.stdin, sys.stdout, sys.stderr)
    name = _module(module_dir, f"import os, sys\n{taking}")
    try:
        with pytest.raises(ToolImportError, match=f"'{name}'.*closed or replaced sys.stdin"):
            import_tool(f"{name}:tool", timeout=10)
        after = (sys.stdin, sys.stdout, sys.stderr)
        closed = [stream for stream in after if stream is not None and stream.closed]
    finally:
        sys.stdin, sys.stdout, sys.stderr = before  # on the old code: keep pytest going
    assert after == before
    assert closed == []
    assert name not in sys.modules
