"""A synthetic codebase for ``make history``: a small git repository whose skill system regresses
and is fixed, so that ``skill-conformance history`` has something to find on any machine.

    uv run python tests/history/synthetic_codebase.py DIR

writes a fresh repository at ``DIR`` (replacing one there) with four commits on ``main``:

1. ``synthskills`` 0.1: its skill system (``src/synthskills/skills/``) and its adapter
   (``synthskills.adapter:SynthImplementation``, the suite's reference with this codebase's rule
   for the descriptions ``list_skills`` shows);
2. a README change, outside the skill system (``history`` skips it);
3. the rule shortens descriptions to 20 characters: the listing scenarios regress;
4. the rule is reverted: they pass again.

Each commit holds a ``uv.lock`` (no dependencies), which is how ``history`` builds its venv. What
``history`` must know of this codebase it is told: ``--path 'src/*/skills/**'`` (its skill
system) and ``--impl synthskills.adapter:SynthImplementation`` (its adapter, installed with each
commit). Prints the first commit's sha, for ``--since``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PYPROJECT = """\
[project]
name = "synthskills"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"
"""

ADAPTER = '''\
"""synthskills' adapter: the suite's reference, showing descriptions by this codebase's rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from skill_conformance.adapters.reference import ReferenceImplementation, ReferenceSystem
from skill_conformance.port import AsyncSkillSystem, Setup, SkillListing
from synthskills.skills.listing import shown


class _System(ReferenceSystem):
    async def list_skills(self) -> Sequence[SkillListing]:
        listed = await super().list_skills()
        return [dataclasses.replace(e, description=shown(e.description)) for e in listed]


class SynthImplementation(ReferenceImplementation):
    """synthskills, as ``--impl synthskills.adapter:SynthImplementation`` loads it."""

    name = "synthskills"

    def open(self, setup: Setup) -> AsyncSkillSystem:
        return _System(setup, self.parts)
'''

LISTING = '''\
"""How synthskills shows a skill's description in its listing."""


def shown(description: str) -> str:
    """The description as listed."""
    return {body}
'''


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=synthetic", "-c", "user.email=s@example.org",
         "-c", "commit.gpgsign=false", *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


def build(repo: Path, uv: str = "uv") -> str:
    """Write the repository at ``repo``; the first commit's sha."""
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    subprocess.run([uv, "lock", "-q", "--no-config"], cwd=repo, check=True)
    first = _commit(
        repo,
        {
            ".gitignore": ".venv/\n",
            "README.md": "# synthskills\n",
            "src/synthskills/__init__.py": '"""A synthetic skill system."""\n',
            "src/synthskills/adapter.py": ADAPTER,
            "src/synthskills/skills/__init__.py": "",
            "src/synthskills/skills/listing.py": LISTING.format(body="description"),
        },
        "synthskills 0.1: a skill system and its adapter",
    )
    _commit(repo, {"README.md": "# synthskills\n\nA synthetic codebase.\n"}, "README")
    _commit(
        repo,
        {"src/synthskills/skills/listing.py": LISTING.format(body="description[:20]")},
        "skills: shorter descriptions in the listing",
    )
    _commit(
        repo,
        {"src/synthskills/skills/listing.py": LISTING.format(body="description")},
        "skills: whole descriptions again",
    )
    return first


if __name__ == "__main__":
    print(build(Path(sys.argv[1]), *sys.argv[2:3]))
