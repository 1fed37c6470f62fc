"""GitHub-flavoured Markdown for a CI job summary or a pull request comment: cells, tables, folds.

Shared by ``report --format markdown`` and ``compare --format markdown``, so both escape and cut
their text the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["CELL_LIMIT", "cell", "folded", "shortened", "table"]

CELL_LIMIT = 300
"""Characters of a text shown in a table cell (the results file has them whole)."""


def shortened(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def cell(text: str, limit: int = CELL_LIMIT) -> str:
    """``text`` as one table cell: cut, on one line, and nothing in it read as Markdown or HTML."""
    escaped = shortened(text, limit).replace("&", "&amp;")
    escaped = escaped.replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("|", "\\|").replace("`", "&#96;").replace("\n", " ")


def table(headings: Sequence[str], rows: Iterable[Sequence[str]], numeric: int = 0) -> list[str]:
    """The lines of a table of cells already escaped; its last ``numeric`` columns align right."""
    rules = ["---"] * (len(headings) - numeric) + ["---:"] * numeric
    lines = [f"| {' | '.join(headings)} |", f"| {' | '.join(rules)} |"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return lines


def folded(summary: str, body: Sequence[str]) -> list[str]:
    """``body`` folded under ``summary`` (``<details>``), its Markdown set apart by blank lines."""
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]
