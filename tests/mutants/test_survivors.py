"""What ``make mutation`` says each survivor changes, and which ones only reword a message."""

from __future__ import annotations

from pathlib import Path

from tests.mutants.survivors import changes

_MUTANTS = """
def x_check__mutmut_orig(name, line):
    if not name:
        raise SkipSkill("name: missing", line)
    return name.strip()

def x_check__mutmut_1(name, line):
    if not name:
        raise SkipSkill("XXname: missingXX", line)
    return name.strip()

def x_check__mutmut_2(name, line):
    if not name:
        raise SkipSkill("name: missing", None)
    return name.strip()

def x_check__mutmut_3(name, line):
    if name:
        raise SkipSkill("name: missing", line)
    return name.strip()

def x_check__mutmut_4(name, line):
    if not name:
        raise SkipSkill(None, line)
    return name.strip()
"""


def test_each_mutant_is_shown_and_only_rewordings_are_messages(tmp_path: Path) -> None:
    (tmp_path / "loader.py").write_text(_MUTANTS)
    found = changes(tmp_path, "pkg")
    assert sorted(found) == [f"pkg.loader.x_check__mutmut_{n}" for n in (1, 2, 3, 4)]
    reworded, line_dropped, inverted, message_dropped = (
        found[f"pkg.loader.x_check__mutmut_{n}"] for n in (1, 2, 3, 4)
    )
    assert reworded.message_only
    assert "'name: missing' -> 'XXname: missingXX'" in reworded.summary
    assert not line_dropped.message_only  # the line a problem names is not its wording
    assert "line -> None" in line_dropped.summary
    assert not inverted.message_only
    assert "not name -> name" in inverted.summary
    assert not message_dropped.message_only  # no message at all is more than a rewording
