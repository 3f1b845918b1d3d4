"""One law's test of the pytest plugin (the ``compactcheck_law`` value), and what a session's
law tests share: each (target, view, shard) is fuzzed once, for the tests of all its laws."""

from __future__ import annotations

import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis.strategies import SearchStrategy

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_pooled, run_target
from compactcheck.engine.trial import Trial
from compactcheck.harness import Case
from compactcheck.harness.cases import cases
from compactcheck.invariants import View
from compactcheck.models import ModelSlot
from compactcheck.observed.transcripts import Transcript
from compactcheck.options import BY_KEY
from compactcheck.render._digest import way_note
from compactcheck.render.review import review_lines
from compactcheck.render.violation import violation_text
from compactcheck.report.model import (
    UNWRITTEN_PREFIX,
    Counterexample,
    InvariantResult,
    TargetReport,
)
from compactcheck.report.untrusted import safe_line
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target, resolve
from compactcheck.verdicts import law_outcome


@dataclass
class LawSession:
    """What one pytest session fuzzed, kept in ``config.stash``."""

    # Each (target, view, shard config) is fuzzed once, for all of its laws' tests.
    reports: dict[tuple[str, str, RunConfig], TargetReport] = field(default_factory=dict)
    # On the xdist controller: every worker's reports, keyed so that a shard fuzzed by two
    # workers (they run the same seed, so the reports agree) counts once.
    from_workers: dict[tuple[str, str, int, int], TargetReport] = field(default_factory=dict)
    # Targets opened for Hypothesis tests of one case at a time (``check_case``), closed at the
    # end of the session.
    trials: dict[tuple[str, str, RunConfig], Trial] = field(default_factory=dict)
    # The model the summarisers write with (--compactcheck-model), one ledger for the session.
    model: ModelSlot | None = None
    # Transcripts read once per path, for every marker that names them.
    transcripts: dict[Path, tuple[Transcript, ...]] = field(default_factory=dict)
    # Usage errors met while parametrising, raised once collection ends: raised there, pytest
    # shows them as one line (exit 4), not as a collection error with a traceback.
    usage_errors: list[str] = field(default_factory=list)


SESSION = pytest.StashKey[LawSession]()
# How the plugin spells --require-level and --strict-review, in the outcomes it reports.
_REQUIRE_LEVEL = BY_KEY["require_level"].spelled("plugin")
_STRICT_REVIEW = BY_KEY["strict_review"].spelled("plugin")


class ReviewWarning(UserWarning):
    """A law held beside rulings on meaning the reading could not settle: items for a reader."""


def open_target(name: str, spec: str, view: View | None, calls: Calls, config: RunConfig) -> Target:
    """The target ``spec`` names, resolved, under its stable ``name``."""
    target = resolve(
        spec,
        view=view,
        calls=calls,
        budget=config.budget,
        format=config.format,
        model=config.model,
    )
    target.name = name
    return target


