"""Hostile files and trees given to the commands that read them: one line, exit 2, bounded.

Results files (``compare``, ``report``, ``expectations``), expectations files, and spec trees
(``trace --against``, ``gherkin``). The commands run as a user runs them, in a process of their
own whose address space is capped and whose wait is bounded, so that a reader without bounds
fails here instead of taking the machine's memory or hanging the run.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skill_conformance.commands.main import main
from skill_conformance.verdicts import comparison
from skill_conformance.verdicts.results import Header, Results, ScenarioResult, write_results
from skill_conformance.verdicts.verdict import Verdict

SPECS = Path(__file__).resolve().parents[2] / "openspec" / "specs"
MEMORY = 2 << 30
"""Address space of a command run here: a reader without bounds meets it early."""
WAIT = 60.0
"""The longest a command run here is waited for; a reader that blocks fails at it."""


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _command(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "skill_conformance", *argv],
            capture_output=True,
            timeout=WAIT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_cap_memory,
            check=False,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"skill-conformance {argv[0]} still running after {WAIT:.0f} s")


def _one_line_error(done: subprocess.CompletedProcess[bytes], *words: str) -> str:
    """The command's one error line; it exited 2, wrote nothing else, and no traceback."""
    err = done.stderr.decode("utf-8")
    assert (done.returncode, done.stdout) == (2, b""), err[-2000:]
    assert err.count("\n") == 1, err[-2000:]
    assert err.startswith("skill-conformance: error: ")
    for word in words:
        assert word in err
    return err


def _result(name: str = "Load", reason: str = "observed x") -> ScenarioResult:
    return ScenarioResult("skill-tools", "load", "SHALL load", "load", name, Verdict.FAILED, reason)


def _results_file(path: Path, *scenarios: ScenarioResult) -> Path:
    header = Header("0.1.0", "sha256:0", "impl", "1.0", "impl")
    write_results(path, Results(header, scenarios or (_result(),), "2026-12-07", 1))
    return path


READERS = {
    "compare": lambda bad, good: ["compare", str(good), str(bad)],
    "compare-markdown": lambda bad, good: ["compare", str(bad), str(good), "--format", "markdown"],
    "report-markdown": lambda bad, good: ["report", str(good), str(bad), "--format", "markdown"],
    "report-html": lambda bad, good: ["report", str(bad), "--out", str(good.parent / "r.html")],
    "expectations": lambda bad, good: ["expectations", "--from", str(bad), "--out", "x.toml"],
}
"""Each command that reads results files, given the bad one (and a good one where it takes two)."""


def _edited(path: Path, old: str, new: str) -> Path:
    """A results file of one scenario, its JSON text with ``old`` replaced by ``new``."""
    text = _results_file(path, _result()).read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    return path


BAD_FILES = {
    "link-to-dev-zero": lambda path: (path.symlink_to("/dev/zero"), path)[1],
    "fifo": lambda path: (os.mkfifo(path), path)[1],
    "folder": lambda path: (path.mkdir(), path)[1],
    "4301-digit-exit-status": lambda path: _edited(
        path, '"exit_status": 1', '"exit_status": ' + "9" * 4301
    ),
    "exit-status-out-of-range": lambda path: _edited(
        path, '"exit_status": 1', '"exit_status": ' + "9" * 30
    ),
    "exit-status-not-a-number": lambda path: _edited(
        path, '"exit_status": 1', '"exit_status": "1"'
    ),
    "lone-surrogate-in-name": lambda path: _edited(path, '"name": "Load"', '"name": "\\ud800"'),
    "lone-surrogate-in-observation": lambda path: _edited(
        path, '"reason": "observed x"', '"reason": "observed \\udfff"'
    ),
    "lone-surrogate-in-adapter": lambda path: _edited(path, '"name": "impl"', '"name": "\\ud800"'),
    "name-not-text": lambda path: _edited(path, '"name": "Load"', '"name": ["Load"]'),
}


