"""``python -m skill_conformance``: the ``skill-conformance`` command."""

from __future__ import annotations

import sys

from skill_conformance.cli import main

sys.exit(main())
