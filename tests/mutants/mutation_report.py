"""Print the kill rate and the survivors of the last ``mutmut run`` (``make mutation``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

STATS = Path("mutants/mutmut-cicd-stats.json")


def main() -> int:
    """Print the figures; exit 1 if fewer than 90% of the mutants were killed.

    A mutant no test reaches counts as not killed, as does one whose run mutmut did not finish.
    """
    subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"], check=True, capture_output=True
    )
    stats = json.loads(STATS.read_text())
    killed = stats["killed"] + stats["timeout"]
    counted = stats["total"] - stats["skipped"]
    results = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], check=True, capture_output=True, text=True
    )
    survivors = [
        line.strip()
        for line in results.stdout.splitlines()
        if line.rstrip().endswith((": survived", ": no tests", ": suspicious", ": not checked"))
    ]
    print("\n".join(survivors))
    rate = 100.0 * killed / counted if counted else 0.0
    unchecked = counted - killed - stats["survived"] - stats["no_tests"] - stats["suspicious"]
    print(
        f"mutmut over reference/: {killed} killed of {counted} ({rate:.1f}%); not killed: "
        f"{stats['survived']} survived, {stats['no_tests']} reached by no test, "
        f"{stats['suspicious']} suspicious, {unchecked} not checked"
    )
    return 0 if rate >= 90.0 else 1


if __name__ == "__main__":
    sys.exit(main())
