"""An interrupt ending a string run by exec (dataclasses, namedtuple) still ends a command on 2.

CPython marks a ``python -m`` process to end by SIGINT once a KeyboardInterrupt ended such a
string, even one caught and reported: ``python -m skill_conformance`` then said its interrupted
line and died by the signal (-2), about once a run of tests/signals/test_commands.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_module(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    """``python -m name`` of ``source``, with the suite importable."""
    (tmp_path / f"{name}.py").write_text(source)
    path = os.pathsep.join([str(tmp_path), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", name],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "SystemExit(3)"])
def test_an_interrupt_ending_an_exec_string_ends_a_guarded_module_run_with_its_status(
    tmp_path: Path, raised: str
) -> None:
    done = _run_module(
        tmp_path,
        "sc_exec_interrupted",
        "import sys\n"
        "from skill_conformance.signals import guarded\n"
        "def body():\n"
        f"    exec('raise {raised}')\n"
        "    return 0\n"
        "sys.exit(guarded(body))\n",
    )
    if raised == "KeyboardInterrupt":
        assert (done.returncode, done.stderr) == (2, "skill-conformance: interrupted\n")
    else:  # the control: not an interrupt, its own status
        assert done.returncode == 3, done.stderr


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupt_landing_where_python_would_lose_it_still_ends_the_command(
    tmp_path: Path, sig: str
) -> None:
    """A signal arriving in a ``__del__`` (or an import lock's callback) is raised just after.

    Python prints an exception raised there as "Exception ignored" and goes on: a Ctrl-C landing
    in an import lock's weak-reference callback was lost, and the run went on to its end.
    """
    done = _run_module(
        tmp_path,
        "sc_lost_interrupt",
        "import os, signal, sys, threading, time\n"
        "from skill_conformance.signals import guarded\n"
        "class Slow:\n"
        "    def __del__(self):\n"
        "        end = time.monotonic() + 1.0\n"
        "        while time.monotonic() < end:\n"
        "            pass\n"
        "def body():\n"
        f"    threading.Timer(0.3, os.kill, (os.getpid(), signal.{sig})).start()\n"
        "    Slow()\n"
        "    time.sleep(0.5)\n"
        "    print('went on')\n"
        "    return 0\n"
        "sys.exit(guarded(body))\n",
    )
    interrupted = (2, "", "skill-conformance: interrupted\n")
    assert (done.returncode, done.stdout, done.stderr) == interrupted


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_landing_while_the_handlers_are_installed_ends_the_command_in_one_line(
    tmp_path: Path, sig: str
) -> None:
    """The command's handlers raise from the moment they are set, even inside ``guard`` itself.

    CI once sent Ctrl-C just as SIGINT's handler was installed: it ran at once, inside
    ``signal.signal``, and the interrupt escaped as a traceback.
    """
    done = _run_module(
        tmp_path,
        "sc_signal_in_guard",
        "import os, signal, sys\n"
        "real = signal.signal\n"
        "def installing(signum, handler):\n"
        "    old = real(signum, handler)\n"
        "    if signum == signal.{sig} and callable(handler):\n"
        "        os.kill(os.getpid(), signum)\n"
        "    return old\n"
        "signal.signal = installing\n"
        "from skill_conformance.signals import guarded\n"
        "sys.exit(guarded(lambda: print('went on') or 0))\n".replace("{sig}", sig),
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "skill-conformance: interrupted\n",
    ), done
