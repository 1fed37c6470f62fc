"""GitHub-flavoured Markdown for a CI job summary or a pull request comment: text, tables, folds.

Every text an implementation or a results file supplies is written as plain text, whatever it
holds: no link, image, autolink, mention, issue reference, HTML, emphasis, code span or fence, and
no break out of its table cell or line can be formed from it.

- Control and invisible characters, line breaks included, are shown escaped
  (:func:`~skill_conformance.escape.terminal.printable`).
- ``&``, ``<`` and ``>`` become entities; every character Markdown reads inside a line (a
  backslash, a backtick, ``*``, ``_``, brackets, ``~``, ``|``, ``$``) is backslash-escaped, and
  so is what would begin a heading, a list item or a rule where the text begins a line.
- What GitHub links by itself in text (``@user``, ``#12``, ``GH-12``, ``https://``, ``www.``) is
  broken by a word joiner (U+2060, invisible), which GitHub's matching does not cross.

Text inside an HTML block (a fold's ``<summary>``) is not read as Markdown there: :func:`in_html`
gives entities and word joiners only. ``report --format markdown``, ``compare --format
markdown`` and ``history``'s pages use this module and no other.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from skill_conformance.escape.terminal import printable

__all__ = ["CELL_LIMIT", "cell", "folded", "in_html", "inline", "shortened", "table"]

CELL_LIMIT = 300
"""Characters of a text shown in a table cell (the results file has them whole)."""

_JOINER = "\u2060"
_AUTO_REFERENCE = re.compile(
    r"(?<=@)(?=\w)|(?<=#)(?=\d)|(?<=GH)(?=-\d)|(?<=:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE
)
"""Where GitHub would start a mention, an issue or pull request reference, or an autolink."""
_MARKDOWN = re.compile(r"([\\`*\[\]~|]|(?<![^\W_])_|_(?![^\W_]))")
"""The characters Markdown may read as syntax inside a line (``_`` but between two letters or
digits, where it never is: ``snake_case`` stays as written)."""
_BLOCK_START = re.compile(r"^(\d+(?=[.)])|)([#+\-=.)])")
"""What would make a line a heading, a list item or a rule where the text begins one."""


def shortened(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def in_html(text: str) -> str:
    """``text`` as plain text inside HTML (a ``<summary>``): entities, controls, no reference.

    ``$`` is an entity there too: GitHub typesets ``$...$`` as math.
    """
    joined = _AUTO_REFERENCE.sub(_JOINER, html.escape(printable(text), quote=False))
    return joined.replace("$", "&#36;")


def inline(text: str) -> str:
    """``text`` as plain text on one line of Markdown, wherever inline text may stand."""
    return _BLOCK_START.sub(r"\1\\\2", _MARKDOWN.sub(r"\\\1", in_html(text)))


def cell(text: str, limit: int = CELL_LIMIT) -> str:
    """``text`` as one table cell: cut to ``limit`` characters, then :func:`inline`."""
    return inline(shortened(text, limit))


def table(headings: Sequence[str], rows: Iterable[Sequence[str]], numeric: int = 0) -> list[str]:
    """The lines of a table of cells already escaped; its last ``numeric`` columns align right."""
    rules = ["---"] * (len(headings) - numeric) + ["---:"] * numeric
    lines = [f"| {' | '.join(headings)} |", f"| {' | '.join(rules)} |"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return lines


def folded(summary: str, body: Sequence[str]) -> list[str]:
    """``body`` folded under ``summary`` (already :func:`in_html`), set apart by blank lines."""
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]
