from __future__ import annotations

import pytest

from skill_conformance.reference.substitution import substitute_arguments


@pytest.mark.parametrize(
    ("text", "arguments", "expected"),
    [
        ("first=$1 second=$2", "alpha beta", "first=alpha second=beta"),
        ("all=[$@] again=[$ARGUMENTS]", "alpha beta", "all=[alpha beta] again=[alpha beta]"),
        ("first=$1 all=$@", None, "first=$1 all=$@"),
        ("one=$1 ten=$10 twelve=$12", "a b c d e f g h i j k l", "one=a ten=j twelve=l"),
        ("one=$1 ten=$10", "alpha beta", "one=alpha ten=$10"),
        ("one=$1 two=$2", "$2 beta", "one=$2 two=beta"),
        ("x=$1", "$ARGUMENTS", "x=$ARGUMENTS"),
        ("all=$@ one=$1", "  spaced   out ", "all=  spaced   out  one=spaced"),
        ("zero=$0 lead=$01", "a", "zero=$0 lead=$01"),
        ("cost $5, $", "x", "cost $5, $"),
        ("all=[$@]", "", "all=[]"),
    ],
)
def test_substitution(text: str, arguments: str | None, expected: str) -> None:
    assert substitute_arguments(text, arguments) == expected
