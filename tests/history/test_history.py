"""``history`` on a small synthetic repository, with a builder and a runner standing in for uv
and the real codebase (the real history takes minutes per commit and never runs in CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skill_conformance.commands.history import judge_pull_request, write_history
from skill_conformance.commands.history.build import BuildError, UvBuilder
from skill_conformance.commands.history.commits import Commit, commit, first_parent_commits
from skill_conformance.commands.history.record import Recorder
from skill_conformance.commands.main import main
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

SKILLS = "src/pkg/skills/loader.py"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit(repo: Path, path: str, text: str, message: str) -> str:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    _git(repo, "add", path)
    _git(repo, "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> dict[str, str]:
    """main: start, docs (skipped), a skill change, a merge of a skill change, other (the tip);
    refs/pull/7/head branches off the skill change."""
    root = tmp_path / "repo"
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    shas = {"start": _commit(root, SKILLS, "v0\n", "start")}
    shas["docs"] = _commit(root, "docs/a.md", "x\n", "docs: only docs")
    shas["skills"] = _commit(root, SKILLS, "v1\n", "skills: break loading")
    _git(root, "checkout", "-q", "-b", "side")
    shas["side"] = _commit(root, "src/pkg/skills/extra.py", "x\n", "side: a skill file")
    _git(root, "checkout", "-q", "main")
    _commit(root, "other.txt", "y\n", "main moves on")
    _git(root, "merge", "-q", "--no-ff", "side", "-m", "Merge side")
    shas["merge"] = _git(root, "rev-parse", "HEAD")
    shas["tip"] = _commit(root, "other.txt", "z\n", "tip: no skill change")
    _git(root, "checkout", "-q", "-b", "pr", shas["skills"])
    shas["pr"] = _commit(root, SKILLS, "v2\n", "pr: fix loading")
    _git(root, "update-ref", "refs/pull/7/head", shas["pr"])
    _git(root, "checkout", "-q", "main")
    shas["root"] = str(root)
    return shas


def _result(name: str, verdict: Verdict, reason: str = "") -> ScenarioResult:
    return ScenarioResult(
        "skill-tools", "load", "load_skill SHALL load", name, name, verdict, reason
    )


class FakeBuilder:
    """Builds nothing: a commit's "python" names it; commits in ``broken`` cannot be built."""

    def __init__(self, broken: set[str]) -> None:
        self.broken = broken
        self.built: list[str] = []

    def build(self, commit: Commit) -> Path:
        self.built.append(commit.sha)
        if commit.sha in self.broken:
            raise BuildError("uv export failed: no uv.lock")
        return Path("/fake") / commit.sha


class FakeRunner:
    """Writes the results prepared for the commit ``python`` names (none: writes nothing)."""

    def __init__(self, verdicts: dict[str, list[ScenarioResult] | None]) -> None:
        self.verdicts = verdicts
        self.ran: list[str] = []

    def run(self, python: Path, results: Path, log: Path) -> None:
        sha = python.name
        self.ran.append(sha)
        scenarios = self.verdicts[sha]
        if scenarios is None:
            log.write_text("collected 0 items\nERROR: --impl 'agentpool': cannot import\n")
            return
        header = Header("0.1.0", "sha256:0", "agentpool", f"1.0+g{sha[:9]}", "agentpool")
        write_results(results, Results(header, tuple(scenarios), "2026-12-06", 1))


def _verdicts(shas: dict[str, str]) -> dict[str, list[ScenarioResult] | None]:
    passed, failed = Verdict.PASSED, Verdict.FAILED
    return {
        shas["start"]: [_result("uri", passed), _result("tools", failed, "observed []")],
        shas["skills"]: [
            _result("uri", failed, "observed skill://local/x"),
            _result("tools", failed, "observed []"),
        ],
        shas["merge"]: None,
        shas["tip"]: [_result("uri", passed), _result("tools", Verdict.ERRORED, "crashed")],
        shas["pr"]: [_result("uri", passed), _result("tools", passed)],
    }


def test_the_commits_are_first_parent_ones_touching_the_paths_and_both_ends(
    repo: dict[str, str],
) -> None:
    commits = first_parent_commits(Path(repo["root"]), repo["start"], "main", ["src/pkg/skills"])
    assert [c.sha for c in commits] == [repo["start"], repo["skills"], repo["merge"], repo["tip"]]
    assert commits[1].subject == "skills: break loading"


