"""The search of one target on one view: Hypothesis explores, shrinks each broken law's witness
and re-runs it to tell a deterministic failure from a flaky one."""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, cast

from hypothesis import HealthCheck, Phase, example, given, seed, settings
from hypothesis.errors import HypothesisException
from hypothesis.strategies import SearchStrategy

from compactcheck.backends.ahead import answered_ahead
from compactcheck.base import interrupts
from compactcheck.engine.config import RunConfig
from compactcheck.engine.events import Event, ExampleJudged, Note, Shrunk, ViolationFound
from compactcheck.engine.heap import searching
from compactcheck.engine.judge import Found, Judge
from compactcheck.engine.recording import Recorder
from compactcheck.engine.steering import history_size, steer
from compactcheck.engine.tally import Failure
from compactcheck.engine.witnesses import Witnesses
from compactcheck.harness import Case, Driver, RoundOutcome, cases
from compactcheck.invariants import Finding, Invariant, View
from compactcheck.invariants.ways import ways
from compactcheck.observed.transcripts import transcript_cases, whole
from compactcheck.report.model import Reproduced
from compactcheck.targets.registry import Target
from compactcheck.verdicts.counts import CALL_ANSWERED

# A hunt whose new candidate histories keep timing out waits out the call's timeout on each; it
# stops after this many, at the smallest failure found so far, rather than for minutes.
HUNT_TIMEOUTS = 5


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


def _case_key(case: Case) -> bytes:
    """A case's identity across passes and hunts: the same draws give an equal case."""
    return hashlib.blake2b(repr(case).encode(), digest_size=16).digest()


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


