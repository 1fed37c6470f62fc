"""A venv per commit of a codebase, from that commit's lock, with this suite installed.

The layout is ``../shared/tools/real-venvs.sh``'s, so venvs it built are reused as they are:
``CACHE/<commit9>/`` is a checkout of the commit (the adapter reads its revision there),
``CACHE/<commit9>/.venv`` holds exactly the pins of its ``uv.lock`` (the main dependencies and the
groups the codebase names, :class:`~skill_conformance.adapters.codebase.Codebase`), the checkout
itself (editable, no dependencies), and then this suite (editable),
which adds its own few dependencies and moves no pin; ``freeze-before.txt`` lists the pins before
the suite was installed.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.commands.history.commits import Commit, git
from skill_conformance.errors import ConformanceError
from skill_conformance.processes import run_in_group

__all__ = ["BuildError", "UvBuilder", "find_python"]


class BuildError(ConformanceError):
    """A commit's venv could not be built; the message is one line saying which step failed."""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def find_python(version: str = "3.13") -> str | None:
    """An interpreter of ``version``: ``$PY313``, one uv finds, or one pyenv installed."""
    given = os.environ.get("PY" + version.replace(".", ""))
    if given:
        return given
    uv = shutil.which("uv")
    if uv is not None:
        done = run_in_group([uv, "python", "find", "--no-config", version], timeout=60)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    pattern = str(Path.home() / ".pyenv" / "versions" / f"{version}*" / "bin" / f"python{version}")
    found = sorted(glob.glob(pattern))
    return found[-1] if found else None


@dataclass(frozen=True)
class UvBuilder:
    """Builds (or reuses) the venv of a commit; see the module's docstring for the layout."""

    repo: Path
    """The repository's git directory (a bare mirror will do)."""
    cache: Path
    suite: Path
    """The suite's source tree, installed editable into every venv."""
    python: str
    """The interpreter the venvs are made from."""
    uv: str = "uv"
    groups: tuple[str, ...] = ()
    """The lock's dependency groups to install beside the main dependencies (its defaults when
    empty, or when the lock has not got them)."""

    def checkout(self, commit: Commit) -> Path:
        """The commit's checkout (made on first use; objects shared with :attr:`repo`).

        A clone is made without a checkout, and its ``HEAD`` is already the repository's tip: the
        files are checked out whenever the work tree is not the commit's, a fresh clone's
        included (it has no index yet). Absolute: the build's steps run in it and name files in
        it (a relative ``--cache`` would name them twice).
        """
        directory = (self.cache / commit.short).absolute()
        if not (directory / ".git").exists():
            directory.parent.mkdir(parents=True, exist_ok=True)
            clone = ["git", "clone", "-q", "--shared", "--no-checkout"]
            self._step("clone", [*clone, "--", str(self.repo), str(directory)])
        checked_out = (directory / ".git" / "index").exists()
        if not checked_out or git(directory, "rev-parse", "HEAD") != commit.sha:
            checkout = ["git", "-C", str(directory), "checkout", "-q", "--detach"]
            self._step("checkout", [*checkout, commit.sha, "--"])
        return directory

    def build(self, commit: Commit) -> Path:
        """The Python of the commit's venv, with the suite installed (built now if need be)."""
        directory = self.checkout(commit)
        python = directory / ".venv" / "bin" / "python"
        if not (python.exists() and (directory / "freeze-before.txt").exists()):
            self._build_venv(directory, python)
        if not self._has_suite(python):
            self._step("install the suite", self._pip(python, "install", "-e", str(self.suite)))
        return python

    def _build_venv(self, directory: Path, python: Path) -> None:
        if not (directory / "uv.lock").exists():
            raise BuildError("the commit has no uv.lock")
        requirements = directory / "lock-requirements.txt"
        export = [self.uv, "export", "-q", "--frozen", "--no-hashes", "--no-emit-project"]
        groups = ["--no-default-groups", *(f"--group={group}" for group in self.groups)]
        try:
            if not self.groups:
                raise BuildError("no groups named")
            self._step("uv export", [*export, *groups, "-o", str(requirements)], cwd=directory)
        except BuildError:  # none named, or a lock without them
            self._step("uv export", [*export, "-o", str(requirements)], cwd=directory)
        if not python.exists():
            venv = [self.uv, "venv", "-q", "--no-config", "-p", self.python]
            self._step("uv venv", [*venv, str(directory / ".venv")])
        self._step(
            "uv pip sync", self._pip(python, "sync", "--compile-bytecode", str(requirements))
        )
        self._step(
            "install the commit",
            self._pip(python, "install", "--no-deps", "-e", "."),
            cwd=directory,
        )
        if (directory / "src").is_dir():
            self._step(
                "compileall", [str(python), "-m", "compileall", "-q", str(directory / "src")]
            )
        frozen = self._step("uv pip freeze", self._pip(python, "freeze"))
        (directory / "freeze-before.txt").write_text(frozen)

    def _has_suite(self, python: Path) -> bool:
        done = run_in_group(
            [str(python), "-c", "import skill_conformance; print(skill_conformance.__file__)"],
            timeout=120,
        )
        found = Path(done.stdout.strip()) if done.returncode == 0 else None
        return found is not None and found.is_relative_to(self.suite)

    def _pip(self, python: Path, command: str, *args: str) -> list[str]:
        return [self.uv, "pip", command, "-q", "--no-config", "-p", str(python), *args]

    def _step(self, what: str, command: Sequence[str], cwd: Path | None = None) -> str:
        # In a group of its own: interrupted, the history stops uv's children with uv.
        done = run_in_group(command, cwd=cwd, timeout=1800)
        if done.returncode != 0:
            raise BuildError(f"{what} failed: {_last_line(done.stderr or done.stdout)}")
        return done.stdout
