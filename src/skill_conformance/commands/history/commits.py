"""The commits a history covers: the first-parent commits touching the skill system."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skill_conformance.errors import InputError

__all__ = ["Commit", "GitError", "commit", "first_parent_commits", "merge_base", "resolve"]


class GitError(InputError):
    """A git command on the repository given failed; the message is one line naming it."""


def git(repo: Path, *args: str) -> str:
    """The output of ``git -C repo args``, stripped.

    Every revision and path given here comes after ``--end-of-options`` or ``--``: a value that
    starts with a dash is never read as an option.
    """
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        error = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise GitError(f"git {' '.join(args[:3])}: {error}")
    return done.stdout.strip()


def resolve(repo: Path, revision: str, what: str = "revision") -> str:
    """The full hash of the commit ``revision`` names; :class:`GitError` when it names none.

    ``what`` names where the revision came from (``--since``) in the message.
    """
    try:
        return git(
            repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"
        )
    except GitError:
        raise GitError(f"{what}: {revision!r} is not a commit of {repo}") from None


@dataclass(frozen=True)
class Commit:
    """One commit of the history."""

    sha: str
    date: str
    """Its committer date, ``YYYY-MM-DD``."""
    subject: str
    label: str = ""
    """What the timeline calls it when it is not a commit of the branch (``PR #344``)."""

    @property
    def short(self) -> str:
        """The abbreviated hash the timeline shows (nine digits, as the project writes them)."""
        return self.sha[:9]


_FORMAT = "--format=%H%x09%cs%x09%s"


def _parse(lines: str) -> list[Commit]:
    commits = []
    for line in lines.splitlines():
        sha, date, subject = line.split("\t", 2)
        commits.append(Commit(sha, date, subject))
    return commits


def commit(repo: Path, revision: str, label: str = "", what: str = "revision") -> Commit:
    """The commit ``revision`` names (a hash, a branch, ``refs/pull/N/head``).

    Raises:
        GitError: ``revision`` names no commit of ``repo`` (``what`` says where it came from).

    """
    sha = resolve(repo, revision, what)
    found = _parse(git(repo, "log", "-1", _FORMAT, "--end-of-options", sha, "--"))
    return Commit(found[0].sha, found[0].date, found[0].subject, label)


def first_parent_commits(repo: Path, since: str, until: str, paths: Sequence[str]) -> list[Commit]:
    """``since``, each first-parent commit after it touching ``paths``, ``until``; oldest first.

    ``since`` and ``until`` are there whatever they touch: the history starts from a known state
    and ends at the tip.
    """
    first, last = commit(repo, since, what="--since"), commit(repo, until, what="--until")
    span = f"{first.sha}..{last.sha}"
    log = ["log", "--first-parent", "--reverse", _FORMAT, "--end-of-options", span, "--"]
    touching = _parse(git(repo, *log, *paths))
    found = [first, *(c for c in touching if c.sha not in (first.sha, last.sha))]
    return found if last.sha == first.sha else [*found, last]


def merge_base(repo: Path, one: str, other: str) -> str:
    """The best common ancestor of ``one`` and ``other``."""
    ends = (resolve(repo, one), resolve(repo, other))
    return git(repo, "merge-base", "--end-of-options", *ends)
