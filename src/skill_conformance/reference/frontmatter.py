"""Read one ``SKILL.md`` safely: bounded bytes from a regular file, then bounded YAML.

Every way a file can hurt the process reading it is refused here with a :class:`FrontmatterError`
(a message and, where known, the file line): a path that is not a regular file (a folder, a named
pipe, a device) or that leads out of its skill's folder, more than :data:`MAX_FILE_BYTES`, a
frontmatter over :data:`MAX_FRONTMATTER_BYTES`, YAML nesting deeper than :data:`MAX_DEPTH` or whose
aliases stand for more than :data:`MAX_VALUES` values, and a key written twice. The file is opened
without blocking and checked with ``fstat`` on the open descriptor, so what is read is what was
checked, and a pipe that nobody writes to cannot hold up start-up.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import yaml

__all__ = [
    "FIRST_HEADER_LINE",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_FRONTMATTER_BYTES",
    "MAX_VALUES",
    "Frontmatter",
    "FrontmatterError",
    "read_skill_file",
]

MAX_FILE_BYTES = 1024 * 1024
"""The largest ``SKILL.md`` read, in bytes."""
MAX_FRONTMATTER_BYTES = 64 * 1024
"""The largest frontmatter parsed, in bytes (UTF-8, between the two ``---`` lines)."""
MAX_DEPTH = 64
"""The deepest nesting of YAML collections accepted."""
MAX_VALUES = 10_000
"""The most YAML values a frontmatter may stand for, every alias counted as what it repeats."""

FIRST_HEADER_LINE = 2
"""The file line of the frontmatter's first line: line 1 is the opening ``---``."""

