"""The reference's faster reading of YAML (simple keys, comments) changes nothing but its speed.

The reference's loader replaces three methods of PyYAML's scanner: the nearest possible simple key
and dropping the stale ones stop at the first key that answers (relying on the keys being kept in
the order they were found), and a comment is stepped over at once instead of a character at a
time. Each frontmatter built here from YAML fragments (flow and block collections, quoting,
anchors and aliases, keys on several lines, repeated keys, comments, byte order marks, odd line
breaks, tabs, deep nesting) must read the same with PyYAML's own methods: the same data, or the
same problem on the same line.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st
from property_helpers import budget

from skill_conformance.reference import frontmatter
from skill_conformance.reference.frontmatter import FrontmatterError

_SCALARS = st.sampled_from(
    ["x", "'quoted: yes'", '"a \\" b"', "a: b", "1", "~", "yes", "*a", "&a v", "!!str 3", "? k"]
)
_FRAGMENTS = st.sampled_from(
    [
        *["[", "]", "{", "}", ", ", ": ", ":", "\n", "\n  ", "\n- ", "- ", "\t", "|", ">", "'"],
        *["#c", " # a comment", "\n# a line\n", "\ufeff", "\r", "\u2028", "# x\ufeff y"],
    ]
)
_VALUES = st.lists(_SCALARS | _FRAGMENTS, max_size=16).map("".join)
_KEYS = st.sampled_from(["name", "description", "x", "  y", "- z", "# k", "  # k"])


_REPLACED = ("next_possible_simple_key", "stale_possible_simple_keys", "scan_to_next_token")


def _read(header: str, *, pyyaml_own: bool) -> object:
    with pytest.MonkeyPatch.context() as patch:
        if pyyaml_own:
            for method in _REPLACED:
                patch.setattr(
                    frontmatter._BoundedLoader, method, getattr(yaml.scanner.Scanner, method)
                )
        try:
            return frontmatter._parse(header)[1]
        except FrontmatterError as error:
            return ("refused", str(error), error.line)


@budget(300)
@given(fields=st.lists(st.tuples(_KEYS, _VALUES), max_size=5))
@example(fields=[("description", "[" * 1000 + "]" * 1000)])
@example(fields=[("description", "[" * 64 + "x" + "]" * 64)])
@example(fields=[("description", "{a: [" + "b" * 1100 + ": c]}")])
@example(fields=[("name", "&a [x, x]"), ("description", "[*a, *a]")])
@example(fields=[("name", "a"), ("name", "b")])
@example(fields=[("description", "a: b: c")])
@example(fields=[("x", "[a\n  b: c]")])
@example(
    fields=[("description", "x # " + "p" * 2000), ("# k", "\ufeff#\ufeff"), ("name", "|\n  # kept")]
)
def test_the_reference_scanner_reads_as_pyyaml_own(fields: list[tuple[str, str]]) -> None:
    header = "".join(f"{key}: {value}\n" for key, value in fields)
    assert _read(header, pyyaml_own=False) == _read(header, pyyaml_own=True)
