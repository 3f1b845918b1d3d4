"""A target run's counts and witnesses as the report's verdicts, law by law."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import JsonValue

from compactcheck.base.selection import Selection
from compactcheck.engine.judge import Judge
from compactcheck.engine.search import Search
from compactcheck.engine.tally import Failure
from compactcheck.invariants import Invariant
from compactcheck.invariants.inference import INFERABLE
from compactcheck.invariants.laws.messages.content import fact_rulings
from compactcheck.invariants.levels import level_of
from compactcheck.observed.repair.hint import fix_hint
from compactcheck.report.model import (
    CALL_STATUSES,
    COVERAGE_PREFIX,
    Counterexample,
    InvariantResult,
    ModelCalls,
    Reproduced,
    RuledFact,
    TargetReport,
)
from compactcheck.verdicts.counts import overlaid, run_result, top_failures
from compactcheck.verdicts.levels import level_reached

if TYPE_CHECKING:
    from compactcheck.harness.outcome import RoundOutcome
    from compactcheck.models import MeteredModel

# The laws whose counterexamples show what the compaction did to each fact.
RULED_LAWS = frozenset(
    {"goal_preserved", "constraints_preserved", "constraints_not_weakened",
     "no_invented_constraints"}
)  # fmt: skip


def law_result(judge: Judge, search: Search, law: Invariant) -> InvariantResult:
    """The verdict of one law, before the target's waiver and its model's refusals over it."""
    examples = [
        _counterexample(judge, search, law, way, failure)
        for way, failure in judge.ways.get(law.id, {}).items()
    ]
    result = run_result(
        law.id,
        law.statement,
        judge.tally.counts(law.id),
        judge.tally.calls(),
        counterexample=examples[0] if examples else None,
        applicable=judge.applies(law),
        min_exercised=judge.config.min_exercised,
        cap=judge.config.example_cap,
        review=judge.reviewed(law.id),
    )
    update: dict[str, object] = {"level": level_of(law.id, bool(law.formats), judge.format)}
    if result.counterexample is not None:
        seen = set(judge.way_counts.get(law.id, {})) | {example.way for example in examples}
        update |= {"other_ways": examples[1:], "ways": len(seen)}
    return result.model_copy(update=update)


def _counterexample(
    judge: Judge, search: Search, law: Invariant, way: str, failure: Failure
) -> Counterexample:
    """A law's witness of one way, with its corpus entry, re-runs, rulings and repair."""
    corpus_file = str(search.witnesses.paths.get((law.id, way), "")) or None
    reproduced = search.reproductions.get((law.id, way), "not_checked")
    counterexample = witness_of(failure, corpus_file, reproduced)
    update: dict[str, object] = {"way": way, "failed": judge.way_counts[law.id][way]}
    rulings = ruled_facts(law, failure.outcome)
    if rulings:
        update["rulings"] = rulings
    if judge.view == "messages":
        selection = Selection(judge.config.include, judge.config.exclude)
        update["fix"] = fix_hint(failure.outcome, judge.format, selection)
    return counterexample.model_copy(update=update)


def ruled_facts(law: Invariant, outcome: RoundOutcome) -> list[RuledFact]:
    """The rulings on the facts of a messages counterexample of a law that reads facts."""
    facts = outcome.facts
    if law.id not in RULED_LAWS or law.view != "messages" or facts is None:
        return []
    if facts.reading != "tokens" or not outcome.answered:
        return []
    return [
        RuledFact(
            fact=made.fact,
            kind=made.kind,
            ruling=made.ruling,
            sentence=made.sentence,
            certainty=made.certainty,
            reason=made.reason,
        )
        for made in fact_rulings(tuple(outcome.before), tuple(outcome.after), facts)
    ]


def witness_of(failure: Failure, corpus_file: str | None, reproduced: Reproduced) -> Counterexample:
    """A law's witness as the report shows it."""
    violation = failure.finding.violations[0]
    diff: dict[str, JsonValue] | None = violation.diff
    return Counterexample(
        round=failure.outcome.round,
        because=violation.because,
        witness=list(violation.witness),
        diff=diff,
        input=failure.outcome.input,
        output=failure.outcome.output,
        history_size=failure.size,
        corpus_file=corpus_file,
        input_problems=list(failure.outcome.input_problems),
        reproduced=reproduced,
    )


