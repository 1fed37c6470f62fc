"""JUnit XML where pytest writes none a CI dashboard can read: a run refused before it began."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from skill_conformance.atomic import write_atomic

__all__ = ["write_usage_error"]


def write_usage_error(config: pytest.Config, message: str) -> None:
    """Write, where ``--junitxml`` asks, one errored test case saying why the run could not start.

    pytest writes no JUnit XML for a run refused while it is configured, and a file left from an
    earlier run would read as this one's result; an empty one reads as a green run.
    """
    target = getattr(config.option, "xmlpath", None)
    if not target:
        return
    suite = ET.Element(
        "testsuite", name="skill-conformance", errors="1", failures="0", skipped="0", tests="1"
    )
    case = ET.SubElement(suite, "testcase", classname="skill-conformance", name="usage error")
    ET.SubElement(case, "error", message=message).text = message
    root = ET.Element("testsuites", name="skill-conformance")
    root.append(suite)
    path = Path(target).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, ET.tostring(root, encoding="utf-8", xml_declaration=True))
    except OSError:  # the usage error is the news; the terminal says it
        pass
