"""Slugs, stable scenario ids and tag syntax."""

from __future__ import annotations

import re

_TAG = re.compile(r"@[^\s@#]+")


def slugify(title: str) -> str:
    """Turn a title into a slug: lowercase, non-alphanumeric runs become ``-``.

    Letters and digits of any script count as alphanumeric, so ``Überblick`` gives
    ``überblick``. The result never starts or ends with ``-`` and may be empty.

    Args:
        title: A requirement or scenario title.

    Returns:
        The slug.

    """
    out: list[str] = []
    dash = False
    for char in title.lower():
        if char.isalnum():
            if dash and out:
                out.append("-")
            out.append(char)
            dash = False
        else:
            dash = True
    return "".join(out)


def scenario_id(requirement_slug: str, scenario_slug: str) -> str:
    """Return the stable id of a scenario, ``<requirement-slug>.<scenario-slug>``."""
    return f"{requirement_slug}.{scenario_slug}"


def is_valid_tag(tag: str) -> bool:
    """Tell whether ``tag`` is one Gherkin tag: ``@`` then no whitespace, ``@`` or ``#``."""
    return _TAG.fullmatch(tag) is not None
