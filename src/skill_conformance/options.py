"""Checking options before any work starts, each refusal one line naming the option and value."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from skill_conformance.errors import InputError

__all__ = [
    "OptionError",
    "positive_seconds",
    "seconds_argument",
    "whole_mib",
    "writable_file",
]


class OptionError(InputError, ValueError):
    """An option's value cannot be used; the message is one line naming option and value."""


def positive_seconds(option: str, text: object) -> float:
    """``text`` as a number of seconds, which must be positive and finite."""
    try:
        value = float(str(text))
    except ValueError:
        raise OptionError(f"{option}: {text!s:.80} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise OptionError(f"{option}: {text!s:.80} is not a positive, finite number of seconds")
    return value


def whole_mib(option: str, text: object) -> int:
    """``text`` as a whole number of MiB, zero or more."""
    try:
        value = int(str(text))
    except ValueError:
        raise OptionError(f"{option}: {text!s:.80} is not a whole number of MiB") from None
    if value < 0:
        raise OptionError(f"{option}: {text!s:.80} is negative; 0 means no bound")
    return value


def whole_seed(option: str, text: object) -> int:
    """``text`` as a seed: a whole number, zero or more."""
    try:
        value = int(str(text))
    except ValueError:
        raise OptionError(f"{option}: {text!s:.80} is not a whole number") from None
    if value < 0:
        raise OptionError(f"{option}: {text!s:.80} is negative")
    return value


def seconds_argument(text: str) -> float:
    """An argparse ``type``: :func:`positive_seconds`, refused as argparse refuses a value."""
    try:
        return positive_seconds("value", text)
    except OptionError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("value: ")) from None


def writable_file(option: str, path: Path) -> Path:
    """``path``, if a file can be written there (its folder created as needed); else refuse."""
    if path.is_dir():
        raise OptionError(f"{option}: {path} is a directory, not a file")
    folder = path.parent
    while not folder.exists():
        if folder.is_symlink():  # a dangling link: mkdir would fail on it
            raise OptionError(f"{option}: {folder} is a broken symbolic link")
        folder = folder.parent
    if not folder.is_dir():
        raise OptionError(f"{option}: {folder} is not a directory, so {path} cannot be written")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OptionError(f"{option}: {folder} is not writable, so {path} cannot be written")
    if path.exists() and not os.access(path, os.W_OK):
        raise OptionError(f"{option}: {path} is not writable")
    return path
