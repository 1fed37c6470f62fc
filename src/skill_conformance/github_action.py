"""The run step of the GitHub Action (``action.yml``), run as a module of the job's Python.

It reads the Action's inputs from the environment the step gives it, runs ``skill-conformance
run`` in the interpreter it was started with, and writes the step's outputs (``GITHUB_OUTPUT``):
the exit status, the results file, the count of each verdict and the artifact's name.

``pytest-args`` is never given to a shell: it is a JSON list of strings (``["-k", "not
needs:mcp"]``), or lines each split as a POSIX shell would split it, quotes kept together
(``-k "not needs:mcp"``) but nothing expanded. Text that cannot be split is refused in one line,
exit 2, before anything runs.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from skill_conformance.errors import InputError

__all__ = ["ArgsError", "artifact_name", "counts_of", "main", "split_args", "suite_command"]

VERDICTS = (
    "passed",
    "failed",
    "errored",
    "expected-failure",
    "unexpected-pass",
    "not-applicable",
    "cannot-drive",
)
"""Each verdict's value, each an output of the Action holding its count."""

_NOT_IN_A_NAME = re.compile(r"[^\w.+-]+")  # artifact names refuse " : < > | * ? \ / and control


class ArgsError(InputError):
    """``pytest-args`` that cannot be split into arguments; the message is one line."""


def split_args(text: str) -> list[str]:
    """The arguments ``pytest-args`` holds: a JSON list of strings, or lines split as a shell does.

    ``-k "not needs:mcp"`` on a line gives ``-k`` and ``not needs:mcp``; ``$HOME`` stays ``$HOME``.
    """
    if text.lstrip().startswith("["):
        try:
            given = json.loads(text)
        except json.JSONDecodeError as error:
            raise ArgsError(f"pytest-args: not a JSON list: {error}") from None
        if not isinstance(given, list) or not all(isinstance(arg, str) for arg in given):
            raise ArgsError("pytest-args: a JSON list must hold strings only")
        return given
    args: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            args += shlex.split(line)
        except ValueError as error:
            raise ArgsError(f"pytest-args, line {number}: {error}: {line.strip()!r}") from None
    return args


def suite_command(
    python: str, impl: str, expectations: str, out: Path, args: Sequence[str]
) -> list[str]:
    """The command that runs the suite, its reports into ``out``."""
    command = [python, "-m", "skill_conformance", "run", "--impl", impl]
    if expectations:
        command += ["--expectations", expectations]
    command += ["--results", str(out / "results.json"), "--junitxml", str(out / "junit.xml")]
    command += ["--cucumberjson", str(out / "cucumber.json")]
    return command + list(args)


def counts_of(results: Path) -> dict[str, int]:
    """The count of every verdict in a results file; all 0 when there is none to read."""
    counts = dict.fromkeys(VERDICTS, 0)
    try:
        written = json.loads(results.read_text("utf-8")).get("counts", {})
    except (OSError, ValueError, AttributeError):
        return counts
    if isinstance(written, dict):
        for verdict in VERDICTS:
            value = written.get(verdict, 0)
            counts[verdict] = value if isinstance(value, int) else 0
    return counts


def artifact_name(given: str, impl: str, environ: Mapping[str, str]) -> str:
    """The artifact's name: ``given``, else (``auto``) one that differs between matrix jobs.

    ``auto`` names the job, the implementation, the runner's system and architecture and the
    Python version, the things a matrix usually varies; ``""`` means no artifact.
    """
    if given != "auto":
        return given
    parts = [
        "skill-conformance",
        environ.get("GITHUB_JOB", ""),
        impl,
        environ.get("RUNNER_OS", ""),
        environ.get("RUNNER_ARCH", ""),
        f"py{sys.version_info.major}.{sys.version_info.minor}",
    ]
    return "-".join(_NOT_IN_A_NAME.sub("_", part).strip("_") for part in parts if part)


def main(environ: Mapping[str, str] | None = None) -> int:
    """Run the suite as the Action's inputs say; write the step's outputs; 0, or 2 for bad input.

    The suite's own exit status is an output (``exit-status``), for the Action's last step to
    gate on, so that the summary and the reports are made whatever it is.
    """
    env = os.environ if environ is None else environ
    try:
        args = split_args(env.get("PYTEST_ARGS", ""))
    except ArgsError as error:
        print(f"skill-conformance: {error}", file=sys.stderr)
        return 2
    if "\n" in env.get("OUT", "") or "\r" in env.get("OUT", ""):
        print("skill-conformance: output-dir: a line break in a path", file=sys.stderr)
        return 2
    out = Path(env.get("OUT") or "skill-conformance")
    out.mkdir(parents=True, exist_ok=True)
    impl = env.get("IMPL", "")
    command = suite_command(sys.executable, impl, env.get("EXPECTATIONS", ""), out, args)
    status = subprocess.run(command, check=False).returncode
    outputs = {
        "exit-status": str(status),
        "results": str(out / "results.json"),
        "artifact-name": artifact_name(env.get("ARTIFACT_NAME", ""), impl, env),
        **{verdict: str(count) for verdict, count in counts_of(out / "results.json").items()},
    }
    lines = "".join(f"{name}={value}\n" for name, value in outputs.items())
    target = env.get("GITHUB_OUTPUT")
    if target:
        with Path(target).open("a", encoding="utf-8") as output:
            output.write(lines)
    else:
        sys.stdout.write(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
