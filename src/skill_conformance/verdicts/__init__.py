"""Verdicts: one :class:`Verdict` per scenario, and what is built around it.

- :mod:`.mismatch`: what a step raises when the implementation behaved otherwise;
- :mod:`.ledger`: which phase of which scenario gave which verdict, for a whole run;
- :mod:`.block`: the few lines a failing scenario prints;
- :mod:`.reporting`: the pytest hooks that classify, print and name the scenarios;
- :mod:`.summary`: the one-screen summary at the end of a run;
- :mod:`.results`: the results file of a run (``--skill-conformance-results``);
- :mod:`.expectations`, :mod:`.expectations_apply`, :mod:`.baseline`: known failures.
"""

from __future__ import annotations

from skill_conformance.verdicts.mismatch import Mismatch, expect
from skill_conformance.verdicts.verdict import Verdict

__all__ = ["Mismatch", "Verdict", "expect"]
