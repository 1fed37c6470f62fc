"""``skill-conformance history``: the suite at every commit of a codebase touching its skills.

For each first-parent commit from ``--since`` to ``--until`` that touches the skill system (and
those two), it builds a venv from the commit's own lock (:mod:`.build`), runs the suite raw
against it, keeps the results (:mod:`.record`), and writes a static HTML timeline and the
findings in Markdown (:mod:`.timeline`). A rerun builds and runs only the commits it has no
results for. ``--pr N`` also judges a pull request's head against its merge base, as ``compare``
would have on the pull request.

What it must know of the codebase (which paths are its skill system, which groups of its lock a
commit's environment holds) comes from the adapter's ``codebase``
(:class:`~skill_conformance.adapters.codebase.Codebase`, read through the registry) or from
``--path`` and ``--group``. It is slow (minutes per commit); CI runs it on a synthetic codebase
(``make history-synthetic``).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Any

import skill_conformance
from skill_conformance.adapters.codebase import Codebase
from skill_conformance.atomic import write_atomic
from skill_conformance.commands.compare import render_markdown
from skill_conformance.commands.history.build import UvBuilder, find_python
from skill_conformance.commands.history.commits import (
    GitError,
    commit,
    first_parent_commits,
    git,
    merge_base,
)
from skill_conformance.commands.history.record import (
    Builder,
    Outcome,
    Recorder,
    Runner,
    SuiteRunner,
)
from skill_conformance.commands.history.timeline import Timeline, render_findings, render_timeline
from skill_conformance.escape.terminal import printable
from skill_conformance.runtime.registry import implementations
from skill_conformance.verdicts.comparison import compare

__all__ = ["add_history", "judge_pull_request", "write_history"]

OK, ERROR = 0, 2


def suite_source() -> Path | None:
    """The source tree of the running suite (installed editable into each venv), if any."""
    root = Path(skill_conformance.__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() else None


def commit_url_of(repo: Path) -> str | None:
    """``https://github.com/OWNER/NAME/commit/{sha}`` for a clone of a GitHub repository."""
    try:
        url = git(repo, "config", "--get", "remote.origin.url")
    except GitError:
        return None
    found = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", url)
    return f"https://github.com/{found[1]}/{found[2]}/commit/{{sha}}" if found else None


def write_history(
    outcomes: list[Outcome], out: Path, *, commit_url: str | None, title: str
) -> Timeline:
    """Write ``timeline.html`` and ``findings.md`` of ``outcomes`` into ``out``."""
    timeline = Timeline(outcomes)
    out.mkdir(parents=True, exist_ok=True)
    page = render_timeline(timeline, commit_url=commit_url, title=title)
    write_atomic(out / "timeline.html", page.encode("utf-8"))
    write_atomic(out / "findings.md", render_findings(timeline).encode("utf-8"))
    return timeline


def judge_pull_request(
    recorder: Recorder, repo: Path, number: int, target: str, out: Path
) -> tuple[str, int]:
    """Judge pull request ``number``'s head against its merge base with ``target``.

    Writes ``pr-N.md`` (``compare``'s Markdown) into ``out``; returns the gate's verdict line and
    whether it failed (1) or not (0), or 2 where either side has no verdicts.
    """
    head = commit(repo, f"refs/pull/{number}/head", label=f"#{number} head")
    base = commit(repo, merge_base(repo, target, head.sha), label=f"#{number} base")
    before, after = recorder.record([base, head])
    if not (before.judged and after.judged):
        missing = before if not before.judged else after
        return f"PR #{number}: no verdict: {missing.commit.short}: {missing.reason}", ERROR
    assert before.results is not None
    assert after.results is not None
    comparison = compare(before.results, after.results)
    text = render_markdown(
        comparison,
        f"#{number} merge base {base.short}",
        f"#{number} head {head.short}",
    )
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / f"pr-{number}.md", text.encode("utf-8"))
    state = "fails" if comparison.gate_fails else "passes"
    line = (
        f"PR #{number} ({head.short} against merge base {base.short}): the gate {state}: "
        f"{len(comparison.regressions)} regressed, {len(comparison.fixes)} fixed"
    )
    return line, int(comparison.gate_fails)


def codebase_of(impl: str) -> Codebase | None:
    """The codebase the adapter registered as ``impl`` describes (its class's ``codebase``), if any.

    The adapter's module is imported, the adapter not instantiated: its implementation need not be
    installed where ``history`` runs.
    """
    target = implementations().get(impl)
    if target is None:
        return None
    module_name, _, attribute = target.partition(":")
    try:
        adapter = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError):
        return None
    codebase = getattr(adapter, "codebase", None)
    return codebase if isinstance(codebase, Codebase) else None


