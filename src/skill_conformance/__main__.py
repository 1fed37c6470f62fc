"""``python -m skill_conformance``: the ``skill-conformance`` command."""

from __future__ import annotations

import sys

from skill_conformance.commands.main import main

sys.exit(main())
