"""A target run's counts and failures as the report's verdicts, law by law."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from compactcheck.engine.crash import CALL_ANSWERED
from compactcheck.engine.verdicts import WRONG_ANSWERS, quiet_verdict, top_failures
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import Invariant
from compactcheck.invariants.inference import INFERABLE
from compactcheck.invariants.laws.messages.content import fact_rulings
from compactcheck.invariants.levels import level_of
from compactcheck.report.levels import level_reached, overlaid
from compactcheck.report.model import (
    CALL_STATUSES,
    COVERAGE_PREFIX,
    Counterexample,
    InvariantResult,
    ModelCalls,
    RuledFact,
    TargetReport,
)

if TYPE_CHECKING:
    from compactcheck.engine.target_run import TargetRun
    from compactcheck.models import MeteredModel


def law_result(run: TargetRun, law: Invariant) -> InvariantResult:
    """The verdict of one law, before the target's waiver and its model's refusals over it."""
    return _law_result(run, law).model_copy(
        update={"level": level_of(law.id, bool(law.formats), run.format)}
    )


def model_calls(run: TargetRun) -> ModelCalls | None:
    """What the target's model slot did, or None when it was run without one."""
    model = run.target.model
    return None if model is None else slot_calls(model)


def slot_calls(model: MeteredModel) -> ModelCalls:
    """What one metered model did, as the report says it."""
    meter, ledger = model.meter, model.ledger
    return ModelCalls(
        model=model.name,
        made=meter.made,
        replayed=meter.replayed,
        cap=ledger.max_calls,
        tokens=meter.tokens,
        tokens_estimated=meter.estimated,
        token_cap=ledger.max_tokens,
        refused=meter.refused,
        offline=model.offline,
        reason=meter.reason,
        reruns=meter.reruns,
        ledger=ledger.path.stem if ledger.path is not None else "",
    )


# The laws whose counterexamples show what the compaction did to each fact.
RULED_LAWS = frozenset(
    {"goal_preserved", "constraints_preserved", "constraints_not_weakened",
     "no_invented_constraints"}
)  # fmt: skip


def ruled_facts(law: Invariant, outcome: RoundOutcome) -> list[RuledFact]:
    """The rulings on the facts of a messages counterexample of a law that reads facts."""
    facts = outcome.facts
    if law.id not in RULED_LAWS or law.view != "messages" or facts is None:
        return []
    if facts.reading != "tokens" or not outcome.answered:
        return []
    return [
        RuledFact(fact=made.fact, kind=made.kind, ruling=made.ruling, sentence=made.sentence)
        for made in fact_rulings(tuple(outcome.before), tuple(outcome.after), facts)
    ]


def _law_result(run: TargetRun, law: Invariant) -> InvariantResult:
    tally = run.tally
    common: dict[str, Any] = {
        "invariant": law.id,
        "statement": law.statement,
        "examples": tally.examples,
        "exercised": tally.exercised[law.id],
        "compactions": tally.compactions,
        "unchanged": tally.statuses["unchanged"],
        "errored": tally.statuses["errored"],
        "skipped": tally.declined,
    }
    failure = run.failures.get(law.id)
    # Calls that answered what the view does not take (a forgotten return) are the call law's
    # violation even when no call answered well.
    unanswered = tally.answered == 0 and not tally.statuses[WRONG_ANSWERS]
    if failure is not None and law.id == CALL_ANSWERED and unanswered:
        # Not one call answered: nothing was judged, and the run says so (exit 3); the
        # corpus keeps the failing call all the same.
        return InvariantResult(
            **common,
            verdict="errored",
            because=f"every call failed: {failure.finding.violations[0].because}",
        )
    if failure is not None:
        violation = failure.finding.violations[0]
        diff: dict[str, JsonValue] | None = violation.diff
        counterexample = Counterexample(
            round=failure.outcome.round,
            because=violation.because,
            witness=list(violation.witness),
            diff=diff,
            input=failure.outcome.input,
            output=failure.outcome.output,
            history_size=failure.size,
            corpus_file=str(run.corpus.get(law.id, "")) or None,
            input_problems=list(failure.outcome.input_problems),
            reproduced="not_checked" if run.interrupted else run.reproduced(law),
            rulings=ruled_facts(law, failure.outcome),
        )
        return InvariantResult(
            **common,
            verdict="violation",
            because=violation.because,
            counterexample=counterexample,
        )
    if not run.applies(law):
        return InvariantResult(
            **common,
            verdict="skipped",
            because="not applicable: no budget was declared (--budget N)",
        )
    verdict, because = quiet_verdict(law, tally, run.config.min_exercised, run.config.example_cap)
    return InvariantResult(**common, verdict=verdict, because=because)


def _coverage_lines(run: TargetRun, short: list[str]) -> list[str]:
    """Why laws were exercised too rarely to be judged, and what would help."""
    tally, config = run.tally, run.config
    # Pieces of recorded transcripts hold only what the recordings hold: a law that none of
    # them exercised (no thinking blocks, no fact to infer) stays so however many are drawn.
    never = [law for law in short if config.transcripts and tally.exercised[law] == 0]
    rare = [law for law in short if law not in never]
    lines = []
    if never:
        lines.append(
            f"{COVERAGE_PREFIX}{', '.join(never)} could not be exercised by the given "
            f"transcripts (not once in {tally.examples} pieces of them: they hold nothing these "
            "laws judge, such as tool calls, thinking blocks or facts to infer), and more "
            "examples cannot change that: add a transcript that holds it, or leave them out with "
            f"--exclude-invariants {','.join(never)}"
        )
    if rare:
        lines.append(
            f"{COVERAGE_PREFIX}{', '.join(rare)} exercised fewer than "
            f"{config.min_exercised} times in {tally.examples} histories (the cap "
            f"is {config.example_cap}; raise it with --max-total-examples)"
        )
    return lines


def target_report(run: TargetRun, started: float) -> TargetReport:
    errors = ["interrupted: the counts cover the histories run so far"] if run.interrupted else []
    tally = run.tally
    judged = tally.answered and not run.interrupted
    if judged and tally.rarely_compacted():
        errors.append(tally.vacuity())
    short = [law.id for law in run.short_of_coverage() if judged]
    if short and not tally.rarely_compacted():
        errors.extend(_coverage_lines(run, short))
    calls = {status: tally.statuses[status] for status in CALL_STATUSES if tally.statuses[status]}
    errors.extend(run.refused_waivers)
    # Judged before the model's counts are read: a violation's re-runs may ask it again.
    judged_laws = [law_result(run, law) for law in run.judging]
    model = model_calls(run)
    if model is not None and model.refused:
        errors.append(model.statement())
    if run.config.model is not None and run.target.model is None:
        errors.append(
            f"--model {run.config.model.name}: {run.target.name} writes no summary with a model, "
            "so the option changed nothing here (the README's section on summarisers with a "
            "real model names the adapters that take one)"
        )
    results = [overlaid(result, run.waivers.get(result.invariant), model) for result in judged_laws]
    return TargetReport(
        target=run.target.name,
        view=run.view,
        implementation=run.target.implementation,
        results=results,
        level=level_reached(results),
        errors=errors,
        calls=calls,
        failures=top_failures(tally.failures),
        format=run.format if run.view == "messages" else "",
        fidelity=run.fidelity.report(),
        model_calls=model,
        stderr=run.target.stderr_tail()[-4000:],
        seconds=round(time.monotonic() - started, 3),
        isolation=run.target.isolation,
        # Transcripts carry no ground truth: every round's facts were read off its input.
        inferred_facts=list(INFERABLE) if run.config.transcripts else [],
    )