def _history(args: argparse.Namespace) -> int:
    repo, cache = Path(args.repo), Path(args.cache)
    out = Path(args.out) if args.out else cache
    suite = Path(args.suite) if args.suite else suite_source()
    python = args.python or find_python("3.13")
    if suite is None:
        return _error("the suite is not a source tree here: give --suite DIR (a checkout of it)")
    if python is None:
        return _error("no Python 3.13 found: give --python or set PY313")
    known = codebase_of(args.impl)
    paths = tuple(args.path) or (known.paths if known else ())
    groups = tuple(args.group) or (known.groups if known else ())
    if not paths:
        return _error(
            f"--impl {args.impl}: its adapter names no codebase: give --path (the skill system)"
        )
    try:
        commits = first_parent_commits(repo, args.since, args.until, paths)
    except GitError as error:
        return _error(str(error))
    span = printable(f"{args.since}..{args.until}")
    print(f"history: {len(commits)} commits, {span}; cache {cache}")
    builder: Builder = UvBuilder(repo, cache, suite.resolve(), python, uv=args.uv, groups=groups)
    runner: Runner = SuiteRunner(args.impl, args.timeout)
    recorder = Recorder(cache, builder, runner)
    outcomes = [] if args.pr_only else recorder.record(commits, retry=args.retry)
    url = args.commit_url or commit_url_of(repo)
    status = OK
    if outcomes:
        write_history(outcomes, out, commit_url=url, title=args.title)
        print(f"wrote {out / 'timeline.html'} and {out / 'findings.md'}")
    for number in args.pr:
        try:
            line, failed = judge_pull_request(recorder, repo, number, args.until, out)
        except GitError as error:
            return _error(str(error))
        print(printable(line))
        status = max(status, failed)
    return status


def _error(message: str) -> int:
    print(f"skill-conformance: error: {printable(message)}", file=sys.stderr)
    return ERROR


def add_history(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``skill-conformance history`` to the command line."""
    parser = commands.add_parser(
        "history",
        help="run the suite at every commit of a repository touching the skill system",
        description="Build a venv per first-parent commit from SINCE to UNTIL touching the "
        "skill system (and those two), from the commit's uv.lock, run the suite raw against it, "
        "keep the results in --cache, and write timeline.html and findings.md. A rerun runs "
        "only commits without results. With --pr N, also judge pull request N's head against "
        "its merge base with UNTIL (pr-N.md). Exit 0; 1 when a pull request's gate fails; 2 on "
        "errors.",
    )
    parser.add_argument("--repo", required=True, metavar="GITDIR", help="the repository")
    parser.add_argument("--since", required=True, metavar="REV", help="the first commit")
    parser.add_argument("--until", default="HEAD", metavar="REV", help="the last (HEAD)")
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="PATHSPEC",
        help="what a commit must touch, the skill system (repeatable; default: what the "
        "adapter's codebase names)",
    )
    parser.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="GROUP",
        help="a dependency group of the commit's uv.lock to install (repeatable; default: what "
        "the adapter's codebase names, else the lock's defaults)",
    )
    parser.add_argument(
        "--cache",
        default="build/history",
        metavar="DIR",
        help="checkouts, venvs and results, kept between runs (default: build/history)",
    )
    parser.add_argument("--out", metavar="DIR", help="where the pages go (default: --cache)")
    parser.add_argument("--pr", action="append", type=int, default=[], metavar="N")
    parser.add_argument("--pr-only", action="store_true", help="judge the --pr pull requests only")
    parser.add_argument("--impl", default="agentpool", help="the adapter (default: agentpool)")
    parser.add_argument("--python", metavar="PY", help="interpreter of the venvs (default: 3.13)")
    parser.add_argument("--uv", default="uv", metavar="UV", help="the uv to build with")
    parser.add_argument(
        "--suite",
        metavar="DIR",
        help="the suite's source tree to install in each venv (default: the one running; another "
        "must be of the same version, since this command runs it)",
    )
    parser.add_argument(
        "--timeout", type=float, default=3600.0, metavar="S", help="bound of one run (3600)"
    )
    parser.add_argument(
        "--retry", action="store_true", help="try again commits kept without results"
    )
    parser.add_argument("--commit-url", metavar="TEMPLATE", help="link of a commit, with {sha}")
    parser.add_argument("--title", default="Skill system history", help="the page's title")
    parser.set_defaults(command=_history)
