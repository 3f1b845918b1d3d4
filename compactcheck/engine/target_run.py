"""One target on one view: explore once for every law, shrink each broken law's witness, report."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from compactcheck.engine.config import RunConfig
from compactcheck.engine.events import Event, Note, TargetFinished, TargetStarted
from compactcheck.engine.judge import Judge, broken
from compactcheck.engine.recording import ByLaw, Recorder, Recording
from compactcheck.engine.rerun import reproduce_all
from compactcheck.engine.results import target_report
from compactcheck.engine.search import Detection, Search
from compactcheck.engine.tally import Failure, Tally
from compactcheck.harness import Case, Driver, RoundOutcome
from compactcheck.harness.messages import MessagesDriver
from compactcheck.invariants import Budget, Finding, Invariant, View
from compactcheck.invariants.formats import Format
from compactcheck.observed.transcripts import TranscriptDriver, TranscriptError
from compactcheck.targets.registry import Target


class TargetRun:
    """One target on one view; ``steps`` runs it and tells what happens as events."""

    def __init__(
        self,
        target: Target,
        view: View,
        config: RunConfig,
        recording: Recording | None = None,
    ) -> None:
        self.target = target
        self.view = view
        self.config = config
        self.recorder: Recorder = (recording or ByLaw()).start()
        self.driver: Driver = target.drivers[view]()
        if config.transcripts:
            # Pieces of recorded transcripts instead of generated scenarios (messages view).
            if not isinstance(self.driver, MessagesDriver):
                raise TranscriptError(f"--transcripts feed the messages view, not the {view} view")
            self.driver = TranscriptDriver(self.driver, config.budget, target.format)
        budget: Budget | None = getattr(self.driver, "budget", None) or config.budget
        self.judge = Judge(target, view, config, budget)
        self.search = Search(target, view, config, self.driver, self.judge, self.recorder)
        # The last event of ``steps``, kept for the engine.
        self.finished: TargetFinished | None = None

    @property
    def format(self) -> Format:
        """The format the target is driven in."""
        return self.judge.format

    @property
    def laws(self) -> list[Invariant]:
        """The selected laws of the catalogue."""
        return self.judge.laws

    @property
    def judging(self) -> list[Invariant]:
        """Every law judged: the catalogue's and the call law."""
        return self.judge.judging

    @property
    def tally(self) -> Tally:
        """What the calls did so far."""
        return self.judge.tally

    @property
    def failures(self) -> dict[str, Failure]:
        """Each broken law's witness."""
        return self.judge.failures

    @property
    def detections(self) -> dict[str, Detection]:
        """When exploring first saw each law broken."""
        return self.search.detections

    @property
    def corpus(self) -> dict[str, Path]:
        """The corpus entry of each broken law."""
        return self.search.witnesses.corpus

    @property
    def stopped_by(self) -> KeyboardInterrupt | None:
        """The interrupt (Ctrl-C or SIGTERM) that cut this run short, if one did."""
        return self.search.stopped_by

    @property
    def interrupted(self) -> bool:
        """Whether a signal cut this run short."""
        return self.search.interrupted

    @property
    def shard(self) -> str:
        """The shard label ("" for a whole run)."""
        return self.config.shard.label if self.config.shard.count > 1 else ""

    def steps(self, job: int = 0) -> Iterator[Event]:
        """Explore, shrink what broke, re-run the witnesses, report; an interrupt ends it with
        the partial report."""
        started = time.monotonic()
        search, judge, config = self.search, self.judge, self.config
        try:
            yield TargetStarted(self.target.name, self.view, config.max_examples, self.shard)
            if self.target.model is not None and config.shard.index == 1:
                search.replay_corpus()
            search.explore()
            yield from search.drain()
            while judge.wants_coverage():
                budget = min(config.max_examples, config.example_cap - judge.tally.examples)
                yield Note(self.target.name, self.view, f"{budget} more histories for coverage")
                search.explore(search.passes, budget)
                yield from search.drain()
            for law in judge.judging:
                if search.shrinkable(law):
                    yield Note(self.target.name, self.view, f"shrinking {law.id}")
                    search.shrink(law)
                    yield from search.drain()
        except KeyboardInterrupt as interrupt:
            search.stopped_by = interrupt
            yield from search.drain()
        # Before the report reads the model's counts: a witness's re-runs may ask it again.
        reproduce_all(search)
        self.finished = TargetFinished(
            target_report(judge, search, started),
            shard=self.shard,
            seed=config.seed,
            examples=judge.tally.examples,
            corpus=dict(self.corpus),
            discarded=self.recorder.discarded,
            interrupted=self.interrupted,
            job=job,
        )
        yield self.finished

    def explore(self, pass_index: int = 0, budget: int | None = None) -> None:
        """Run one pass of the budget, judging every law on every round it applies to."""
        self.search.explore(pass_index, budget)

    def shrink(self, law: Invariant) -> None:
        """Search again for this law alone, letting Hypothesis shrink the history."""
        self.search.shrink(law)

    def run_case(self, case: Case) -> list[RoundOutcome]:
        """Every round of one case, its facts read as the run asks (``RunConfig.reading``)."""
        return self.search.run_case(case)

    def record(self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool) -> Path:
        """Write a failing round to the crash corpus, named as the run's recording says."""
        return self.search.witnesses.record(law, outcome, finding, shrunk)

    def first_violation(self, case: Case, law: Invariant) -> tuple[RoundOutcome, Finding] | None:
        """Run one case through the target: the first round that breaks ``law``, if any."""
        for outcome in self.run_case(case):
            judged = broken(outcome, law)
            if judged is not None:
                return outcome, judged
        return None
