"""One target on one view: explore once for every law, then shrink each broken law's witness."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, Phase, example, given, seed, settings
from hypothesis.errors import HypothesisException, HypothesisWarning
from hypothesis.strategies import SearchStrategy

from compactcheck.base import interrupts
from compactcheck.base.call_law import CALL_ANSWERED, call_finding
from compactcheck.base.selection import Selection
from compactcheck.corpus.entry import CorpusEntry, RerunVerdict, note_reproduced
from compactcheck.corpus.replay import recorded_rounds
from compactcheck.engine.config import RunConfig
from compactcheck.engine.draws import seed_only_draws
from compactcheck.engine.events import (
    Event,
    ExampleJudged,
    Note,
    Shrunk,
    TargetFinished,
    TargetStarted,
    ViolationFound,
)
from compactcheck.engine.fidelity import REFERENCE_TARGETS, FidelityTally
from compactcheck.engine.recording import ByLaw, Recorder, Recording
from compactcheck.engine.results import target_report
from compactcheck.engine.steering import history_size, steer
from compactcheck.engine.verdicts import Failure, Tally
from compactcheck.harness import Case, Driver, RoundOutcome, cases
from compactcheck.harness.messages import MessagesDriver
from compactcheck.invariants import Finding, Invariant, View
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.observed.transcripts import (
    TranscriptDriver,
    TranscriptError,
    transcript_cases,
    whole,
)
from compactcheck.report.levels import accepted_waivers
from compactcheck.report.model import (
    Reproduced,
)
from compactcheck.targets.ahead import answered_ahead
from compactcheck.targets.registry import Target, resolve


@dataclass(frozen=True)
class Detection:
    """When exploring first saw a law broken: after how many histories and seconds."""

    examples: int
    seconds: float
    size: int


class _BrokenLawError(Exception):
    """Raised inside a hunt so that Hypothesis shrinks the history that broke a law."""


class _StopExploringError(Exception):
    """Raised inside exploring to end the Hypothesis run: time is up, or every law is broken."""


# The young generation's size while searching: a case allocates tens of thousands of objects
# that live as long as the case, and at Python's default of 700 each was walked by several
# collections before it died (a tenth of a run); at this size a case's own objects mostly die
# before a collection sees them, and a cycle still waits for at most this many allocations.
_SEARCH_GENERATION_0 = 10_000
# How much the heap a search finds may outgrow the heap the last collection left, before the
# search collects it first (see ``_settled_heap``).
_HEAP_GROWTH = 1.5
_settled_size = 0


@contextlib.contextmanager
def _settled_heap() -> Iterator[None]:
    """The objects alive before a search left out of the collector's full passes meanwhile,
    and a young generation big enough for a case.

    A search makes garbage fast, and each full pass of the cycle collector walks every object
    of the process (Hypothesis's, pydantic's schemas, the modules): about a fifth of a run went
    there. ``gc.freeze`` sets the objects alive now aside until ``gc.unfreeze``; those that die
    meanwhile are still freed as usual, only a cycle among them waits for the unfreeze.

    What a finished search leaves is mostly cycles (Hypothesis's state for its test, the run's
    outcomes), and the next search's freeze would set them aside as if alive: over the 140
    searches of the mutant table they grew to three million objects (760 MB), which a later
    full pass took 3.5 seconds to free. So a search whose heap has grown by half since the last
    collection collects it before freezing (about 20 ms for a fresh process). A heap someone
    else froze is left to them; the thresholds are put back as they were either way.
    """
    global _settled_size
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _SEARCH_GENERATION_0), *thresholds[1:])
    try:
        if gc.get_freeze_count():
            yield
            return
        gc.freeze()
        if gc.get_freeze_count() > _HEAP_GROWTH * _settled_size:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            _settled_size = gc.get_freeze_count()
        try:
            yield
        finally:
            gc.unfreeze()
    finally:
        gc.set_threshold(*thresholds)


@contextlib.contextmanager
def _searching() -> Iterator[None]:
    """Around one Hypothesis search: seed-only draws, no warning on huge reprs, a settled heap."""
    # Hypothesis formats a failing case of tens of kilobytes for its own report, which is never
    # shown: our witness is.
    with seed_only_draws(), warnings.catch_warnings(), _settled_heap():
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


def _settings(config: RunConfig, phases: Sequence[Phase]) -> settings:
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
    """Give a search its own example-database key: each (target, view, law) hunt has one.

    Hypothesis derives the key from the inner test function (the one ``@given`` wraps), mixing
    in its ``_hypothesis_internal_add_digest``, as its own stateful tests do; set on the wrapper,
    the attribute is never read and every hunt would share one key.
    """
    function.hypothesis.inner_test._hypothesis_internal_add_digest = key.encode()


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
        selection = Selection(config.include, config.exclude)
        # The format the target is driven in: the run's, or the only one the target speaks.
        self.format: Format = target.format if view == "messages" else CHAT
        self.laws: list[Invariant] = selection.laws(view, self.format)
        self.judging: list[Invariant] = selection.judging(view, self.format)
        # What the target declared it does not promise; a law of level 1 cannot be waived.
        structural = {law.id: bool(law.formats) for law in self.judging}
        self.waivers, self.refused_waivers = accepted_waivers(
            target.implementation.waivers, structural, self.format
        )
        reference_name = REFERENCE_TARGETS[view]
        self.fidelity = FidelityTally(
            view,
            config.budget,
            None
            if target.name == reference_name
            else resolve(reference_name, budget=config.budget, format=self.format).drivers[view](),
            reference_name,
            self.format,
        )
        self.passes = 0
        self.tally = Tally()
        self.failures: dict[str, Failure] = {}
        # The coverage pass in which each law first broke.
        self.found_in: dict[str, int] = {}
        self.detections: dict[str, Detection] = {}
        self.corpus: dict[str, Path] = {}
        # Laws whose failure is a corpus entry already shrunk, met again: not shrunk again.
        self.shrunk_already: set[str] = set()
        # The interrupt (Ctrl-C or SIGTERM) that cut this run short, if one did.
        self.stopped_by: KeyboardInterrupt | None = None
        # Set when the time box cut exploring or shrinking short.
        self.cut_short = False
        self._events: list[Event] = []
        # The last event of ``steps``, kept for the engine.
        self.finished: TargetFinished | None = None

    @property
    def interrupted(self) -> bool:
        """Whether a signal cut this run short."""
        return self.stopped_by is not None

    @property
    def shard(self) -> str:
        """The shard label ("" for a whole run)."""
        return self.config.shard.label if self.config.shard.count > 1 else ""

    def _note(self, text: str) -> None:
        self._events.append(Note(self.target.name, self.view, text))

    def _drain(self) -> Iterator[Event]:
        events, self._events = self._events, []
        yield from events

    def steps(self, job: int = 0) -> Iterator[Event]:
        """Explore, shrink what broke, report; an interrupt ends it with the partial report."""
        started = time.monotonic()
        try:
            yield TargetStarted(self.target.name, self.view, self.config.max_examples, self.shard)
            if self.target.model is not None and self.config.shard.index == 1:
                self.replay_corpus()
            self.explore()
            yield from self._drain()
            while self._wants_coverage():
                budget = min(
                    self.config.max_examples, self.config.example_cap - self.tally.examples
                )
                yield Note(self.target.name, self.view, f"{budget} more histories for coverage")
                self.explore(self.passes, budget)
                yield from self._drain()
            for law in self.judging:
                if self._shrinkable(law):
                    yield Note(self.target.name, self.view, f"shrinking {law.id}")
                    self.shrink(law)
                    yield from self._drain()
        except KeyboardInterrupt as interrupt:
            self.stopped_by = interrupt
            yield from self._drain()
        self.finished = TargetFinished(
            target_report(self, started),
            shard=self.shard,
            seed=self.config.seed,
            examples=self.tally.examples,
            corpus=dict(self.corpus),
            discarded=self.recorder.discarded,
            interrupted=self.interrupted,
            job=job,
        )
        yield self.finished

    def _shrinkable(self, law: Invariant) -> bool:
        failure = self.failures.get(law.id)
        if failure is None or not self.config.shrink or law.id in self.shrunk_already:
            return False
        # A target none of whose calls answered has no crash to shrink: they all crash.
        hopeless = law.id == CALL_ANSWERED and self.tally.answered == 0
        # Every try at shrinking a hang would wait out the timeout: kept as found.
        return not hopeless and not failure.outcome.timed_out

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
            model=self.target.model.name if self.target.model is not None else None,
        )

    def record(self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool) -> Path:
        """Write a failing round to the crash corpus, named as the run's recording says."""
        entry = self.entry(law, outcome, finding, shrunk)
        witness = finding.violations[0].witness
        path = self.recorder.write(self.config.corpus_dir, entry, witness)
        self.corpus[law.id] = path
        return path

    def _cases(self) -> SearchStrategy[Case]:
        if self.config.transcripts:
            return transcript_cases(self.config.transcripts, self.config.rounds)  # type: ignore[return-value]
        return cases(self.config.rounds, self.view, self.config.malformed, self.format)

    def _key(self, kind: str) -> str:
        """The example database key of a search: generated and transcript cases never mix."""
        return f"{kind}:transcripts" if self.config.transcripts else kind

    def _judge(self, outcomes: Sequence[RoundOutcome], pass_index: int, started: float) -> None:
        tally = self.tally
        for outcome in outcomes:
            tally.count(outcome)
            self.fidelity.count(outcome)
            for law in self.judging:
                finding = _finding(outcome, law)
                if finding is None:
                    continue
                tally.exercised[law.id] += finding.exercised
                if not finding.holds and law.id not in self.failures:
                    self._found(law, outcome, finding, pass_index, started)
        statuses = tuple(outcome.status for outcome in outcomes)
        self._events.append(ExampleJudged(self.target.name, self.view, tally.examples, statuses))

    def _found(
        self,
        law: Invariant,
        outcome: RoundOutcome,
        finding: Finding,
        pass_index: int,
        started: float,
    ) -> None:
        """A law's first failure: kept, on disk at once, announced."""
        size = history_size(outcome)
        self.failures[law.id] = Failure(outcome, finding, size)
        self.found_in[law.id] = pass_index
        self.detections[law.id] = Detection(self.tally.examples, time.monotonic() - started, size)
        # On disk before anything else can go wrong.
        path = self.record(law, outcome, finding, shrunk=law.id in self.shrunk_already)
        self._events.append(
            ViolationFound(
                self.target.name,
                self.view,
                law.id,
                finding.violations[0].because,
                self.tally.examples,
                path,
            )
        )

    def _others_broken(self, outcome: RoundOutcome, hunted: Invariant, pass_index: int) -> None:
        """Laws a shrinking hunt's round breaks that exploring never saw broken.

        Shrinking walks histories exploring did not draw; one that breaks another law too is a
        failure of that law, so that no law reports a pass beside a witness that breaks it.
        """
        for law in self.judging:
            if law.id == hunted.id or law.id in self.failures:
                continue
            finding = _finding(outcome, law)
            if finding is not None and not finding.holds:
                self._found(law, outcome, finding, pass_index, time.monotonic())

    def explore(self, pass_index: int = 0, budget: int | None = None) -> None:
        """Run one pass of the budget, judging every law on every round it applies to."""
        tally, laws, config = self.tally, self.laws, self.config
        pass_config = replace(config, max_examples=budget or config.max_examples)
        started = time.monotonic()

        phases = (Phase.explicit, Phase.generate) + ((Phase.target,) if config.target_phase else ())

        @_settings(pass_config, phases)
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
            outcomes = self.run_case(case)
            steer(case, outcomes)
            self._judge(outcomes, pass_index, started)

        # Each recorded transcript is first run whole, as it was recorded (not when hunting:
        # an explicit example is never shrunk, and the hunt is there to shrink).
        for transcript in self.config.transcripts:
            explore = example(whole(transcript))(explore)
        _digest(explore, self._key(f"explore:{self.target.name}:{self.view}"))
        # The whole transcripts are known inputs: their requests go to a harness pipelined,
        # ahead of the search (which then asks round by round, each input from an answer).
        wholes = [partial(self.driver.run, cast(Any, whole(t))) for t in self.config.transcripts]
        with (
            answered_ahead(self.target.backend, wholes),
            contextlib.suppress(_StopExploringError),
            _searching(),
        ):
            explore()
        self.passes += 1

    def replay_corpus(self) -> None:
        """The target's corpus entries, judged ahead of anything generated (a run with a model).

        Their requests were asked before, so their answers come from the model cache: a
        recorded failure is met again before a call is spent on new histories, and one that
        was shrunk is kept as it is rather than shrunk again. The first shard of a run does it.
        """
        started = time.monotonic()
        model = self.target.model.name if self.target.model is not None else ""
        home = self.config.home_corpus_dir
        for entry in recorded_rounds(home, self.target.name, self.view, self.format, model):
            interrupts.check()
            if self.config.time_is_up():
                self.cut_short = True
                return
            law = entry["invariant"]
            try:
                [outcome] = self._read([self.driver.replay(entry)])
            except (KeyError, TypeError, ValueError):
                # An entry that no longer fits the view: `compactcheck replay` says so.
                continue
            if entry.get("shrunk") and law not in self.failures:
                self.shrunk_already.add(law)
            self.tally.examples += 1
            self._judge([outcome], 0, started)
            if law not in self.failures:
                self.shrunk_already.discard(law)

    def run_case(self, case: Case) -> list[RoundOutcome]:
        """Every round of one case, its facts read as the run asks (``RunConfig.reading``)."""
        return self._read(self.driver.run(case))

    def _read(self, outcomes: list[RoundOutcome]) -> list[RoundOutcome]:
        if self.config.reading != "tokens":
            for outcome in outcomes:
                if outcome.facts is not None:
                    outcome.facts = outcome.facts.model_copy(
                        update={"reading": self.config.reading}
                    )
        return outcomes

    def first_violation(self, case: Case, law: Invariant) -> tuple[RoundOutcome, Finding] | None:
        """Run one case through the target: the first round that breaks ``law``, if any."""
        for outcome in self.run_case(case):
            finding = _finding(outcome, law)
            if finding is not None and not finding.holds:
                return outcome, finding
        return None

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

    def _wants_coverage(self) -> bool:
        """Whether to explore past the budget: a law or compaction is short, within the cap."""
        tally, config = self.tally, self.config
        return (
            tally.answered > 0
            and bool(self.short_of_coverage() or tally.rarely_compacted())
            and tally.examples < config.example_cap
            and not config.time_is_up()
            and not (config.stop_when_all_broken and self.all_broken())
        )

    def shrink(self, law: Invariant) -> None:
        """Search again for this law alone, letting Hypothesis shrink the history."""
        found: list[Failure] = []

        # A named seed is a replay: saved failures are not fed back in (they would change the
        # witnesses); without one, the database's failures come first.
        phases: tuple[Phase, ...] = (Phase.explicit, Phase.generate, Phase.shrink)
        if not self.config.seed_given:
            phases = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
        # The hunt starts from the pass that found the failure, so that it finds it again.
        found_in = self.found_in.get(law.id, 0)

        # Settings outside seed: @seed alone would switch the example database off.
        @_settings(self.config, phases)
        @seed(_pass_seed(self.config.seed, found_in))
        @given(self._cases())
        def hunt(case: Case) -> None:
            interrupts.check()
            if self.config.time_is_up():
                # Passing from here on ends shrinking at the smallest failure found so far.
                self.cut_short = True
                return
            outcomes = self.run_case(case)
            # The same scores as exploring gave: Hypothesis's generator reads them even without
            # its target phase, and a hunt that scored nothing would draw other histories than
            # the pass it restarts from, and could miss the failure that pass found.
            steer(case, outcomes)
            for outcome in outcomes:
                self._others_broken(outcome, law, found_in)
                finding = _finding(outcome, law)
                if finding is not None and not finding.holds:
                    found.append(Failure(outcome, finding, history_size(outcome)))
                    raise _BrokenLawError

        _digest(hunt, self._key(f"hunt:{self.target.name}:{self.view}:{law.id}"))
        try:
            with _searching():
                hunt()
        except _BrokenLawError:
            pass
        except HypothesisException as error:
            if not self.cut_short:
                self._note(f"shrinking {law.id} stopped: {error}")
        if found:
            # Hypothesis replays the minimal example last; a cut-short hunt ends at its smallest.
            failure = min(found, key=lambda f: f.size) if self.cut_short else found[-1]
            self.failures[law.id] = failure
            path = self.record(law, failure.outcome, failure.finding, shrunk=not self.cut_short)
            self._events.append(
                Shrunk(self.target.name, self.view, law.id, failure.size, path, not self.cut_short)
            )
        elif not self.cut_short and not self.interrupted:
            # The failure exploring found stays the witness, and the corpus keeps it unshrunk.
            self._note(
                f"shrinking {law.id} did not meet the failure again (a flaky target, or one "
                "whose answers depend on earlier calls); its witness is as found, not shrunk"
            )

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
        # The three re-runs are independent: their requests go to a harness pipelined. A
        # model is asked again, not replayed, where the run may still send.
        rerun = partial(self.driver.replay, entry)
        model = self.target.model
        with (
            model.afresh() if model is not None else contextlib.nullcontext(),
            answered_ahead(self.target.backend, [rerun] * 3),
        ):
            outcomes = [rerun() for _ in range(3)]
        for outcome in outcomes:
            finding = _finding(outcome, law)
            if finding is None:
                unanswered += 1
            elif not finding.holds:
                broke += 1
        verdict: RerunVerdict = (
            "deterministic" if broke == 3 else "errored" if unanswered == 3 else "flaky"
        )
        # The entry keeps it: a replay must know a flaky finding, which may pass by luck.
        path = self.corpus.get(law.id)
        if path is not None and path.is_file():
            note_reproduced(path, verdict)
        return verdict
