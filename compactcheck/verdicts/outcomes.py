"""What a result means to whoever asked: a law's test outcome, and the exit of every command.

The one place where a law's verdict, under a required level, becomes a pass, a failure or a
skip of the plugin's test, and where a run, a merge, a replay, a pair check, an audit or a
drift run becomes an exit code. Every front end asks here and renders the answer; none decides
on its own (a test reads them for any decision of their own).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from compactcheck.base.errors import ExitCode
from compactcheck.invariants import Finding
from compactcheck.invariants.levels import LEVELS
from compactcheck.report.model import (
    UNWRITTEN_PREFIX,
    Counterexample,
    InvariantResult,
    Report,
    TargetReport,
    Verdict,
)
from compactcheck.verdicts.counts import is_not_applicable, pair_verdict
from compactcheck.verdicts.levels import level_reached, level_text

Outcome = Literal["passed", "failed", "expected failure", "skipped"]
"""A law's test outcome, as pytest reports it (pass, fail, xfail, skip)."""

ReplayVerdict = Literal[
    "fixed", "still failing", "not reproduced", "not judged", "errored", "skipped"
]  # fmt: skip
"""What replaying one corpus entry showed."""


@dataclass(frozen=True)
class LawOutcome:
    """A law's test outcome and the one line that says why (empty for a pass)."""

    outcome: Outcome
    reason: str = ""
    # The witness to show with it: a broken law's counterexample.
    example: Counterexample | None = None


def above_required(result: InvariantResult, required: int | None) -> bool:
    """Whether ``result``'s law lies above the required level (so it is reported, not required)."""
    return required is not None and result.level > required


STRICT_REVIEW = "--strict-review"


def law_outcome(
    result: InvariantResult,
    required: int | None = None,
    option: str = "--require-level",
    strict_review: bool = False,
    strict_option: str = STRICT_REVIEW,
) -> LawOutcome:
    """A law's result as a test outcome, under ``required`` (given as ``option``) when given.

    A law that held beside items for review (the verdict review) passes, its items listed for
    a reader; with ``strict_review`` (given as ``strict_option``) it fails as a violation does,
    until a judge settles the items.

    A violation fails, or is an expected failure above the required level; an errored target
    fails. A law that was not judged (skipped, unknown) or is waived is skipped, unless a
    required level covers it: then it fails, as the command line's gate finds its target below
    that level. A law that cannot apply at all (a budget law without a budget) is skipped
    whatever the level: it promises nothing either way.
    """
    above = above_required(result, required)
    because = result.because or ""
    if result.verdict == "violation":
        example = result.counterexample
        if above:
            reason = f"level {result.level} law, above {option} {required}: {because}"
            return LawOutcome("expected failure", reason, example)
        return LawOutcome("failed", because, example)
    if result.verdict == "errored":
        return LawOutcome("failed", f"errored: {because}")
    if result.verdict == "review" and strict_review:
        reason = f"review ({strict_option}: an item for review fails its law): {because}"
        if above:
            return LawOutcome("expected failure", f"level {result.level} law, {reason}")
        return LawOutcome("failed", reason)
    if result.verdict == "review":
        return LawOutcome("passed", f"review: {because}")
    if result.verdict == "pass":
        return LawOutcome("passed")
    if required is not None and not above and not is_not_applicable(result):
        return LawOutcome(
            "failed",
            f"{result.verdict}: {because}; {option} {required} requires this "
            f"level-{result.level} law to hold",
        )
    return LawOutcome("skipped", f"{result.verdict}: {because}")


def report_exit(report: Report) -> ExitCode:
    """1 on any violation; 3 inconclusive; 0 when every applicable law passed.

    Inconclusive: an errored or unknown verdict remains, or nothing passed at all. A law
    skipped as not applicable (say, a budget law with no declared budget) does not count. A law
    that held beside items for review passed, unless the report was made with --strict-review:
    then it fails the run as a violation does.
    """
    verdicts = {result.verdict for target in report.targets for result in target.results}
    return _exit_of(verdicts, report.strict_review)


def _exit_of(verdicts: set[Verdict], strict_review: bool) -> ExitCode:
    if "violation" in verdicts or (strict_review and "review" in verdicts):
        return ExitCode.FAILED
    held = "pass" in verdicts or "review" in verdicts
    if not held or "errored" in verdicts or "unknown" in verdicts:
        return ExitCode.INCONCLUSIVE
    return ExitCode.OK


