"""Run an implementation's code as it would run in production, not as the suite's tests run.

The suite's own pytest configuration turns every warning into an error (``filterwarnings =
error``), and pytest applies that to whatever runs inside a test: an implementation emitting an
ordinary ``DeprecationWarning`` from a dependency would crash where in production it only prints
a line. Every call into an implementation (loading its adapter, opening and each operation) runs
under :func:`production_warnings`: Python's own default filters plus the interpreter's ``-W``
options and ``PYTHONWARNINGS``, and none of pytest's. Warnings still reach pytest's record, so
they show in its warnings summary; they are simply not raised.

Warning filters are process-wide in Python; the suite's thread waits while the implementation
runs, so swapping them for the duration of each call is enough.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["production_warnings"]


def _install_interpreter_defaults() -> None:
    """Python's "Default Warning Filter" (its docs), then the interpreter's own options."""
    warnings.resetwarnings()
    if sys.flags.dev_mode:
        warnings.simplefilter("default")
    else:
        warnings.filterwarnings("default", category=DeprecationWarning, module=r"__main__\Z")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.filterwarnings("ignore", category=category, append=True)
        warnings.filterwarnings("ignore", category=ResourceWarning, append=True)
    process_options = getattr(warnings, "_processoptions", None)
    if process_options is not None:
        process_options(sys.warnoptions)


@contextmanager
def production_warnings() -> Iterator[None]:
    """Within the block, warnings are filtered as a fresh interpreter would filter them."""
    with warnings.catch_warnings():
        _install_interpreter_defaults()
        yield
