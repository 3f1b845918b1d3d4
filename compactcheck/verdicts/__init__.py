"""Every decision of what a result means: the verdict counts earn, the level a target reaches,
a law's test outcome under a required level, and each command's exit.

``counts`` turns what the judging of a law saw into its result (runs, merges, audits, pair
checks); ``levels`` says which conformance level results reach; ``outcomes`` says what a result
means to whoever asked (a pytest outcome, an exit code). Front ends (the command line, the
library, the pytest plugin) ask here and render the answer: none decides on its own.
"""

from __future__ import annotations

from compactcheck.verdicts.counts import pair_verdict
from compactcheck.verdicts.levels import level_reached, level_text, target_level_text
from compactcheck.verdicts.outcomes import (
    LawOutcome,
    LevelGate,
    Outcome,
    ReplayVerdict,
    above_required,
    audit_exit,
    broken_exit,
    drift_exit,
    law_outcome,
    level_gates,
    merge_exit,
    pair_exit,
    prunable,
    replay_exit,
    report_exit,
    run_exit,
)

__all__ = [
    "LawOutcome",
    "LevelGate",
    "Outcome",
    "ReplayVerdict",
    "above_required",
    "audit_exit",
    "broken_exit",
    "drift_exit",
    "law_outcome",
    "level_gates",
    "level_reached",
    "level_text",
    "merge_exit",
    "pair_exit",
    "pair_verdict",
    "prunable",
    "replay_exit",
    "report_exit",
    "run_exit",
    "target_level_text",
]
