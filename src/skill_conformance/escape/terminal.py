r"""Text for a terminal: what would act on it (control characters, bidi overrides) shown escaped.

An implementation's observation can hold ESC (which starts a terminal escape sequence), CR
(which rewrites the line), BEL, NUL, the C1 controls, line breaks, and the invisible characters
that reorder or hide text (bidi overrides and isolates, zero-width characters). Each is written as
its Python escape (``\n``, ``\x1b``, ``\u202e``), so what the reader sees is what the text holds. A
lone surrogate (a file name that is not UTF-8, read with ``surrogateescape``) is shown as the byte
it stands for (``\xff``).
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)
"""C0 and C1 controls, DEL, soft hyphen, Arabic letter mark, zero-width and bidi formatting
characters, line and paragraph separators, the byte order mark, interlinear annotations,
surrogates and tag characters."""


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    if match[0] in _SHORT:
        return _SHORT[match[0]]
    code = ord(match[0])
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, carried by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` on one line, every control or invisible formatting character shown escaped."""
    return _UNSAFE.sub(_escaped, text)
