"""Re-running each broken law's witness: does it break the law every time, or only by luck?"""

from __future__ import annotations

import contextlib
from functools import partial

from compactcheck.backends.ahead import answered_ahead
from compactcheck.corpus.entry import RerunVerdict
from compactcheck.engine.search import Search
from compactcheck.invariants import Invariant
from compactcheck.report.model import Reproduced
from compactcheck.verdicts.counts import CALL_ANSWERED, every_call_failed


def reproduce_all(search: Search) -> None:
    """Re-run every broken law's witness, law by law, unless the run was cut short by a signal.

    Not the call law's when not one call answered: nothing was judged, there is no witness.
    """
    if search.interrupted:
        return
    judge = search.judge
    tally = judge.tally
    for law in judge.judging:
        if law.id not in judge.failures:
            continue
        if law.id == CALL_ANSWERED and every_call_failed(tally.answered, tally.statuses):
            continue
        for way in judge.ways.get(law.id, {}):
            search.reproductions[law.id, way] = reproduce(search, law, way)


def reproduce(search: Search, law: Invariant, way: str) -> Reproduced:
    """Re-run the shrunk round of one way a few times: does it break the law every time?

    "errored": no re-run answered, so a violation of a law could not be confirmed (the
    call law's own finding is then the failure).
    """
    failure = search.judge.ways[law.id][way]
    entry = {
        "round": failure.outcome.round,
        "input": failure.outcome.input,
        "facts": failure.outcome.facts.model_dump(mode="json") if failure.outcome.facts else {},
    }
    broke = unanswered = 0
    # The three re-runs are independent: their requests go to a harness pipelined. A
    # model is asked again, not replayed, where the run may still send.
    rerun = partial(search.driver.replay, entry)
    model = search.target.model
    with (
        model.afresh() if model is not None else contextlib.nullcontext(),
        answered_ahead(search.target.backend, [rerun] * 3),
    ):
        outcomes = [rerun() for _ in range(3)]
    for outcome in outcomes:
        judged = search.judge.finding(outcome, law)
        if judged is None:
            unanswered += 1
        elif not judged.holds:
            broke += 1
    verdict: RerunVerdict = (
        "deterministic" if broke == 3 else "errored" if unanswered == 3 else "flaky"
    )
    # The entry keeps it: a replay must know a flaky finding, which may pass by luck.
    search.witnesses.note_reproduced(law.id, way, verdict)
    return verdict
