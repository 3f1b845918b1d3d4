"""The verdict policy pinned as tables: counts and first failure in, verdict out.

Runs, merges of shards, audits of recorded logs, pair checks and the waivers and refusals laid
over a run all ask ``compactcheck.verdicts.counts``; the last tests hold the rest of the
toolkit to that (no result is built by hand elsewhere) and the engine's modules to their shape.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import compactcheck
from compactcheck.base.call_law import CALL_ANSWERED
from compactcheck.invariants import Finding, Violation
from compactcheck.report.model import Counterexample, InvariantResult, ModelCalls, Verdict
from compactcheck.verdicts.counts import (
    Calls,
    Counts,
    merged_result,
    overlaid,
    pair_verdict,
    recorded_result,
    run_result,
)

LAW = "goal_preserved"
WITNESS = Counterexample(
    round=1, because="the goal is gone", witness=[], input=None, history_size=4
)


def _counts(
    compactions: int, unchanged: int, exercised: int, errored: int = 0, skipped: int = 0
) -> Counts:
    return Counts(
        examples=40,
        exercised=exercised,
        compactions=compactions,
        unchanged=unchanged,
        errored=errored,
        skipped=skipped,
    )


def _run(
    law: str,
    counts: Counts,
    statuses: dict[str, int] | None = None,
    *,
    broken: bool = False,
    applicable: bool = True,
    malformed: int = 0,
) -> InvariantResult:
    return run_result(
        law,
        "a law",
        counts,
        Calls(statuses or {}, "boom", malformed),
        counterexample=WITNESS if broken else None,
        applicable=applicable,
        min_exercised=10,
        cap=200,
    )


# (law, compactions, unchanged, exercised, errored, statuses, broken, applicable) -> verdict,
# and the start of its because.
RUN_TABLE: list[tuple[str, Counts, dict[str, int], bool, bool, Verdict, str]] = [
    (LAW, _counts(30, 10, 25), {}, False, True, "pass", "held on 30 compactions; 25 exercised"),
    (LAW, _counts(30, 10, 5), {}, False, True, "pass", "held on 30 compactions; 5 exercised it ("),
    (LAW, _counts(30, 10, 0), {}, False, True, "unknown", "held on 30 compactions in 40"),
    # Fewer than max(3, 5 %) of the answered calls compacted: no pass, however many exercised.
    (LAW, _counts(2, 60, 2), {}, False, True, "unknown", "inconclusive: "),
    (LAW, _counts(4, 100, 4), {}, False, True, "unknown", "inconclusive: "),
    (LAW, _counts(6, 100, 6), {}, False, True, "pass", "held on 6 compactions"),
    (LAW, _counts(30, 0, 25, errored=3), {}, False, True, "pass", "held on 30 compactions; 25"),
    (LAW, _counts(30, 10, 25), {}, True, True, "violation", "the goal is gone"),
    (LAW, _counts(30, 10, 25), {}, False, False, "skipped", "not applicable: no budget"),
    (LAW, _counts(0, 0, 0, errored=9), {"errored": 9}, False, True, "errored", "every compaction"),
    (LAW, _counts(0, 0, 0), {"errored": 4, "timed out": 4}, False, True, "unknown", "every call t"),
    (LAW, _counts(0, 0, 0), {"skipped": 5}, False, True, "skipped", "the target declined every"),
    (LAW, _counts(0, 0, 0), {"errored": 2, "wrong answers": 2}, False, True, "errored", "not jud"),
    (LAW, _counts(0, 0, 0), {"errored": 2, "skipped": 2}, False, True, "unknown", "no compaction"),
    # The call law passes on any answer, and when not one call answered its failure is no
    # verdict on the target: nothing was judged.
    (CALL_ANSWERED, _counts(0, 50, 50), {}, False, True, "pass", "answered all 50 calls"),
    (CALL_ANSWERED, _counts(0, 0, 0, errored=3), {}, True, True, "errored", "every call failed"),
    (
        CALL_ANSWERED,
        _counts(0, 0, 0, errored=3),
        {"wrong answers": 3},
        True,
        True,
        "violation",
        "the goal",
    ),
    (CALL_ANSWERED, _counts(5, 5, 10, errored=3), {}, True, True, "violation", "the goal is gone"),
]


@pytest.mark.parametrize(
    ("law", "counts", "statuses", "broken", "applicable", "verdict", "because"), RUN_TABLE
)
def test_a_run_turns_counts_into_its_verdict(
    law: str,
    counts: Counts,
    statuses: dict[str, int],
    broken: bool,
    applicable: bool,
    verdict: Verdict,
    because: str,
) -> None:
    result = _run(law, counts, statuses, broken=broken, applicable=applicable)
    assert (result.verdict, (result.because or "")[: len(because)]) == (verdict, because)
    # The counts are the report's, whatever the verdict.
    assert (result.examples, result.exercised, result.compactions) == (
        counts.examples,
        counts.exercised,
        counts.compactions,
    )
    assert (result.counterexample is not None) == (verdict == "violation")


def test_the_call_law_is_not_held_to_calls_on_malformed_input() -> None:
    result = _run(CALL_ANSWERED, _counts(20, 0, 20, errored=2), malformed=2)
    assert result.verdict == "pass"
    assert result.because is not None
    assert result.because.endswith("is not held against it")


def _shard(verdict: Verdict, counts: Counts, because: str = "") -> InvariantResult:
    return InvariantResult(
        invariant=LAW,
        statement="a law",
        verdict=verdict,
        because=because or verdict,
        counterexample=WITNESS if verdict == "violation" else None,
        examples=counts.examples,
        exercised=counts.exercised,
        compactions=counts.compactions,
        unchanged=counts.unchanged,
        errored=counts.errored,
        skipped=counts.skipped,
    )


# Shards' (verdict, counts) -> the merged verdict: what one run over the whole budget says.
MERGE_TABLE: list[tuple[list[tuple[Verdict, Counts]], Verdict, str]] = [
    ([("pass", _counts(30, 0, 20)), ("pass", _counts(30, 0, 20))], "pass", "held on 60"),
    ([("pass", _counts(30, 0, 20)), ("violation", _counts(30, 0, 20))], "violation", "the goal"),
    # Each shard too rare to judge, together enough: the summed counts decide.
    ([("unknown", _counts(2, 10, 2)), ("unknown", _counts(2, 10, 2))], "pass", "held on 4"),
    ([("pass", _counts(3, 0, 3)), ("unknown", _counts(0, 60, 0))], "unknown", "inconclusive: "),
    ([("errored", _counts(0, 0, 0)), ("skipped", _counts(0, 0, 0))], "errored", "errored"),
    ([("skipped", _counts(0, 0, 0)), ("unknown", _counts(0, 0, 0))], "unknown", "unknown"),
]


@pytest.mark.parametrize(("shards", "verdict", "because"), MERGE_TABLE)
def test_a_merge_says_what_one_run_over_the_whole_would(
    shards: list[tuple[Verdict, Counts]], verdict: Verdict, because: str
) -> None:
    results = [_shard(shard_verdict, counts) for shard_verdict, counts in shards]
    smallest = WITNESS if any(r.counterexample for r in results) else None
    merged = merged_result(results, smallest)
    assert (merged.verdict, (merged.because or "")[: len(because)]) == (verdict, because)
    assert merged.examples == sum(counts.examples for _, counts in shards)


def test_a_merge_keeps_not_applicable_only_when_every_shard_said_it() -> None:
    why = "not applicable: no budget was declared (--budget N)"
    both = [_shard("skipped", _counts(9, 0, 0), why), _shard("skipped", _counts(9, 0, 0), why)]
    assert merged_result(both, None).because == why


# An audit's (compactions, exercised, first violation, violations, requires budget) -> verdict.
RECORDED_TABLE: list[tuple[int, int, bool, int, bool, Verdict, str]] = [
    # One compacted pair is enough: a recorded compaction happened, however rare.
    (1, 1, False, 0, False, "pass", "held on 1 compacted pairs; 1 exercised it"),
    (5, 0, False, 0, False, "unknown", "none of the 5 compacted pairs could have broken it"),
    (0, 0, False, 0, False, "unknown", "no pair of the log was a compaction to judge"),
    (5, 0, False, 0, True, "skipped", "not applicable: no pair declared a budget"),
    (5, 3, True, 1, False, "violation", "the goal is gone"),
    (5, 3, True, 3, False, "violation", "the goal is gone (and 2 more pair(s) broke it)"),
]


@pytest.mark.parametrize(
    ("compactions", "exercised", "broken", "violations", "budget", "verdict", "because"),
    RECORDED_TABLE,
)
def test_an_audit_judges_every_recorded_compaction(
    compactions: int,
    exercised: int,
    broken: bool,
    violations: int,
    budget: bool,
    verdict: Verdict,
    because: str,
) -> None:
    result = recorded_result(
        LAW,
        "a law",
        _counts(compactions, 20, exercised),
        first=WITNESS if broken else None,
        violations=violations,
        requires_budget=budget,
    )
    assert (result.verdict, (result.because or "")[: len(because)]) == (verdict, because)


@pytest.mark.parametrize(
    ("finding", "verdict"),
    [
        (Finding(LAW, True), "pass"),
        (Finding(LAW, False), "unknown"),
        (Finding(LAW, True, (Violation(LAW, "gone"),)), "violation"),
    ],
)
def test_a_pair_check_passes_only_what_the_pair_could_break(
    finding: Finding, verdict: Verdict
) -> None:
    assert pair_verdict(finding) == verdict


REFUSING = ModelCalls(model="echo", refused=2, reason="over the cap")


@pytest.mark.parametrize(
    ("verdict", "waived", "model", "after"),
    [
        ("violation", "we summarise", None, "waived"),
        ("pass", "we summarise", None, "pass"),
        ("pass", None, REFUSING, "unknown"),
        ("violation", None, REFUSING, "violation"),
        ("unknown", None, REFUSING, "unknown"),
    ],
)
def test_waivers_and_refusals_are_laid_over_a_verdict(
    verdict: Verdict, waived: str | None, model: ModelCalls | None, after: Verdict
) -> None:
    result = overlaid(_shard(verdict, _counts(30, 0, 20)), waived, model)
    assert (result.verdict, result.waived) == (after, waived)


PACKAGE = Path(compactcheck.__file__).parent


def test_no_result_is_built_outside_the_policy() -> None:
    # A verdict decided by hand somewhere else drifts from the policy (it did, five times).
    building = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "InvariantResult(" in path.read_text(encoding="utf-8")
        and path.relative_to(PACKAGE).parts[0] not in {"invariants", "strategies"}
    )
    assert building == ["report/model.py", "verdicts/counts.py"]