def _shown(path: Path, root: Path) -> str:
    """A corpus entry's path as the rootdir sees it (the same on every checkout), else whole."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _replay_command(path: Path, root: Path, here: Path) -> str:
    """The command that replays a corpus entry: from the rootdir, where its target resolves."""
    command = f"compactcheck replay {shlex.quote(_shown(path, root))}"
    if here.resolve() != root.resolve():
        command = f"cd {shlex.quote(str(root))} && {command}"
    return command


@dataclass(frozen=True)
class LawCase:
    """One invariant of one target on one view; ``check()`` fails the test on a violation."""

    target: str
    view: View
    invariant: str
    config: RunConfig
    calls: Calls
    session: LawSession = field(compare=False, repr=False)
    # What ``target`` is resolved from (a py: file by its absolute path).
    spec: str = ""
    # --compactcheck-require-level: laws above it fail no test.
    require_level: int | None = None
    # Where replay commands are run from: the rootdir; and where pytest was started.
    root: Path = field(default=Path(), compare=False, repr=False)
    here: Path = field(default=Path(), compare=False, repr=False)
    # --compactcheck-workers: above 1, the target is fuzzed in a pool of that many processes.
    workers: int = 1
    # --compactcheck-in-flight: shards at once, as threads (of this process or of the pool's).
    in_flight: int | None = None

    @property
    def test_id(self) -> str:
        """The stable test id: target, view, invariant, and the shard when there are several."""
        shard = self.config.shard
        suffix = f"-shard{shard.index}of{shard.count}" if shard.count > 1 else ""
        return f"{self.target}-{self.view}-{self.invariant}{suffix}"

    @property
    def lanes(self) -> int:
        """How many shards of the target run at once (``run_pooled`` cuts the budget for them)."""
        return max(self.workers, self.in_flight or 1)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints a failing test's arguments: the law, not the whole session's state.
        printer.text(f"<compactcheck law {self.test_id}>")

    def _open(self) -> Target:
        return open_target(
            self.target, self.spec or self.target, self.view, self.calls, self.config
        )

    def result(self) -> InvariantResult:
        """This invariant's result (the target is fuzzed once per session, for all laws)."""
        key = (self.target, self.view, self.config)
        report = self.session.reports.get(key)
        if report is None:
            report = self.session.reports[key] = self._fuzzed()
        return next(r for r in report.results if r.invariant == self.invariant)

    def _fuzzed(self) -> TargetReport:
        if self.lanes > 1:
            # Each worker (or lane) resolves its own target: none is opened here.
            return run_pooled(
                self.target,
                self.view,
                self.config,
                workers=self.workers,
                calls=self.calls,
                spec=self.spec,
                in_flight=self.in_flight,
            )
        target = self._open()
        try:
            return run_target(target, self.view, self.config)
        finally:
            target.close()

    def cases(self) -> SearchStrategy[Case]:
        """The histories this law is judged on, for a Hypothesis test of your own (one that
        ``hypothesis fuzz`` can fuzz): draw one and hand it to ``check_case``."""
        return cases(self.config.rounds, self.view, self.config.malformed, self.config.format)

    def trial(self) -> Trial:
        """The target opened for ``check_case``, once per session: the first call starts its
        worker process (the plugin calls it while setting the test up, outside the time
        Hypothesis allows each case)."""
        key = (self.target, self.view, self.config)
        trial = self.session.trials.get(key)
        if trial is None:
            trial = self.session.trials[key] = Trial(self._open(), self.view, self.config)
        return trial

    def check_case(self, case: Case) -> None:
        """Run one history through the target and judge this law on every round.

        A violation is written to the crash corpus first (``compactcheck replay`` re-runs it;
        each later, smaller failure of the law replaces it), then raised as an AssertionError.
        """
        example = self.trial().judge(self.invariant, case)
        if example is not None:
            raise AssertionError(self.failure(example))

    def entry(self, example: Counterexample) -> Path | None:
        """The corpus entry of a violation, where it is once the session ends."""
        if not example.corpus_file:
            return None
        entry = Path(example.corpus_file)
        if self._kept_apart:
            # The best of the shards' entries is merged into the corpus itself.
            return self.config.home_corpus_dir / entry.name
        return entry

    @property
    def _kept_apart(self) -> bool:
        """Whether this case's corpus entries wait in a folder of their own until the session
        ends (a shard's, or an xdist worker's pool's), to be merged into the corpus then."""
        return self.config.corpus_dir != self.config.home_corpus_dir

    def failure(self, example: Counterexample) -> str:
        """What the CLI shows of a violation: the because line, seed, round, history size,
        witness, what the compactor returned, the corpus entry and how to replay it."""
        config = self.config
        seed = f"seed {config.whole_run_seed}"
        if config.shard.count > 1:
            seed += f" (shard {config.shard.label}, seed {config.seed})"
        if self.lanes > self.workers:
            # The histories the seed names depend on how the lanes cut the budget.
            seed += f" with --compactcheck-in-flight {self.lanes}"
        elif self.workers > 1:
            # The histories the seed names depend on how the pool cut the budget.
            seed += f" with --compactcheck-workers {self.workers}"
        entry = self.entry(example)
        corpus = replay = None
        if entry is not None:
            merged = " (merged from the shards when the session ends)"
            corpus = _shown(entry, self.root) + (merged if self._kept_apart else "")
            replay = _replay_command(entry, self.root, self.here)
        shown = violation_text(
            f"{self.invariant} broken by {self.target} [{self.view}]",
            example,
            seed=seed,
            limit=4000,
            corpus=corpus or "",
            replay=replay,
        )
        # An entry that could not be written is said in one line, as the CLI says it.
        report = self.session.reports.get((self.target, self.view, self.config))
        # The engine says it "not written: the corpus entry of LAW: ..." (engine/witnesses.py).
        mine = f"{UNWRITTEN_PREFIX}the corpus entry of {self.invariant}: "
        unwritten = [line for line in report.errors if line.startswith(mine)] if report else []
        return "\n".join([shown, *(safe_line(line, 2000) for line in unwritten)])

    def check(self) -> InvariantResult:
        """Fail on a violation, error on an errored target, skip what could not be judged.

        With ``require_level``, a violation of a law above it is an expected failure (xfail),
        and a law at or below it that was not judged (or is waived) fails, as the CLI's gate.
        """
        result = self.result()
        decided = law_outcome(
            result, self.require_level, _REQUIRE_LEVEL, self.config.strict_review, _STRICT_REVIEW
        )
        reason, example = safe_line(decided.reason, 2000), decided.example
        if decided.outcome == "expected failure":
            entry = self.entry(example) if example is not None else None
            replay = f"; replay: {_replay_command(entry, self.root, self.here)}" if entry else ""
            pytest.xfail(reason + replay)
        if decided.outcome == "failed":
            shown = self.failure(example) if example is not None else f"{self.target} {reason}"
            if example is not None and example is result.counterexample and result.other_ways:
                # A law broken in several ways: each way's witness, as the CLI shows them.
                shown = "\n\n".join(
                    f"{way_note(result, one)}\n{self.failure(one)}"
                    for one in (example, *result.other_ways)
                )
            if result.review and example is None:
                shown = "\n".join([shown, *review_lines(result)])
            pytest.fail(shown, pytrace=False)
        if decided.outcome == "skipped":
            pytest.skip(reason)
        if result.review:
            # Held, with items a reader must see: pytest lists them in its warnings summary.
            lines = review_lines(result)
            warnings.warn(
                ReviewWarning(
                    f"{self.invariant} on {self.target} [{self.view}]: " + "\n".join(lines)
                ),
                stacklevel=2,
            )
        return result