_OPEN_FLAGS = (
    os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
_KINDS = {
    stat.S_ISDIR: "a folder",
    stat.S_ISFIFO: "a named pipe",
    stat.S_ISCHR: "a character device",
    stat.S_ISBLK: "a block device",
    stat.S_ISSOCK: "a socket",
}
_COLON_VALUE = re.compile(
    r"^(?P<key>[A-Za-z0-9_-]+):[ \t]+(?P<value>[^\s\"'\[\]{}|>&*!%@`#].*: .*)$", re.MULTILINE
)
"""A top-level field whose plain value holds ``: ``, which YAML cannot read unquoted."""
_CLOSING = re.compile(r"^[ \t]*---[ \t]*$", re.MULTILINE)
"""The line that ends the frontmatter: three dashes alone (a ``---`` inside a value is not it)."""
_LINE_END = re.compile("[\0\r\n\x85\u2028\u2029]")
"""Where a YAML comment ends: a line break, or the reader's end of text (``\\0``)."""
_ENTRY_FIELDS = frozenset({"tools", "mcp-servers"})
"""Fields whose items are entries, each reported on its own (``tools[0]``)."""
_TOP_LEVEL_KEY = re.compile(r"(?P<key>[A-Za-z0-9_-]+):(?:\s|$)")


class FrontmatterError(Exception):
    """A ``SKILL.md`` cannot be used; ``line`` is the file line when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Frontmatter:
    """A ``SKILL.md`` read: its fields, their YAML nodes (for lines) and the instructions."""

    data: object
    node: yaml.Node | None
    body: str


def read_skill_file(path: Path) -> Frontmatter:
    """Read ``path`` (a skill folder's ``SKILL.md``): checked bytes, split, parsed."""
    text = _decode(_read_bytes(path))
    header, body = _split(text)
    size = len(header.encode("utf-8"))
    if size > MAX_FRONTMATTER_BYTES:
        raise FrontmatterError(
            f"frontmatter: {size} bytes, more than the limit of {MAX_FRONTMATTER_BYTES}",
            FIRST_HEADER_LINE,
        )
    node, data = _parse(header)
    return Frontmatter(data, node, body)


# -- bytes -------------------------------------------------------------------------------------


def _read_bytes(path: Path) -> bytes:
    folder = path.parent.resolve()
    target = path.resolve()
    if not target.is_relative_to(folder):
        raise FrontmatterError("SKILL.md: a link leading out of the skill's folder; not read")
    try:
        descriptor = os.open(target, _OPEN_FLAGS)
    except OSError as error:
        raise FrontmatterError(f"SKILL.md: cannot read ({error.strerror})") from None
    try:
        info = os.fstat(descriptor)
        for is_kind, kind in _KINDS.items():
            if is_kind(info.st_mode):
                raise FrontmatterError(f"SKILL.md: {kind}, not a regular file; not read")
        if not stat.S_ISREG(info.st_mode):
            raise FrontmatterError("SKILL.md: not a regular file; not read")
        if info.st_size > MAX_FILE_BYTES:
            raise _too_large(info.st_size)
        chunks, size = [], 0
        while chunk := os.read(descriptor, MAX_FILE_BYTES + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise _too_large(size)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _too_large(size: int) -> FrontmatterError:
    return FrontmatterError(f"SKILL.md: {size} bytes, more than the limit of {MAX_FILE_BYTES}")


def _decode(data: bytes) -> str:
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise FrontmatterError(
            f"SKILL.md: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})", line
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _split(text: str) -> tuple[str, str]:
    """The frontmatter and the instructions: the frontmatter ends at the next line of ``---``."""
    opening, _, rest = text.partition("\n")
    if opening.strip() != "---":
        raise FrontmatterError("frontmatter: missing (the file must start with '---')", 1)
    closing = _CLOSING.search(rest)
    if closing is None:
        raise FrontmatterError("frontmatter: not closed by '---'", 1)
    return rest[: closing.start()], rest[closing.end() + 1 :]


# -- YAML ---------------------------------------------------------------------------------------


class _LimitError(yaml.MarkedYAMLError):
    """The frontmatter goes past a limit of :class:`_BoundedLoader`, at ``where`` if known."""

    where: tuple[str | int, ...] = ()
    """Keys and indexes from the frontmatter's mapping down to the node at fault."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with a bound on nesting, on alias expansion and on repeated keys."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._values = 0
        self._sizes: dict[str, int] = {}
        self._where: list[str | int] = []
        """Keys and indexes down to the node being composed: what a limit error names."""

    # PyYAML's scanner looks through every possible simple key for each token it reads: time
    # quadratic in the depth of a flow collection (a quarter of a second for a thousand ``[``).
    # Its keys are kept in the order they were found, so that the nearest is the first and the
    # stale ones come first; these two read them so, with the same results.
    # Equivalent mutants: these three give PyYAML's own answers, only sooner.
    # pragma: no mutate start
    def next_possible_simple_key(self) -> int | None:
        for key in self.possible_simple_keys.values():
            return int(key.token_number)
        return None

    def stale_possible_simple_keys(self) -> None:
        stale = []
        for level, key in self.possible_simple_keys.items():
            if key.line == self.line and self.index - key.index <= 1024:
                break
            if key.required:
                raise yaml.scanner.ScannerError(
                    "while scanning a simple key",
                    key.mark,
                    "could not find expected ':'",
                    self.get_mark(),
                )
            stale.append(level)
        for level in stale:
            del self.possible_simple_keys[level]

    def scan_to_next_token(self) -> None:
        # PyYAML's own steps through a comment one character at a time, which a frontmatter of
        # long comments makes slow; this one steps over it at once, the reader's counts kept.
        if self.stream is not None:  # a stream is read in pieces: only a text is here whole
            super().scan_to_next_token()
            return
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " ":
                self.forward()
            if self.peek() == "#":
                end = _LINE_END.search(self.buffer, self.pointer)
                comment = self.buffer[self.pointer : end.start() if end else len(self.buffer)]
                self.pointer += len(comment)
                self.index += len(comment)
                self.column += len(comment) - comment.count("\ufeff")
            if not self.scan_line_break():  # type: ignore[no-untyped-call]
                return
            if not self.flow_level:
                self.allow_simple_key = True

    # pragma: no mutate end

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        # A mapping's value is composed with its key node as ``index`` (whatever the stubs say);
        # an item, with its number; a key, with None.
        given: object = index
        step = given.value if isinstance(given, yaml.ScalarNode) else given
        if isinstance(step, str | int):
            self._where.append(step)
        try:
            return self._compose(parent, index)
        finally:
            if isinstance(step, str | int):
                self._where.pop()

    def _compose(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            self._count(self._sizes.get(str(event.anchor), 1), event)
            return super().compose_node(parent, index)
        # Collections count as levels of nesting; a scalar inside the deepest one does not.
        level = 1 if isinstance(event, yaml.CollectionStartEvent) else 0
        self._depth += level
        if self._depth > MAX_DEPTH:
            self._fail(f"collections nest deeper than {MAX_DEPTH} levels", event)
        before = self._values
        self._count(1, event)
        node = super().compose_node(parent, index)
        self._depth -= level
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._sizes[str(anchor)] = self._values - before
        return node

    def _count(self, values: int, event: yaml.Event) -> None:
        self._values += values
        if self._values > MAX_VALUES:
            self._fail(f"stands for more than {MAX_VALUES} values", event)

    def _fail(self, problem: str, event: yaml.Event) -> NoReturn:
        error = _LimitError(None, None, problem, _mark(event))
        error.where = tuple(self._where)
        raise error

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        seen: set[tuple[str, str]] = set()
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                if (key.tag, key.value) in seen:
                    raise _LimitError(
                        None, None, f"key {_excerpt(key.value)} written twice", key.start_mark
                    )
                seen.add((key.tag, key.value))
        return super().construct_mapping(node, deep=deep)


def _mark(event: yaml.Event) -> yaml.error.Mark | None:
    mark = event.start_mark
    return mark if isinstance(mark, yaml.error.Mark) else None


def _parse(header: str) -> tuple[yaml.Node | None, object]:
    try:
        return _load(header)
    except _LimitError as error:
        line = None if error.problem_mark is None else error.problem_mark.line
        field = _where(error.where) if error.where else _field_at(header, line)
        where = None if line is None else line + FIRST_HEADER_LINE
        raise FrontmatterError(f"{field}: {error.problem}", where) from None
    except yaml.YAMLError as error:
        fallback = _quote_colon_values(header)
        if fallback != header:
            try:
                return _load(fallback)
            except yaml.YAMLError:
                pass
        line, message = _yaml_problem(error, header)
        raise FrontmatterError(f"frontmatter: malformed YAML: {message}", line) from None
    except (RecursionError, MemoryError) as error:
        message = f"frontmatter: too complex to read ({type(error).__name__})"
        raise FrontmatterError(message, FIRST_HEADER_LINE) from None


def _load(header: str) -> tuple[yaml.Node | None, object]:
    loader = _BoundedLoader(header)
    try:
        node = loader.get_single_node()
        return node, None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


def _where(path: tuple[str | int, ...]) -> str:
    """The field at ``path``, or its entry when the field is a list or mapping of entries.

    As the loader names an entry: ``tools[0]``, ``mcp-servers.brush``.
    """
    field, *rest = path
    if str(field) in _ENTRY_FIELDS and rest:
        return f"{field}[{rest[0]}]" if isinstance(rest[0], int) else f"{field}.{rest[0]}"
    return str(field)


def _field_at(header: str, line: int | None) -> str:
    """The top-level field that header line ``line`` (from 0) belongs to; else ``frontmatter``."""
    if line is None:
        return "frontmatter"
    for text in reversed(header.split("\n")[: line + 1]):
        if match := _TOP_LEVEL_KEY.match(text):
            return match["key"]
    return "frontmatter"


def _quote_colon_values(header: str) -> str:
    """``header`` with each unquoted top-level value holding ``: `` single-quoted."""

    def quoted(match: re.Match[str]) -> str:
        # Trailing blanks stay inside the quotes: the fields read (description, allowed-tools)
        # strip or split their value anyway.
        value = match["value"].replace("'", "''")
        return f"{match['key']}: '{value}'"

    return _COLON_VALUE.sub(quoted, header)


def _yaml_problem(error: yaml.YAMLError, header: str) -> tuple[int | None, str]:
    """The file line and the one-line text of a YAML error in ``header``."""
    if isinstance(error, yaml.reader.ReaderError):
        # A character YAML refuses: the reader gives its offset in the header, not a line.
        line = header[: error.position].count("\n") + FIRST_HEADER_LINE
        return line, f"character {chr(error.character)!r} is not allowed in YAML"
    if not isinstance(error, yaml.MarkedYAMLError):
        return None, _excerpt(" ".join(str(error).split()), quote=False)
    mark = error.context_mark or error.problem_mark
    words = [part for part in (error.context, error.problem) if part]
    message = " ".join(": ".join(words).split()) if words else "cannot parse"
    return (mark.line + FIRST_HEADER_LINE if mark is not None else None), message


def _excerpt(text: str, *, quote: bool = True, limit: int = 60) -> str:
    shown = repr(text) if quote else text
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
