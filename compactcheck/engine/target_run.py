"""The runner: fuzz one target on one view, judge every law, shrink each broken law's witness."""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from hypothesis import HealthCheck, Phase, given, seed, settings, target
from hypothesis.database import ExampleDatabase
from hypothesis.errors import HypothesisException, HypothesisWarning
from hypothesis.strategies import SearchStrategy
from pydantic import JsonValue

from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR, CorpusEntry, write_entry
from compactcheck.engine import interrupts
from compactcheck.engine.crash import CALL_ANSWERED, call_finding, call_law
from compactcheck.engine.draws import seed_only_draws
from compactcheck.errors import CompactcheckError
from compactcheck.harness import Case, Driver, RoundOutcome, cases
from compactcheck.report.model import (
    CALL_STATUSES,
    COVERAGE_PREFIX,
    Counterexample,
    InvariantResult,
    Reproduced,
    TargetReport,
    Verdict,
    answered_verdict,
    rarely_compacted,
    vacuity_line,
)
from compactcheck.scale.database import profile_database
from compactcheck.targets.registry import Target
from invariants import Budget, Finding, Invariant, View, select

Profile = Literal["dev", "ci", "campaign"]
Progress = Callable[[str], None]
# Where the shards run on one machine keep their corpora until they are merged into the main one.
SHARD_CORPORA = ".shards"
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(CompactcheckError):
    """A shard named in a form other than i/M with 1 <= i <= M."""


