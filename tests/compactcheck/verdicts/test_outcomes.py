"""What a result means to whoever asked: a law's test outcome under a required level, and the
exit code of each command, from the one owner (``compactcheck.verdicts.outcomes``)."""

from __future__ import annotations

import pytest

from compactcheck.base.errors import ExitCode
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport, Verdict
from compactcheck.verdicts import (
    audit_exit,
    drift_exit,
    law_outcome,
    level_gates,
    merge_exit,
    replay_exit,
    report_exit,
    run_exit,
)

EXAMPLE = Counterexample(
    round=1, because="the goal is gone", witness=[], input=[], output=[], history_size=3
)


def _result(verdict: Verdict, level: int = 2, because: str = "why") -> InvariantResult:
    return InvariantResult(
        invariant="goal_preserved",
        statement="the goal survives",
        examples=10,
        exercised=5,
        compactions=5,
        unchanged=5,
        errored=0,
        verdict=verdict,
        because=because,
        counterexample=EXAMPLE if verdict == "violation" else None,
        level=level,
    )


def _report(
    *verdicts: Verdict,
    complete: bool = True,
    shards: list[str] | None = None,
    level: int | None = None,
    calls: dict[str, int] | None = None,
) -> Report:
    results = [_result(verdict, level=1) for verdict in verdicts]
    target = TargetReport(
        target="t",
        view="messages",
        results=results,
        level=level,
        calls={"compacted": 5} if calls is None else calls,
    )
    return Report(
        toolkit_version="0",
        seed=0,
        profile="ci",
        max_examples=10,
        rounds=1,
        complete=complete,
        started_at="2026-01-01T00:00:00+00:00",
        targets=[target],
        shards=shards or [],
    )


@pytest.mark.parametrize(
    ("verdict", "required", "outcome"),
    [
        ("pass", None, "passed"),
        ("violation", None, "failed"),
        ("violation", 2, "failed"),
        ("violation", 1, "expected failure"),
        ("errored", None, "failed"),
        ("unknown", None, "skipped"),
        ("unknown", 1, "skipped"),
        ("unknown", 2, "failed"),
        ("skipped", 3, "failed"),
        ("waived", None, "skipped"),
        ("waived", 2, "failed"),
    ],
)
def test_a_law_outcome_follows_its_verdict_and_the_required_level(
    verdict: Verdict, required: int | None, outcome: str
) -> None:
    decided = law_outcome(_result(verdict), required, "--compactcheck-require-level")
    assert decided.outcome == outcome
    if outcome == "expected failure":
        assert decided.reason.startswith("level 2 law, above --compactcheck-require-level 1")
    if verdict == "violation":
        assert decided.example == EXAMPLE
    if outcome == "failed" and verdict in ("unknown", "skipped", "waived"):
        assert "requires this level-2 law to hold" in decided.reason


def test_a_law_that_cannot_apply_is_skipped_whatever_the_level() -> None:
    result = _result("skipped", because="not applicable: no budget was declared (--budget N)")
    assert law_outcome(result, 3).outcome == "skipped"


@pytest.mark.parametrize(
    ("verdicts", "code"),
    [
        (("pass", "pass"), ExitCode.OK),
        (("pass", "violation"), ExitCode.FAILED),
        (("pass", "unknown"), ExitCode.INCONCLUSIVE),
        (("pass", "errored"), ExitCode.INCONCLUSIVE),
        (("skipped",), ExitCode.INCONCLUSIVE),
        (("pass", "waived"), ExitCode.OK),
    ],
)
def test_a_report_exits_by_its_verdicts(verdicts: tuple[Verdict, ...], code: ExitCode) -> None:
    assert report_exit(_report(*verdicts)) == code
    assert run_exit(_report(*verdicts)) == code


def test_an_interrupted_run_exits_as_interrupted_whatever_it_found() -> None:
    assert run_exit(_report("violation", complete=False), 1) == ExitCode.INTERRUPTED


def test_a_required_level_gates_the_run_on_each_target_s_level() -> None:
    report = _report("pass", "violation", level=1)
    assert run_exit(report, 1) == ExitCode.OK
    assert run_exit(report, 2) == ExitCode.FAILED
    [gate] = level_gates(report, 2)
    assert not gate.reached
    assert gate.line().startswith("below: t [messages] reaches level 1 of 3")


def test_a_merge_missing_a_shard_is_inconclusive_at_best() -> None:
    assert merge_exit(_report("pass", shards=["1/2"])) == ExitCode.INCONCLUSIVE
    assert merge_exit(_report("violation", shards=["1/2"])) == ExitCode.FAILED
    assert merge_exit(_report("pass", shards=["1/2", "2/2"])) == ExitCode.OK


def test_a_replay_fails_while_any_entry_still_fails() -> None:
    assert replay_exit([]) == ExitCode.OK
    assert replay_exit(["fixed", "fixed"]) == ExitCode.OK
    assert replay_exit(["fixed", "not reproduced"]) == ExitCode.INCONCLUSIVE
    assert replay_exit(["skipped", "still failing"]) == ExitCode.FAILED


def test_an_audit_of_no_pair_is_bad_input_and_a_drift_without_facts_is_inconclusive() -> None:
    empty = _report("unknown", calls={})
    assert audit_exit(empty) == ExitCode.USAGE
    assert drift_exit(judged=False, failed=False) == ExitCode.INCONCLUSIVE
    assert drift_exit(judged=True, failed=True) == ExitCode.FAILED