UNBOUNDED = frozenset({"link-to-dev-zero", "fifo"})
"""What a reader without bounds never finishes reading: given to a process of its own."""


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("bad", sorted(BAD_FILES))
def test_a_bad_results_file_is_one_line_and_exit_2(
    reader: str,
    bad: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = _results_file(tmp_path / "good.json")
    path = BAD_FILES[bad](tmp_path / "bad.json")
    argv = READERS[reader](path, good)
    if bad in UNBOUNDED:
        _one_line_error(_command(*argv, cwd=tmp_path), str(path))
        return
    monkeypatch.chdir(tmp_path)
    status = main(argv)
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (2, "", 1), err[-2000:]
    assert err.startswith(f"skill-conformance: error: {path}: ")


EXPECTATIONS_FILES = {
    "link-to-dev-zero": lambda path: (path.symlink_to("/dev/zero"), path)[1],
    "fifo": lambda path: (os.mkfifo(path), path)[1],
    "4301-digit-number": lambda path: (
        path.write_text('implementation = "x"\nversion = "1"\nn = ' + "9" * 4301 + "\n"),
        path,
    )[1],
}


@pytest.mark.parametrize("bad", sorted(EXPECTATIONS_FILES))
def test_a_bad_expectations_file_is_one_line_and_exit_2(bad: str, tmp_path: Path) -> None:
    source = _results_file(tmp_path / "r.json")
    out = EXPECTATIONS_FILES[bad](tmp_path / "expected.toml")
    done = _command("expectations", "--from", str(source), "--out", str(out), cwd=tmp_path)
    _one_line_error(done, str(out))


def test_compare_is_linear_in_an_observation(tmp_path: Path) -> None:
    # 300 KB of a path: the temporary-path pattern tried every "/" to the end (93 s before).
    long = "/a" * 150_000
    base = _results_file(tmp_path / "base.json", _result(reason=f"observed {long}"))
    head = _results_file(tmp_path / "head.json", _result(reason=f"observed {long}/b"))
    done = _command("compare", str(base), str(head), "--format", "json")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert json.loads(done.stdout)["observations"]  # seen, and seen to differ


def _old_observation(text: str) -> str:
    """What the quadratic pattern replaced, as :func:`comparison.observation` did before."""
    tmp = re.compile(r"/[^\s'\"]*?/pytest-of-[^/\s'\"]+/pytest-\d+(?:/[^/\s'\"]*)?")
    return tmp.sub("<tmp>", text)


@given(st.lists(st.sampled_from(["/", "a", "/pytest-of-ci", "/pytest-12", " ", "'", "x/"])))
def test_temporary_paths_are_replaced_as_before(parts: list[str]) -> None:
    text = "".join(parts)
    assert comparison._WORD.sub(comparison._temporary_paths, text) == _old_observation(text)


def _spec_tree(root: Path, folders: list[str]) -> Path:
    for folder in folders:
        target = root / "specs" / folder
        target.mkdir(parents=True, exist_ok=True)
        (target / "spec.md").write_bytes((SPECS / "skill-tools" / "spec.md").read_bytes())
    return root


def _deep(root: Path, depth: int) -> Path:
    folder = root / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(folder, os.O_RDONLY)
    try:  # one level at a time, relative: a path 1,200 folders long is longer than PATH_MAX
        for _ in range(depth):
            os.mkdir("d", dir_fd=descriptor)
            inner = os.open("d", os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    finally:
        os.close(descriptor)
    return root


def _flatten(folder: Path) -> None:
    """Take apart a chain ``_deep`` made, a level at a time: pytest's removal of old temporary
    directories recurses, and a later session would end in a RecursionError on it."""
    top = folder / "d"
    while top.is_dir():
        inner = top / "d"
        if inner.is_dir():
            spare = folder / "spare"
            inner.rename(spare)  # the chain below moves up a level
            top.rmdir()
            spare.rename(top)
        else:
            top.rmdir()


@pytest.fixture
def deep() -> Iterator[Callable[[Path, int], Path]]:
    """``_deep``, its chains taken apart after the test."""
    made: list[Path] = []

    def make(root: Path, depth: int) -> Path:
        made.append(root / "specs")
        return _deep(root, depth)

    yield make
    for folder in made:
        _flatten(folder)


def _special_spec(root: Path, kind: str) -> Path:
    folder = root / "specs" / "cap"
    folder.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(folder / "spec.md")
    else:
        (folder / "spec.md").symlink_to("/dev/zero")
    return root


TREE_COMMANDS = {
    "trace": lambda tree: ["trace", "--no-steps", "--against", str(tree)],
    "gherkin": lambda tree: ["gherkin", "--specs", str(tree / "specs"), "--out", str(tree / "f")],
}


@pytest.mark.parametrize("command", sorted(TREE_COMMANDS))
def test_a_tree_1200_folders_deep_is_one_line_and_exit_2(
    command: str, tmp_path: Path, deep: Callable[[Path, int], Path]
) -> None:
    tree = deep(tmp_path / "tree", 1200)
    done = _command(*TREE_COMMANDS[command](tree))
    err = done.stderr.decode()
    assert done.returncode == 2, err[-2000:]
    assert "Traceback" not in err
    assert err.count("\n") == 1
    assert "folders nested deeper than" in err


@pytest.mark.parametrize("kind", ["fifo", "link-to-dev-zero"])
@pytest.mark.parametrize("command", sorted(TREE_COMMANDS))
def test_a_spec_that_is_no_regular_file_is_refused(command: str, kind: str, tmp_path: Path) -> None:
    tree = _special_spec(tmp_path / "tree", kind)
    done = _command(*TREE_COMMANDS[command](tree))
    err = done.stderr.decode()
    assert done.returncode == 2, err[-2000:]
    assert "Traceback" not in err
    assert "not a regular file" in err


@pytest.mark.parametrize("command", sorted(TREE_COMMANDS))
def test_folder_names_that_are_not_printable_are_shown_escaped(
    command: str, tmp_path: Path
) -> None:
    tree = _spec_tree(tmp_path / "tree", ["bad\nname", os.fsdecode(b"\xff\xfe"), "\x1b[31mred"])
    argv = TREE_COMMANDS[command](tree)
    done = _command(*argv, "--verbose" if command == "trace" else "--check")
    out = (done.stdout + done.stderr).decode("utf-8")  # no byte that is not UTF-8
    assert "bad\\nname" in out
    assert "\\xff\\xfe" in out
    assert "\\x1b[31mred" in out
    assert "\x1b" not in out
    assert not any(line.startswith("name") for line in out.splitlines())


def test_reports_specs_digest_reads_a_deep_hidden_folder_within_bounds(
    tmp_path: Path, deep: Callable[[Path, int], Path]
) -> None:
    # The scenario text skips hidden folders; the specs' digest reads every spec.md.
    tree = _spec_tree(tmp_path / "tree", ["skill-tools"])
    deep(tree / "specs" / ".hidden", 1200)
    results = _results_file(tmp_path / "r.json")
    out = tmp_path / "r.html"
    done = _command("report", str(results), "--specs", str(tree / "specs"), "--out", str(out))
    _one_line_error(done, "folders nested deeper than")
