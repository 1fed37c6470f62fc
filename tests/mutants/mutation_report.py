"""Print the kill rate and the survivors of the last ``mutmut run`` (``make mutation``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

STATS = Path("mutants/mutmut-cicd-stats.json")


def main() -> int:
    """Print the figures; exit 1 if fewer than 90% of the tested mutants were killed."""
    subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"], check=True, capture_output=True
    )
    stats = json.loads(STATS.read_text())
    killed = stats["killed"] + stats["timeout"]
    tested = killed + stats["survived"] + stats["suspicious"]
    results = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], check=True, capture_output=True, text=True
    )
    survivors = [line.strip() for line in results.stdout.splitlines() if ": survived" in line]
    print("\n".join(survivors))
    rate = 100.0 * killed / tested if tested else 0.0
    print(
        f"mutmut over reference/: {killed} killed of {tested} tested ({rate:.1f}%), "
        f"{stats['survived']} survived, {stats['no_tests']} not covered, {stats['total']} in all"
    )
    return 0 if rate >= 90.0 else 1


if __name__ == "__main__":
    sys.exit(main())
