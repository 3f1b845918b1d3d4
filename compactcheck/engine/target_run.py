"""One target on one view: explore once for every law, shrink each broken law's witness, report."""

from __future__ import annotations

import time
from collections.abc import Iterator

from compactcheck.corpus.backup import CorpusBackup
from compactcheck.engine.config import RunConfig
from compactcheck.engine.corpus_first import replay_corpus
from compactcheck.engine.events import Event, Note, TargetFinished, TargetStarted
from compactcheck.engine.judge import Judge
from compactcheck.engine.recording import ByLaw, Recorder, Recording
from compactcheck.engine.rerun import reproduce_all
from compactcheck.engine.results import target_report
from compactcheck.engine.search import Search
from compactcheck.harness import Driver
from compactcheck.harness.messages import MessagesDriver
from compactcheck.invariants import Budget, View
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
        # What earlier runs left in the corpus, read before any compactor code of this run:
        # written again at the end if the compactor deleted it (see ``steps``).
        self.backup = CorpusBackup.read(config.home_corpus_dir)
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
                replay_corpus(search)
            search.explore()
            yield from search.drain()
            while judge.wants_coverage():
                budget = min(config.max_examples, config.example_cap - judge.tally.examples)
                yield Note(self.target.name, self.view, f"{budget} more histories for coverage")
                search.explore(search.passes, budget)
                yield from search.drain()
            for law in judge.judging:
                # A hunt may meet a way of its law not seen before: it is shrunk in turn.
                tried: set[str] = set()
                # (A law of one way has the way "": None says none is left.)
                while (
                    way := next((w for w in judge.ways.get(law.id, {}) if w not in tried), None)
                ) is not None:
                    tried.add(way)
                    if search.shrinkable(law, way):
                        yield Note(self.target.name, self.view, f"shrinking {law.id}")
                        search.shrink(law, way)
                        yield from search.drain()
        except KeyboardInterrupt as interrupt:
            search.stopped_by = interrupt
            yield from search.drain()
        # Before the report reads the model's counts: a witness's re-runs may ask it again.
        reproduce_all(search)
        witnesses = search.witnesses
        gone = witnesses.restore()
        earlier, unrestored = self.backup.restore()
        gone += earlier
        # Lines that stay, in the report's errors: said in the console table and every report.
        said = [*witnesses.unwritten, *unrestored]
        if gone:
            said.append(
                f"the corpus was changed under the run: {gone} of its entries were gone from "
                f"{config.home_corpus_dir}, written again from memory"
            )
        report = target_report(judge, search, started)
        if said:
            report = report.model_copy(update={"errors": [*report.errors, *said]})
        self.finished = TargetFinished(
            report,
            shard=self.shard,
            seed=config.seed,
            examples=judge.tally.examples,
            corpus=search.witnesses.corpus(search.judge.first_ways()),
            discarded=self.recorder.discarded,
            interrupted=search.interrupted,
            job=job,
        )
        yield self.finished