@dataclass(frozen=True)
class LevelGate:
    """One target's level against the one required: reached or not, and the line that says so."""

    target: TargetReport
    required: int
    # Whether an item for review holds no level (--strict-review).
    strict_review: bool = False

    @property
    def level(self) -> int:
        """The level the target reaches (with items for review holding none, when strict)."""
        if self.strict_review:
            return level_reached(self.target.results, strict_review=True) or 0
        return self.target.level or 0

    @property
    def reached(self) -> bool:
        """Whether the target reaches the required level."""
        return self.level >= self.required

    def line(self) -> str:
        """For example "ok: mine [messages] reaches level 2 of 3 (...); required 1 (...)"."""
        target = self.target
        reached = level_text(self.level, target.results, target.format)
        return (
            f"{'ok' if self.reached else 'below'}: {target.target} [{target.view}] reaches "
            f"{reached}; required {self.required} ({LEVELS[self.required]})"
        )


def level_gates(report: Report, required: int) -> list[LevelGate]:
    """Each target of the report against the required level."""
    return [LevelGate(target, required, report.strict_review) for target in report.targets]


def run_exit(
    report: Report, required: int | None = None, unwritten: Collection[str] = ()
) -> ExitCode:
    """A run's exit: interrupted; with a required level, 1 if a target is below it, else 0;
    otherwise the report's (``report_exit``). Plus 4 when an output could not be written: a
    corpus entry (the report says so among its targets' errors) or a report file
    (``unwritten``, one line each)."""
    if not report.complete:
        return ExitCode.INTERRUPTED
    if required is not None:
        below = any(not gate.reached for gate in level_gates(report, required))
        code = ExitCode.FAILED if below else ExitCode.OK
    else:
        code = report_exit(report)
    if unwritten or unwritten_entries(report):
        return ExitCode(code | ExitCode.UNWRITTEN)
    return code


def unwritten_entries(report: Report) -> list[str]:
    """The lines of a report that name a corpus entry the run could not write."""
    return [
        error
        for target in report.targets
        for error in target.errors
        if error.startswith(UNWRITTEN_PREFIX)
    ]


def merge_exit(report: Report) -> ExitCode:
    """A merge's exit: a shard that never arrived makes it inconclusive at best."""
    reported = report_exit(report)
    if report.missing_shards() and reported != ExitCode.FAILED:
        return ExitCode.INCONCLUSIVE
    return reported


def replay_exit(verdicts: Collection[ReplayVerdict]) -> ExitCode:
    """A replay as a gate: failed while any entry still fails; inconclusive while any could not
    say "fixed" (errored, skipped, not judged, a flaky one not reproduced); else ok. Nothing to
    replay is ok."""
    if "still failing" in verdicts:
        return ExitCode.FAILED
    return ExitCode.OK if set(verdicts) <= {"fixed"} else ExitCode.INCONCLUSIVE


def prunable(verdict: ReplayVerdict) -> bool:
    """Whether ``replay --prune`` may delete an entry that replayed so: only one shown fixed."""
    return verdict == "fixed"


def pair_exit(findings: Sequence[Finding], strict_review: bool = False) -> ExitCode:
    """A pair check's exit: 1 if a law broke (or, with ``strict_review``, left items for
    review), 0 if one held, else 3 (nothing could break)."""
    verdicts = {pair_verdict(finding) for finding in findings}
    if "violation" in verdicts or (strict_review and "review" in verdicts):
        return ExitCode.FAILED
    return ExitCode.OK if verdicts & {"pass", "review"} else ExitCode.INCONCLUSIVE


def audit_exit(report: Report) -> ExitCode:
    """An audit's exit: a log (or a trace file) without a pair to judge is bad input; else the
    report's."""
    if not any(target.calls for target in report.targets):
        return ExitCode.USAGE
    if any(t.traces is not None and t.traces.pairs == 0 for t in report.targets):
        return ExitCode.USAGE
    return report_exit(report)


def drift_exit(judged: bool, failed: bool) -> ExitCode:
    """A drift run's exit: inconclusive when no round carried a fact to judge."""
    if not judged:
        return ExitCode.INCONCLUSIVE
    return broken_exit(failed)


def broken_exit(broken: bool) -> ExitCode:
    """1 when something the command checks broke (a smoke call, a golden case, a regression)."""
    return ExitCode.FAILED if broken else ExitCode.OK