def test_a_rerun_runs_only_what_it_has_no_results_for(repo: dict[str, str], tmp_path: Path) -> None:
    root = Path(repo["root"])
    commits = first_parent_commits(root, repo["start"], "main", ["src/pkg/skills"])
    lines: list[str] = []
    builder, runner = FakeBuilder({repo["tip"]}), FakeRunner(_verdicts(repo))
    recorder = Recorder(tmp_path / "cache", builder, runner, lines.append)
    outcomes = recorder.record(commits)
    assert len(lines) == 4
    assert lines[0].startswith(f"[1/4] {repo['start'][:9]} ")
    assert lines[0].endswith("1 passed, 1 failed (built in 0 s, ran in 0 s)")
    assert "the run wrote no results: ERROR: --impl 'agentpool': cannot import" in lines[2]
    assert "cannot build: uv export failed: no uv.lock" in lines[3]
    assert [o.judged for o in outcomes] == [True, True, False, False]

    lines.clear()
    again = Recorder(tmp_path / "cache", FakeBuilder(set()), FakeRunner({}), lines.append)
    assert [o.judged for o in again.record(commits)] == [True, True, False, False]
    assert all(line.endswith("(kept)") for line in lines), lines
    assert (again.builder.built, again.runner.ran) == ([], [])  # type: ignore[attr-defined]


def test_the_timeline_shows_where_each_scenario_changed(
    repo: dict[str, str], tmp_path: Path
) -> None:
    root = Path(repo["root"])
    commits = first_parent_commits(root, repo["start"], "main", ["src/pkg/skills"])
    verdicts = _verdicts(repo)
    recorder = Recorder(tmp_path / "cache", FakeBuilder(set()), FakeRunner(verdicts), print)
    outcomes = recorder.record(commits)
    out = tmp_path / "out"
    timeline = write_history(outcomes, out, commit_url="https://x/{sha}", title="T")
    page = (out / "timeline.html").read_text()
    uri = next(row for row in timeline.rows if row.name == "uri")
    assert uri.first(timeline.commits, frozenset({Verdict.FAILED})) == commits[1]
    assert [(t.commit.sha, t.after) for t in uri.transitions(timeline.commits)] == [
        (repo["skills"], Verdict.FAILED),
        (repo["tip"], Verdict.PASSED),
    ]
    row = next(line for line in page.splitlines() if 'title="skill-tools/uri"' in line)
    first_failing, first_passing = row.split('<td class="when">')[1:3]
    assert f'<a href="https://x/{repo["skills"]}">{repo["skills"][:9]}</a>' in first_failing
    assert repo["start"][:9] in first_passing
    assert row.count('class="undriven"') == 1  # the merge, whose run wrote no results
    assert "the run wrote no results" in page
    findings = (out / "findings.md").read_text()
    section = findings.split(f"## `{repo['skills'][:9]}` skills: break loading")[1]
    assert "the gate fails; 1 regressed" in section.split("##")[0]
    seen = "observed skill:\u2060//local/x"  # not made a link
    assert f"- regressed: skill-tools &gt; uri (passed → failed): {seen}" in section
    tip = findings.split(f"## `{repo['tip'][:9]}`")[1]  # against `skills`: the merge is skipped
    assert f"Against `{repo['skills'][:9]}`: the gate passes; 0 regressed, 1 fixed" in tip
    assert "- changed: skill-tools &gt; tools (failed → errored): crashed" in tip


def test_a_commit_the_adapter_cannot_drive_is_not_a_column_of_failures(tmp_path: Path) -> None:
    old, new = Commit("0" * 40, "2026-07-09", "old"), Commit("1" * 40, "2026-07-10", "new")
    reason = "agentpool 0.1: agentpool has no agentpool.AgentPool"
    runner = FakeRunner(
        {
            old.sha: [_result("uri", Verdict.CANNOT_DRIVE, reason)],
            new.sha: [_result("uri", Verdict.FAILED, "observed none")],
        }
    )
    recorder = Recorder(tmp_path / "cache", FakeBuilder(set()), runner, print)
    outcomes = recorder.record([old, new])
    assert outcomes[0].reason == f"cannot drive: {reason}"
    timeline = write_history(outcomes, tmp_path, commit_url=None, title="T")
    (row,) = timeline.rows
    assert row.cells[0] is None
    assert row.first(timeline.commits, frozenset({Verdict.FAILED})) == new
    assert timeline.steps() == []  # nothing to compare the first judged commit with
    page = (tmp_path / "timeline.html").read_text()
    line = next(line for line in page.splitlines() if 'title="skill-tools/uri"' in line)
    assert line.endswith(
        '<td class="undriven"></td><td class="failed" title="failed: observed none"></td></tr>'
    )
    assert f"<li>000000000 old: cannot drive: {reason}</li>" in page