@dataclass(frozen=True, order=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``: its own slice of the budget and its own seed."""

    index: int = 1
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ShardError(
                f"shard {self.index}/{self.count}: expected i/M with 1 <= i <= M, e.g. 1/4"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` as a shard; ShardError for anything else."""
        match = _SHARD.match(text)
        if match is None:
            raise ShardError(f"shard {text!r}: expected i/M, e.g. 1/4")
        return cls(int(match[1]), int(match[2]))

    def split(self, parts: int) -> list[Shard]:
        """This shard cut into ``parts`` shards of the finer global numbering.

        Shard i/M cut in K is shards (i-1)K+1 .. iK of MK, so a machine running 1/2 with two
        workers does exactly what two machines running 1/4 and 2/4 would.
        """
        first = (self.index - 1) * parts
        return [Shard(first + k, self.count * parts) for k in range(1, parts + 1)]

    def seed(self, base: int) -> int:
        """The seed of this shard: the run seed itself when there is one shard."""
        if self.count == 1:
            return base
        # A hash, not base + index: neighbouring run seeds must not share shard streams.
        digest = hashlib.sha256(f"compactcheck-shard:{base}:{self.index}/{self.count}".encode())
        return int.from_bytes(digest.digest()[:4], "big")

    def budget(self, total: int) -> int:
        """This shard's share of ``total`` examples; the shares add up to ``total``."""
        share, extra = divmod(total, self.count)
        return share + (1 if self.index <= extra else 0)

    @property
    def label(self) -> str:
        """``"2/4"``."""
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class RunConfig:
    """How much to fuzz, with which seed, where to keep what is found."""

    seed: int
    max_examples: int = 100
    rounds: int = 3
    profile: Profile = "dev"
    include: Sequence[str] | None = None
    exclude: Sequence[str] = ()
    corpus_dir: Path = DEFAULT_CORPUS_DIR
    budget: Budget | None = None
    # Off: report the first failing history as found, unshrunk (faster; --no-shrink).
    shrink: bool = True
    toolkit_version: str = "0+unknown"
    database: ExampleDatabase | None = None
    # A URL rather than a client, so that a config crosses into worker processes.
    redis_url: str | None = None
    redis_read_only: bool = False
    shard: Shard = Shard()
    # Where the local Hypothesis database lives; by default beside the corpus folder.
    database_dir: Path | None = None
    # time.time() after which exploring and shrinking stop early (fuzz --max-time).
    stop_at: float | None = None
    # Stop exploring once every selected law is broken (benchmarks, detection tests).
    stop_when_all_broken: bool = False
    # The seed the user gave, when ``seed`` is a shard's own (set by ``for_shard``).
    run_seed: int | None = None
    # Whether the user named the seed: then a run replays it exactly, and saved failures in
    # the example database are not fed back in (they would change the shrunk witnesses).
    seed_given: bool = False
    # Named malformed-input scenarios the user asked for (views.MALFORMED); none by default.
    malformed: tuple[str, ...] = ()
    # Coverage: keep exploring past max_examples, up to max_total_examples, until every
    # applicable law was exercised min_exercised times and the target compacted often enough.
    min_exercised: int = 5
    max_total_examples: int | None = None

    def hypothesis_database(self) -> ExampleDatabase | None:
        """The example database of the profile: local in dev, local plus Redis in campaign."""
        if self.database is not None:
            return self.database
        return profile_database(
            self.profile,
            self.database_dir or self.corpus_dir.parent / "hypothesis",
            self.redis_url,
            read_only=self.redis_read_only,
        )

    def for_shard(self, shard: Shard) -> RunConfig:
        """The config of one shard of this run: its seed and its share of the budget."""
        return replace(
            self,
            shard=shard,
            seed=shard.seed(self.seed),
            max_examples=max(1, shard.budget(self.max_examples)),
            run_seed=self.seed if self.run_seed is None else self.run_seed,
        )

    def for_piece(self, shard: Shard) -> RunConfig:
        """One shard run beside others on this machine, its corpus kept apart until merged.

        Shards of one target would otherwise overwrite each other's corpus entries (the file
        name is a function of target, view and invariant); ``gather_corpora`` merges them. The
        Hypothesis database stays the shared one.
        """
        database_dir = self.database_dir or self.corpus_dir.parent / "hypothesis"
        corpus = self.corpus_dir / SHARD_CORPORA / f"{shard.index}-of-{shard.count}"
        return replace(self.for_shard(shard), corpus_dir=corpus, database_dir=database_dir)

    @property
    def example_cap(self) -> int:
        """The most histories coverage-directed exploring may run (default 5 x max_examples)."""
        cap = self.max_total_examples or 5 * self.max_examples
        return max(cap, self.max_examples)

    def time_is_up(self) -> bool:
        """Whether a time box was set and is spent."""
        return self.stop_at is not None and time.time() >= self.stop_at


@dataclass
class _Failure:
    outcome: RoundOutcome
    finding: Finding
    size: int


@dataclass(frozen=True)
class Detection:
    """When exploring first saw a law broken: after how many histories and seconds."""

    examples: int
    seconds: float
    size: int


@dataclass
class _Tally:
    examples: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    exercised: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    # Calls that errored on input that broke a provider rule (not a finding; see crash.py).
    malformed_errors: int = 0

    @property
    def compactions(self) -> int:
        """Calls whose answer changed the history."""
        return self.statuses["compacted"]

    @property
    def answered(self) -> int:
        """Calls that got a valid answer, changed or not."""
        return self.statuses["compacted"] + self.statuses["unchanged"]

    def rarely_compacted(self) -> bool:
        """Whether the target changed the history in none or almost none of its answered calls."""
        return rarely_compacted(self.compactions, self.answered)


class InterruptedRunError(KeyboardInterrupt):
    """The run was interrupted; ``report`` holds what this target had found so far."""

    def __init__(self, report: TargetReport) -> None:
        super().__init__("interrupted")
        self.report = report


class _BrokenLawError(Exception):
    """Raised inside a hunt so that Hypothesis shrinks the history that broke a law."""


class _StopExploringError(Exception):
    """Raised inside exploring to end the Hypothesis run: time is up, or every law is broken."""


def _history_size(outcome: RoundOutcome) -> int:
    data = outcome.input
    if isinstance(data, dict):
        for key in ("messages", "events", "log"):
            if isinstance(data.get(key), list):
                return len(data[key])
    return 0


def _open_calls(case: Case) -> int:
    batch = case.scenario.pending_batch
    return len(getattr(batch, "calls", ())) if batch is not None else 0


def _sized(value: Any) -> int:
    if isinstance(value, dict):
        for key in ("messages", "events", "log"):
            if isinstance(value.get(key), list):
                return len(value[key])
        tail = value.get("rawTail")
        return (len(tail) + 1) if isinstance(tail, list) else 0
    return 0


@contextlib.contextmanager
def _quiet_reprs() -> Iterator[None]:
    """Silence Hypothesis's warning about formatting a failing case of tens of kilobytes."""
    # It formats the case for its own report, which is never shown: our witness is.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        yield


def _finding(outcome: RoundOutcome, law: Invariant) -> Finding | None:
    """One law's finding on one round; None where the law does not apply to it."""
    if law.id == CALL_ANSWERED:
        return call_finding(outcome)
    if not outcome.judges(law):
        return None
    return outcome.judge(law)


def _pass_seed(base: int, index: int) -> int:
    """The seed of coverage pass ``index`` (the run seed itself for the first)."""
    if index == 0:
        return base
    digest = hashlib.sha256(f"compactcheck-coverage:{base}:{index}".encode())
    return int.from_bytes(digest.digest()[:4], "big")


def _steer(case: Case, outcomes: Sequence[RoundOutcome]) -> None:
    """Point Hypothesis's targeted search at the hard cases: open, chained, aggressive."""
    judged = [outcome for outcome in outcomes if outcome.judged]
    # No "history length" score: the generator draws long histories itself, and climbing toward
    # length only repeated one history with more routine reads.
    # Scored only where there is something to score: a label whose every score is 0 makes the
    # target phase climb from the plainest history, which the generator now never leaves open.
    if open_calls := _open_calls(case):
        target(float(open_calls), label="open tool calls at the cut")
    target(float(len(judged)), label="compaction rounds")
    ratios = [
        1.0 - _sized(o.output) / size
        for o in judged
        if (size := _history_size(o)) > 0 and _sized(o.output) > 0
    ]
    # The most aggressive compaction of the case: the one most likely to drop what it must keep.
    target(max(ratios, default=0.0), label="compaction ratio")


def _settings(config: RunConfig, phases: Sequence[Phase], key: str) -> settings:
    return settings(
        max_examples=config.max_examples,
        deadline=None,
        database=config.hypothesis_database() if Phase.shrink in phases else None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )


def _digest(function: Any, key: str) -> None:
    # Each (target, view, law) gets its own database key, not one shared by every hunt.
    function._hypothesis_internal_add_digest = key.encode()


class TargetRun:
    """One target on one view: explore once for every law, then shrink each broken law."""

    def __init__(self, target: Target, view: View, config: RunConfig, progress: Progress | None):
        self.target = target
        self.view = view
        self.config = config
        self.progress = progress or (lambda _: None)
        self.driver: Driver = target.drivers[view]()
        known = {law.id for law in select(view)}
        # Ids of other views were checked by the caller; each view runs the ones it has.
        include = None if config.include is None else [i for i in config.include if i in known]
        exclude = [i for i in config.exclude if i in known]
        self.laws: list[Invariant] = select(view, include, exclude)
        # The call law first: a crash is a finding whatever laws were selected, unless the
        # user excluded it by name.
        calls = [call_law(view)] if CALL_ANSWERED not in config.exclude else []
        self.judging: list[Invariant] = [*calls, *self.laws]
        self.passes = 0
        self.tally = _Tally()
        self.failures: dict[str, _Failure] = {}
        # The coverage pass in which each law first broke.
        self.found_in: dict[str, int] = {}
        self.detections: dict[str, Detection] = {}
        self.corpus: dict[str, Path] = {}
        self.interrupted = False
        # Set when the time box cut exploring or shrinking short.
        self.cut_short = False

    def entry(
        self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool
    ) -> CorpusEntry:
        """The crash corpus entry of one failing round."""
        assert outcome.facts is not None
        return CorpusEntry(
            target=self.target.name,
            view=self.view,
            invariant=law.id,
            seed=self.config.seed,
            toolkit_version=self.config.toolkit_version,
            round=outcome.round,
            input=outcome.input,
            facts=outcome.facts.model_dump(mode="json"),
            because=finding.violations[0].because,
            output=outcome.output,
            shrunk=shrunk,
        )

    def record(self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool) -> Path:
        """Write a failing round to the crash corpus (a campaign names its files otherwise)."""
        path = write_entry(self.config.corpus_dir, self.entry(law, outcome, finding, shrunk))
        self.corpus[law.id] = path
        return path

    def _cases(self) -> SearchStrategy[Case]:
        return cases(self.config.rounds, self.view, self.config.malformed)

    def explore(self, pass_index: int = 0, budget: int | None = None) -> None:
        """Run one pass of the budget, judging every law on every round it applies to."""
        tally, laws, config = self.tally, self.laws, self.config
        started = time.monotonic()
        pass_config = replace(config, max_examples=budget or config.max_examples)

        @_settings(pass_config, (Phase.explicit, Phase.generate, Phase.target), "explore")
        @seed(_pass_seed(config.seed, pass_index))
        @given(self._cases())
        def explore(case: Case) -> None:
            # A Ctrl-C heard meanwhile is raised here, where Hypothesis unwinds cleanly.
            interrupts.check()
            # At the top, before counting: Hypothesis calls the body again to replay the stop.
            if config.time_is_up():
                self.cut_short = True
                raise _StopExploringError
            if config.stop_when_all_broken and laws and self.all_broken():
                raise _StopExploringError
            tally.examples += 1
            outcomes = self.driver.run(case)
            _steer(case, outcomes)
            for outcome in outcomes:
                tally.statuses[outcome.status] += 1
                if outcome.timed_out:
                    tally.statuses["timed out"] += 1
                if outcome.reason:
                    tally.reasons[outcome.reason] += 1
                if outcome.status == "errored" and outcome.input_problems:
                    tally.malformed_errors += 1
                for law in self.judging:
                    finding = _finding(outcome, law)
                    if finding is None:
                        continue
                    tally.exercised[law.id] += finding.exercised
                    if not finding.holds and law.id not in self.failures:
                        size = _history_size(outcome)
                        self.failures[law.id] = _Failure(outcome, finding, size)
                        self.found_in[law.id] = pass_index
                        self.detections[law.id] = Detection(
                            tally.examples, time.monotonic() - started, size
                        )
                        # On disk before anything else can go wrong.
                        self.record(law, outcome, finding, shrunk=False)
                        self.progress(f"{self.target.name}: {law.id} broken, shrinking later")

        _digest(explore, f"explore:{self.target.name}:{self.view}")
        with contextlib.suppress(_StopExploringError), _quiet_reprs():
            explore()
        self.passes += 1

    def all_broken(self) -> bool:
        """Whether every selected law of the catalogue is broken (the call law aside)."""
        return all(law.id in self.failures for law in self.laws)

    def applies(self, law: Invariant) -> bool:
        """Whether a law applies at all: a budget law needs a declared budget."""
        declared = getattr(self.driver, "budget", None) or self.config.budget
        return not law.requires_budget or declared is not None

    def short_of_coverage(self) -> list[Invariant]:
        """Applicable laws, not yet broken, exercised fewer than ``min_exercised`` times."""
        return [
            law
            for law in self.laws
            if law.id not in self.failures
            and self.applies(law)
            and self.tally.exercised[law.id] < self.config.min_exercised
        ]

    def explore_for_coverage(self) -> None:
        """Explore past the budget, up to the cap, while a law or compaction is short."""
        tally, config = self.tally, self.config
        while (
            tally.answered > 0
            and (self.short_of_coverage() or tally.rarely_compacted())
            and tally.examples < config.example_cap
            and not config.time_is_up()
            and not (config.stop_when_all_broken and self.all_broken())
        ):
            budget = min(config.max_examples, config.example_cap - tally.examples)
            self.progress(f"{self.target.name} [{self.view}]: {budget} more histories for coverage")
            self.explore(self.passes, budget)

    def shrink(self, law: Invariant) -> None:
        """Search again for this law alone, letting Hypothesis shrink the history."""
        found: list[_Failure] = []

        # A named seed is a replay: saved failures are not fed back in (they would change the
        # witnesses); without one, the database's failures come first.
        phases: tuple[Phase, ...] = (Phase.explicit, Phase.generate, Phase.shrink)
        if not self.config.seed_given:
            phases = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
        # The hunt starts from the pass that found the failure, so that it finds it again.
        found_in = self.found_in.get(law.id, 0)

        # Settings outside seed: @seed alone would switch the example database off.
        @_settings(self.config, phases, "hunt")
        @seed(_pass_seed(self.config.seed, found_in))
        @given(self._cases())
        def hunt(case: Case) -> None:
            interrupts.check()
            if self.config.time_is_up():
                # Passing from here on ends shrinking at the smallest failure found so far.
                self.cut_short = True
                return
            for outcome in self.driver.run(case):
                finding = _finding(outcome, law)
                if finding is not None and not finding.holds:
                    found.append(_Failure(outcome, finding, _history_size(outcome)))
                    raise _BrokenLawError

        _digest(hunt, f"hunt:{self.target.name}:{self.view}:{law.id}")
        try:
            with _quiet_reprs():
                hunt()
        except _BrokenLawError:
            pass
        except HypothesisException as error:
            if not self.cut_short:
                self.progress(f"{self.target.name}: shrinking {law.id} stopped: {error}")
        if found:
            # Hypothesis replays the minimal example last; a cut-short hunt ends at its smallest.
            failure = min(found, key=lambda f: f.size) if self.cut_short else found[-1]
            self.failures[law.id] = failure
            self.record(law, failure.outcome, failure.finding, shrunk=not self.cut_short)

    def reproduced(self, law: Invariant) -> Reproduced:
        """Re-run the shrunk round a few times: does it break the law every time?

        "errored": no re-run answered, so a violation of a law could not be confirmed (the
        call law's own finding is then the failure).
        """
        failure = self.failures[law.id]
        entry = {
            "round": failure.outcome.round,
            "input": failure.outcome.input,
            "facts": failure.outcome.facts.model_dump(mode="json") if failure.outcome.facts else {},
        }
        broke = unanswered = 0
        for _ in range(3):
            outcome = self.driver.replay(entry)
            finding = _finding(outcome, law)
            if finding is None:
                unanswered += 1
            elif not finding.holds:
                broke += 1
        if broke == 3:
            return "deterministic"
        return "errored" if unanswered == 3 else "flaky"

    def result(self, law: Invariant) -> InvariantResult:
        """The verdict of one law."""
        tally = self.tally
        common: dict[str, Any] = {
            "invariant": law.id,
            "statement": law.statement,
            "examples": tally.examples,
            "exercised": tally.exercised[law.id],
            "compactions": tally.compactions,
            "unchanged": tally.statuses["unchanged"],
            "errored": tally.statuses["errored"],
            "skipped": self.declined,
        }
        failure = self.failures.get(law.id)
        if failure is not None and law.id == CALL_ANSWERED and tally.answered == 0:
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
                corpus_file=str(self.corpus.get(law.id, "")) or None,
                input_problems=list(failure.outcome.input_problems),
                reproduced="not_checked" if self.interrupted else self.reproduced(law),
            )
            return InvariantResult(
                **common,
                verdict="violation",
                because=violation.because,
                counterexample=counterexample,
            )
        verdict, because = self._quiet_verdict(law)
        return InvariantResult(**common, verdict=verdict, because=because)

    def _quiet_verdict(self, law: Invariant) -> tuple[Verdict, str]:
        tally = self.tally
        if not self.applies(law):
            return "skipped", "not applicable: no budget was declared (--budget N)"
        exercised = tally.exercised[law.id]
        judged = answered_verdict(
            law.id,
            compactions=tally.compactions,
            unchanged=tally.statuses["unchanged"],
            exercised=exercised,
            examples=tally.examples,
            declined=self.declined,
        )
        if judged is None:
            return self._unanswered_verdict()
        verdict, because = judged
        if law.id == CALL_ANSWERED and tally.malformed_errors:
            because += (
                f"; {tally.malformed_errors} call(s) on input that breaks a provider rule "
                "errored, which is not held against it"
            )
        elif (
            verdict == "pass" and law.id != CALL_ANSWERED and exercised < self.config.min_exercised
        ):
            because += (
                f" (fewer than the {self.config.min_exercised} wanted, within the cap of "
                f"{self.config.example_cap} histories)"
            )
        return verdict, because

    def _unanswered_verdict(self) -> tuple[Verdict, str]:
        """Why nothing could be judged when no call answered."""
        tally, statuses = self.tally, self.tally.statuses
        common_reason = tally.reasons.most_common(1)[0][0] if tally.reasons else ""
        if statuses["timed out"] and statuses["timed out"] == statuses["errored"]:
            return "unknown", f"every call timed out: {common_reason}"
        if statuses["errored"] and not statuses["skipped"]:
            return "errored", f"every compaction errored: {common_reason}"
        if statuses["skipped"] and not statuses["errored"]:
            return "skipped", f"the target declined every history: {common_reason}"
        return "unknown", (
            f"no compaction could be judged in {tally.examples} histories "
            f"({dict(statuses)}): {common_reason}"
        )

    @property
    def declined(self) -> int:
        """Calls the target declined, or that the view declined for it."""
        return self.tally.statuses["declined"] + self.tally.statuses["skipped"]

    def vacuity(self) -> str:
        """Why a target that (almost) never compacted gets no pass, and what to do about it."""
        tally = self.tally
        return vacuity_line(
            tally.compactions, tally.statuses["unchanged"], self.declined, tally.examples
        )

    def report(self) -> TargetReport:
        """Explore, shrink what broke, and report; on an interrupt, report what was found."""
        started = time.monotonic()
        self.progress(
            f"{self.target.name} [{self.view}]: exploring {self.config.max_examples} histories"
        )
        try:
            with seed_only_draws():
                self.explore()
                self.explore_for_coverage()
                for law in self.judging:
                    # A target none of whose calls answered has no crash to shrink: all crash.
                    hopeless = law.id == CALL_ANSWERED and self.tally.answered == 0
                    # Every try at shrinking a hang would wait out the timeout: kept as found.
                    failure = self.failures.get(law.id)
                    hung = failure is not None and failure.outcome.timed_out
                    if law.id in self.failures and self.config.shrink and not hopeless and not hung:
                        self.progress(f"{self.target.name} [{self.view}]: shrinking {law.id}")
                        self.shrink(law)
        except KeyboardInterrupt as interrupt:
            self.interrupted = True
            partial = self._target_report(started)
            raise InterruptedRunError(partial) from interrupt
        return self._target_report(started)

    def _target_report(self, started: float) -> TargetReport:
        errors = (
            ["interrupted: the counts cover the histories run so far"] if self.interrupted else []
        )
        tally = self.tally
        judged = tally.answered and not self.interrupted
        if judged and tally.rarely_compacted():
            errors.append(self.vacuity())
        short = [law.id for law in self.short_of_coverage() if judged]
        if short and not tally.rarely_compacted():
            errors.append(
                f"{COVERAGE_PREFIX}{', '.join(short)} exercised fewer than "
                f"{self.config.min_exercised} times in {tally.examples} histories (the cap "
                f"is {self.config.example_cap}; raise it with --max-total-examples)"
            )
        calls = {
            status: tally.statuses[status] for status in CALL_STATUSES if tally.statuses[status]
        }
        return TargetReport(
            target=self.target.name,
            view=self.view,
            implementation=self.target.implementation,
            results=[self.result(law) for law in self.judging],
            errors=errors,
            calls=calls,
            stderr=self.target.stderr_tail()[-4000:],
            seconds=round(time.monotonic() - started, 3),
        )


def run_target(
    target: Target, view: View, config: RunConfig, progress: Progress | None = None
) -> TargetReport:
    """Fuzz one target on one view and report every law's verdict."""
    return TargetRun(target, view, config, progress).report()
