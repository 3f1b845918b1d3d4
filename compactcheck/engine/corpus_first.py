"""A run with a model judges the target's corpus entries first, ahead of anything generated.

Their requests were asked before, so their answers come from the model cache: a recorded
failure is met again before a call is spent on new histories, and one that was shrunk is kept
as it is rather than shrunk again. The first shard of a run does it.

Each entry gives its own law and way (``invariants.ways``) their witness, whatever order the
entries are read in: a round replayed for one entry that also breaks another entry's law and
way is kept for that way only where that way's own entry did not break it again.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING

from compactcheck.base import interrupts
from compactcheck.corpus.replay import recorded_rounds
from compactcheck.engine.witnesses import Slot
from compactcheck.invariants.ways import way_of

if TYPE_CHECKING:
    from compactcheck.engine.search import Search
    from compactcheck.harness import RoundOutcome
    from compactcheck.invariants import Finding, Invariant


def replay_corpus(search: Search) -> None:
    """Judge the target's corpus entries, each as a round of the run, before it explores."""
    started = time.monotonic()
    slot = search.target.model
    # Entries name the model by the spec that loads it (older ones by its own name).
    models = (slot.spec, slot.name) if slot is not None else ()
    home = search.config.home_corpus_dir
    judge = search.judge
    entries = recorded_rounds(home, search.target.name, search.view, judge.format, models)
    slots: set[Slot] = {(entry["invariant"], str(entry.get("way") or "")) for entry in entries}
    # Failures of a law and way whose own entry is among those read: kept for after.
    elsewhere: list[tuple[Invariant, RoundOutcome, Finding]] = []
    found = partial(search.keep_found, pass_index=0, started=started)

    def own(law: Invariant, outcome: RoundOutcome, finding: Finding, *, met: Slot) -> None:
        slot = (law.id, way_of(finding.violations[0]))
        if slot != met and slot in slots:
            elsewhere.append((law, outcome, finding))
        else:
            found(law, outcome, finding)

    for entry in entries:
        interrupts.check()
        if search.config.time_is_up():
            search.cut_short = True
            return
        try:
            [outcome] = search.read_rounds([search.driver.replay(entry)])
        except (KeyError, TypeError, ValueError):
            # An entry that no longer fits the view: `compactcheck replay` says so.
            continue
        met = (entry["invariant"], str(entry.get("way") or ""))
        if entry.get("shrunk") and judge.new_way(*met):
            search.shrunk_already.add(met)
        judge.tally.examples += 1
        search.judge_rounds([outcome], 0, started, partial(own, met=met))
        if judge.new_way(*met):
            search.shrunk_already.discard(met)
    for law, outcome, finding in elsewhere:
        if judge.new_way(law.id, way_of(finding.violations[0])):
            found(law, outcome, finding)