class Search:
    """Hypothesis over one target on one view; what it finds goes to the judge and the corpus."""

    def __init__(
        self,
        target: Target,
        view: View,
        config: RunConfig,
        driver: Driver,
        judge: Judge,
        recorder: Recorder,
    ) -> None:
        self.target = target
        self.view = view
        self.config = config
        self.driver = driver
        self.judge = judge
        self.witnesses = Witnesses(target, view, config, recorder)
        self.passes = 0
        # The coverage pass in which each law first broke in each way.
        self.found_in: dict[tuple[str, str], int] = {}
        self.detections: dict[str, Detection] = {}
        # (law, way)s whose failure is a corpus entry already shrunk, met again: not shrunk again.
        self.shrunk_already: set[tuple[str, str]] = set()
        # How each broken law's witness in each way fared when re-run (see ``reproduce``).
        self.reproductions: dict[tuple[str, str], Reproduced] = {}
        # The interrupt (Ctrl-C or SIGTERM) that cut this run short, if one did.
        self.stopped_by: KeyboardInterrupt | None = None
        # Set when the time box cut exploring or shrinking short.
        self.cut_short = False
        self._events: list[Event] = []
        # The cases on which a call timed out, with their outcomes. A hunt draws exploring's
        # histories again on its way to the failure; where it meets one of these it takes the
        # outcome it had (the target is taken to hang on the same input again) rather than wait
        # out the timeout once more for each law it shrinks.
        self._hung: dict[bytes, list[RoundOutcome]] = {}

    @property
    def interrupted(self) -> bool:
        """Whether a signal cut this run short."""
        return self.stopped_by is not None

    def drain(self) -> Iterator[Event]:
        """The events told since the last drain."""
        events, self._events = self._events, []
        yield from events

    def _note(self, text: str) -> None:
        self._events.append(Note(self.target.name, self.view, text))

    def _cases(self) -> SearchStrategy[Case]:
        if self.config.transcripts:
            return transcript_cases(self.config.transcripts, self.config.rounds)  # type: ignore[return-value]
        return cases(self.config.rounds, self.view, self.config.malformed, self.judge.format)

    def _key(self, kind: str) -> str:
        """The example database key of a search: generated and transcript cases never mix."""
        return f"{kind}:transcripts" if self.config.transcripts else kind

    def run_case(self, case: Case) -> list[RoundOutcome]:
        """Every round of one case, its facts read as the run asks (``RunConfig.reading``)."""
        return self.read_rounds(self.driver.run(case))

    def _run_remembering_hangs(self, case: Case) -> list[RoundOutcome]:
        """Every round of one case; a case whose call timed out is kept for the hunts."""
        outcomes = self.run_case(case)
        if any(outcome.timed_out for outcome in outcomes):
            self._hung[_case_key(case)] = outcomes
        return outcomes

    def read_rounds(self, outcomes: list[RoundOutcome]) -> list[RoundOutcome]:
        if self.config.reading != "tokens":
            for outcome in outcomes:
                if outcome.facts is not None:
                    outcome.facts = outcome.facts.model_copy(
                        update={"reading": self.config.reading}
                    )
        return outcomes

    def judge_rounds(
        self,
        outcomes: Sequence[RoundOutcome],
        pass_index: int,
        started: float,
        found: Found | None = None,
    ) -> None:
        found = found or partial(self.keep_found, pass_index=pass_index, started=started)
        self.judge.judge(outcomes, found)
        statuses = tuple(outcome.status for outcome in outcomes)
        examples = self.judge.tally.examples
        self._events.append(ExampleJudged(self.target.name, self.view, examples, statuses))

    def keep_found(
        self,
        law: Invariant,
        outcome: RoundOutcome,
        finding: Finding,
        *,
        pass_index: int,
        started: float,
    ) -> None:
        """A law's first failure in a way: kept, on disk at once, announced."""
        size = history_size(outcome)
        way = self.judge.keep(law.id, Failure(outcome, finding, size))
        self.found_in[law.id, way] = pass_index
        examples = self.judge.tally.examples
        self.detections.setdefault(law.id, Detection(examples, time.monotonic() - started, size))
        # On disk before anything else can go wrong.
        shrunk = (law.id, way) in self.shrunk_already
        path = self.witnesses.record(law, outcome, finding, shrunk=shrunk)
        because = finding.violations[0].because
        self._events.append(
            ViolationFound(self.target.name, self.view, law.id, because, examples, path)
        )

    def explore(self, pass_index: int = 0, budget: int | None = None) -> None:
        """Run one pass of the budget, judging every law on every round it applies to."""
        judge, config = self.judge, self.config
        tally, laws = judge.tally, judge.laws
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
            if config.stop_when_all_broken and laws and judge.all_broken():
                raise _StopExploringError
            tally.examples += 1
            outcomes = self._run_remembering_hangs(case)
            steer(case, outcomes)
            self.judge_rounds(outcomes, pass_index, started)

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
            searching(),
        ):
            explore()
        self.passes += 1

    def shrinkable(self, law: Invariant, way: str) -> bool:
        """Whether a broken law's witness of one way is worth a hunt that shrinks it."""
        failure = self.judge.ways.get(law.id, {}).get(way)
        if failure is None or not self.config.shrink or (law.id, way) in self.shrunk_already:
            return False
        # A target none of whose calls answered has no crash to shrink: they all crash.
        hopeless = law.id == CALL_ANSWERED and self.judge.tally.answered == 0
        # Every try at shrinking a hang would wait out the timeout: kept as found.
        return not hopeless and not failure.outcome.timed_out

    def shrink(self, law: Invariant, way: str | None = None) -> None:
        """Search again for this law broken in this way alone (by default its first), letting
        Hypothesis shrink the history; the hunt keeps the other ways it meets."""
        way = way if way is not None else next(iter(self.judge.ways[law.id]))
        found: list[Failure] = []

        # A named seed is a replay: saved failures are not fed back in (they would change the
        # witnesses); without one, the database's failures come first.
        phases: tuple[Phase, ...] = (Phase.explicit, Phase.generate, Phase.shrink)
        if not self.config.seed_given:
            phases = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
        # The hunt starts from the pass that found the failure, so that it finds it again.
        found_in = self.found_in.get((law.id, way), 0)

        def other(broke: Invariant, outcome: RoundOutcome, judged: Finding) -> None:
            self.keep_found(broke, outcome, judged, pass_index=found_in, started=time.monotonic())

        # Candidates whose call timed out; each waited out the whole timeout.
        timeouts = 0

        # Settings outside seed: @seed alone would switch the example database off.
        @_settings(self.config, phases)
        @seed(_pass_seed(self.config.seed, found_in))
        @given(self._cases())
        def hunt(case: Case) -> None:
            interrupts.check()
            nonlocal timeouts
            if self.config.time_is_up():
                # Passing from here on ends shrinking at the smallest failure found so far.
                self.cut_short = True
                return
            if timeouts >= HUNT_TIMEOUTS:
                # The same way out for a target that hangs on the candidates.
                return
            outcomes = self._hung.get(_case_key(case)) if self._hung else None
            if outcomes is None:
                outcomes = self._run_remembering_hangs(case)
                timeouts += any(outcome.timed_out for outcome in outcomes)
            # The same scores as exploring gave: Hypothesis's generator reads them even without
            # its target phase, and a hunt that scored nothing would draw other histories than
            # the pass it restarts from, and could miss the failure that pass found.
            steer(case, outcomes)
            for outcome in outcomes:
                self.judge.others_broken(outcome, law, other)
                judged = self.judge.broken(outcome, law)
                split = ways(judged) if judged is not None else {}
                for met, other_way in split.items():
                    if met != way and self.judge.new_way(law.id, met):
                        other(law, outcome, other_way)
                if way in split:
                    found.append(Failure(outcome, split[way], history_size(outcome)))
                    raise _BrokenLawError

        # Each way has a key of its own, whatever was met first; a law of one way keeps the
        # key it had before ways.
        suffix = ":" + hashlib.blake2b(way.encode(), digest_size=6).hexdigest() if way else ""
        _digest(hunt, self._key(f"hunt:{self.target.name}:{self.view}:{law.id}{suffix}"))
        try:
            with searching():
                hunt()
        except _BrokenLawError:
            pass
        except HypothesisException as error:
            # A hunt cut short passes its replay of the smallest failure: not worth a note.
            if not self.cut_short and timeouts < HUNT_TIMEOUTS:
                self._note(f"shrinking {law.id} stopped: {error}")
        stalled = timeouts >= HUNT_TIMEOUTS
        cut = self.cut_short or stalled
        if found:
            # Hypothesis replays the minimal example last; a cut-short hunt ends at its smallest.
            failure = min(found, key=lambda f: f.size) if cut else found[-1]
            self.judge.keep(law.id, failure)
            path = self.witnesses.record(law, failure.outcome, failure.finding, shrunk=not cut)
            self._events.append(
                Shrunk(self.target.name, self.view, law.id, failure.size, path, not cut)
            )
            if stalled:
                self._note(
                    f"shrinking {law.id} stopped after {timeouts} candidate histories timed out "
                    "(each waits out the call's timeout); its witness is the smallest failure "
                    "found, not fully shrunk (--no-shrink skips shrinking)"
                )
        elif stalled:
            self._note(
                f"shrinking {law.id} stopped after {timeouts} candidate histories timed out, "
                "before it met the failure again; its witness is as found, not shrunk"
            )
        elif not self.cut_short and not self.interrupted:
            # The failure exploring found stays the witness, and the corpus keeps it unshrunk.
            self._note(
                f"shrinking {law.id} did not meet the failure again (a flaky target, or one "
                "whose answers depend on earlier calls); its witness is as found, not shrunk"
            )