def model_calls(search: Search) -> ModelCalls | None:
    """What the target's model slot did, or None when it was run without one."""
    model = search.target.model
    return None if model is None else slot_calls(model)


def slot_calls(model: MeteredModel) -> ModelCalls:
    """What one metered model did, as the report says it."""
    meter, ledger = model.meter, model.ledger
    return ModelCalls(
        model=model.name,
        made=meter.made,
        replayed=meter.replayed,
        recorded=model.recorded,
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


def _coverage_lines(judge: Judge, short: list[str]) -> list[str]:
    """Why laws were exercised too rarely to be judged, and what would help."""
    tally, config = judge.tally, judge.config
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


def target_report(judge: Judge, search: Search, started: float) -> TargetReport:
    """What one target on one view came to: its laws' verdicts, its calls, its level."""
    target, config, interrupted = search.target, judge.config, search.interrupted
    errors = ["interrupted: the counts cover the histories run so far"] if interrupted else []
    tally = judge.tally
    judged = tally.answered and not interrupted
    if judged and tally.rarely_compacted():
        errors.append(tally.vacuity())
    short = [law.id for law in judge.short_of_coverage() if judged]
    if short and not tally.rarely_compacted():
        errors.extend(_coverage_lines(judge, short))
    calls = {status: tally.statuses[status] for status in CALL_STATUSES if tally.statuses[status]}
    errors.extend(judge.refused_waivers)
    judged_laws = [law_result(judge, search, law) for law in judge.judging]
    model = model_calls(search)
    if model is not None and model.refused:
        errors.append(model.statement())
    if config.model is not None and target.model is None:
        errors.append(
            f"--model {config.model.name}: {target.name} writes no summary with a model, "
            "so the option changed nothing here (docs/how-to/real-models.md names the adapters "
            "that take one)"
        )
    results = [overlaid(r, judge.waivers.get(r.invariant), model) for r in judged_laws]
    results = same_causes(results, {law.id: law.restates for law in judge.judging})
    return TargetReport(
        target=target.name,
        view=judge.view,
        implementation=target.implementation,
        results=results,
        level=level_reached(results),
        errors=errors,
        calls=calls,
        failures=top_failures(tally.failures),
        format=judge.format if judge.view == "messages" else "",
        fidelity=judge.fidelity.report(),
        model_calls=model,
        stderr=target.stderr_tail()[-4000:],
        seconds=round(time.monotonic() - started, 3),
        isolation=target.isolation,
        # Transcripts carry no ground truth: every round's facts were read off its input.
        inferred_facts=list(INFERABLE) if config.transcripts else [],
    )


def same_causes(results: list[InvariantResult], restates: dict[str, str]) -> list[InvariantResult]:
    """The results with each violation linked to the one its law restates (and back) where
    both broke on the same failing round: the same input and the same answer."""
    by_law = {result.invariant: result for result in results}
    links: dict[str, list[str]] = {}
    for result in results:
        kin = by_law.get(restates.get(result.invariant, ""))
        if kin is not None and _same_round(result, kin):
            links.setdefault(result.invariant, []).append(kin.invariant)
            links.setdefault(kin.invariant, []).append(result.invariant)
    linked = []
    for result in results:
        example = result.counterexample
        if example is not None and result.invariant in links:
            example = example.model_copy(update={"same_cause": links[result.invariant]})
            result = result.model_copy(update={"counterexample": example})
        linked.append(result)
    return linked


def _same_round(one: InvariantResult, other: InvariantResult) -> bool:
    """Whether two results are violations found on the same round, input and answer."""
    a, b = one.counterexample, other.counterexample
    if a is None or b is None:
        return False
    both = one.verdict == other.verdict == "violation"
    return both and (a.round, a.input, a.output) == (b.round, b.input, b.output)