def test_a_pull_request_is_judged_against_its_merge_base(
    repo: dict[str, str], tmp_path: Path
) -> None:
    root = Path(repo["root"])
    recorder = Recorder(tmp_path / "c", FakeBuilder(set()), FakeRunner(_verdicts(repo)), print)
    out = tmp_path / "not" / "yet"  # made when needed
    line, failed = judge_pull_request(recorder, root, 7, "main", out)
    assert failed == 0  # merge base: `skills` (uri failed, tools failed); head: both pass
    assert line.startswith(f"PR #7 ({repo['pr'][:9]} against merge base {repo['skills'][:9]})")
    assert "the gate passes: 0 regressed, 2 fixed" in line
    text = (out / "pr-7.md").read_text()
    pr = "\\#\u20607"  # neither a heading nor a link to issue 7
    assert f"{pr} merge base {repo['skills'][:9]} → {pr} head {repo['pr'][:9]}" in text


def test_each_commit_is_checked_out_in_a_directory_of_its_own(
    repo: dict[str, str], tmp_path: Path
) -> None:
    root = Path(repo["root"])
    builder = UvBuilder(root, tmp_path / "cache", suite=tmp_path, python=sys.executable)
    start, skills = (commit(root, repo[name]) for name in ("start", "skills"))
    first = builder.checkout(start)
    assert first == tmp_path / "cache" / repo["start"][:9]
    assert (first / SKILLS).read_text() == "v0\n"
    assert (builder.checkout(skills) / SKILLS).read_text() == "v1\n"
    pr = commit(root, "refs/pull/7/head")  # not on a branch: the objects are shared
    assert (builder.checkout(pr) / SKILLS).read_text() == "v2\n"
    with pytest.raises(BuildError, match=r"^the commit has no uv\.lock$"):
        builder.build(start)


def test_the_tip_is_checked_out_on_a_fresh_cache(repo: dict[str, str], tmp_path: Path) -> None:
    # A clone's HEAD is already the tip: its checkout held only .git ("the commit has no uv.lock").
    root = Path(repo["root"])
    builder = UvBuilder(root, tmp_path / "cache", suite=tmp_path, python=sys.executable)
    tip = builder.checkout(commit(root, repo["tip"]))
    assert (tip / "other.txt").read_text() == "z\n"
    assert (tip / SKILLS).read_text() == "v1\n"


@pytest.mark.parametrize("option", ["--since", "--until"])
@pytest.mark.parametrize("value", ["--output={out}", "-p", "--exec-path={out}", "nonexistent"])
def test_a_revision_is_never_an_option_to_git(
    repo: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
) -> None:
    out = tmp_path / "written-by-git"
    given = value.format(out=out)
    others = {"--since": repo["start"], "--until": "main", option: given}
    argv = ["history", "--repo", repo["root"], "--cache", str(tmp_path / "cache")]
    argv += ["--suite", str(tmp_path), "--python", sys.executable]
    argv += [f"{name}={revision}" for name, revision in others.items()]
    assert main(argv) == 2
    err = capsys.readouterr().err
    root = repo["root"]
    assert err == f"skill-conformance: error: {option}: {given!r} is not a commit of {root}\n"
    assert not out.exists()
    assert not (tmp_path / "cache").exists()  # nothing built, nothing run


def test_a_relative_cache_gives_the_runs_an_absolute_results_file(
    repo: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `make history` gives build/history; a run works elsewhere

    class Elsewhere(FakeRunner):
        def run(self, python: Path, results: Path, log: Path) -> None:
            assert results.is_absolute(), results
            super().run(python, results, log)

    root = Path(repo["root"])
    recorder = Recorder(Path("cache"), FakeBuilder(set()), Elsewhere(_verdicts(repo)), print)
    (outcome,) = recorder.record([commit(root, repo["start"])])
    assert outcome.judged


def test_a_relative_cache_gives_absolute_checkouts(
    repo: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `make history` gives build/history
    builder = UvBuilder(Path(repo["root"]), Path("cache"), suite=tmp_path, python=sys.executable)
    assert builder.checkout(commit(Path(repo["root"]), repo["start"])) == (
        tmp_path / "cache" / repo["start"][:9]
    )


def test_what_history_knows_of_a_codebase_comes_from_its_adapter() -> None:
    from skill_conformance.adapters.agentpool.codebase import AGENTPOOL
    from skill_conformance.commands.history import codebase_of

    assert codebase_of("agentpool") == AGENTPOOL
    assert codebase_of("wolfharness") == AGENTPOOL
    assert codebase_of("reference") is None
    history = Path(codebase_of.__code__.co_filename).parent
    assert [p.name for p in history.glob("*.py") if "skill_manager_cap" in p.read_text()] == []


def test_a_codebase_no_adapter_describes_needs_its_paths(
    repo: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skill_conformance.commands.main import main

    argv = ["history", "--repo", repo["root"], "--since", repo["start"], "--impl", "reference"]
    assert main([*argv, "--cache", str(tmp_path / "c"), "--python", sys.executable]) == 2
    assert "--impl reference: its adapter names no codebase: give --path" in capsys.readouterr().err
