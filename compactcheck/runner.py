"""The runner: fuzz one target on one view, judge every law, shrink each broken law's witness."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import HypothesisException
from pydantic import JsonValue

from compactcheck.corpus import DEFAULT_CORPUS_DIR, CorpusEntry, write_entry
from compactcheck.report import Counterexample, InvariantResult, TargetReport, Verdict
from compactcheck.targets import Target
from compactcheck.views import Case, Driver, RoundOutcome, cases
from invariants import Budget, Finding, Invariant, View, select

Profile = Literal["dev", "ci", "campaign"]
Progress = Callable[[str], None]


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

    def hypothesis_database(self) -> ExampleDatabase | None:
        """The example database of the profile: local in dev, none in ci."""
        if self.database is not None:
            return self.database
        if self.profile == "dev":
            return DirectoryBasedExampleDatabase(str(self.corpus_dir.parent / "hypothesis"))
        return None


@dataclass
class _Failure:
    outcome: RoundOutcome
    finding: Finding
    size: int


@dataclass
class _Tally:
    examples: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    exercised: Counter[str] = field(default_factory=Counter)
    compactions: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


class _BrokenLawError(Exception):
    """Raised inside a hunt so that Hypothesis shrinks the history that broke a law."""


def _history_size(outcome: RoundOutcome) -> int:
    data = outcome.input
    if isinstance(data, dict):
        for key in ("messages", "events", "log"):
            if isinstance(data.get(key), list):
                return len(data[key])
    return 0


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
        self.tally = _Tally()
        self.failures: dict[str, _Failure] = {}
        self.corpus: dict[str, Path] = {}

    def _record(
        self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool
    ) -> Path:
        assert outcome.facts is not None
        entry = CorpusEntry(
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
        path = write_entry(self.config.corpus_dir, entry)
        self.corpus[law.id] = path
        return path

    def explore(self) -> None:
        """Run the budget once, judging every law on every compacted round."""
        tally, laws = self.tally, self.laws

        @seed(self.config.seed)
        @_settings(self.config, (Phase.explicit, Phase.generate), "explore")
        @given(cases(self.config.rounds))
        def explore(case: Case) -> None:
            tally.examples += 1
            for outcome in self.driver.run(case):
                tally.statuses[outcome.status] += 1
                if outcome.timed_out:
                    tally.statuses["timed out"] += 1
                if outcome.reason:
                    tally.reasons[outcome.reason] += 1
                if not outcome.judged:
                    continue
                tally.compactions += 1
                for law in laws:
                    finding = outcome.judge(law)
                    tally.exercised[law.id] += finding.exercised
                    if not finding.holds and law.id not in self.failures:
                        self.failures[law.id] = _Failure(outcome, finding, _history_size(outcome))
                        # On disk before anything else can go wrong.
                        self._record(law, outcome, finding, shrunk=False)
                        self.progress(f"{self.target.name}: {law.id} broken, shrinking later")

        _digest(explore, f"explore:{self.target.name}:{self.view}")
        explore()

    def shrink(self, law: Invariant) -> None:
        """Search again for this law alone, letting Hypothesis shrink the history."""
        found: list[_Failure] = []

        @seed(self.config.seed)
        @_settings(self.config, (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink), "hunt")
        @given(cases(self.config.rounds))
        def hunt(case: Case) -> None:
            for outcome in self.driver.run(case):
                if not outcome.judged:
                    continue
                finding = outcome.judge(law)
                if not finding.holds:
                    found.append(_Failure(outcome, finding, _history_size(outcome)))
                    raise _BrokenLawError

        _digest(hunt, f"hunt:{self.target.name}:{self.view}:{law.id}")
        try:
            hunt()
        except _BrokenLawError:
            pass
        except HypothesisException as error:
            self.progress(f"{self.target.name}: shrinking {law.id} stopped: {error}")
        if found:
            # Hypothesis replays the minimal example last.
            self.failures[law.id] = found[-1]
            failure = found[-1]
            self._record(law, failure.outcome, failure.finding, shrunk=True)

    def reproduced(self, law: Invariant) -> Literal["deterministic", "flaky"]:
        """Re-run the shrunk round a few times: does it break the law every time?"""
        failure = self.failures[law.id]
        entry = {
            "round": failure.outcome.round,
            "input": failure.outcome.input,
            "facts": failure.outcome.facts.model_dump(mode="json") if failure.outcome.facts else {},
        }
        broke = 0
        for _ in range(3):
            outcome = self.driver.replay(entry)
            if outcome.judged and not outcome.judge(law).holds:
                broke += 1
        return "deterministic" if broke == 3 else "flaky"

    def result(self, law: Invariant) -> InvariantResult:
        """The verdict of one law."""
        tally = self.tally
        common: dict[str, Any] = {
            "invariant": law.id,
            "statement": law.statement,
            "examples": tally.examples,
            "exercised": tally.exercised[law.id],
            "compactions": tally.compactions,
            "errored": tally.statuses["errored"],
            "skipped": tally.statuses["skipped"],
        }
        failure = self.failures.get(law.id)
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
                reproduced=self.reproduced(law),
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
        declared = getattr(self.driver, "budget", None) or self.config.budget
        if law.id == "budget_respected" and declared is None:
            return "skipped", "not applicable: no budget was declared (--budget N)"
        statuses = tally.statuses
        common_reason = tally.reasons.most_common(1)[0][0] if tally.reasons else ""
        if tally.compactions == 0:
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
        exercised = tally.exercised[law.id]
        if exercised == 0:
            return "unknown", f"held on {tally.compactions} compactions, none of which exercised it"
        return "pass", f"held on {tally.compactions} compactions; {exercised} exercised it"

    def report(self) -> TargetReport:
        """Explore, shrink what broke, and report."""
        started = time.monotonic()
        self.progress(
            f"{self.target.name} [{self.view}]: exploring {self.config.max_examples} histories"
        )
        self.explore()
        for law in self.laws:
            if law.id in self.failures and self.config.shrink:
                self.progress(f"{self.target.name} [{self.view}]: shrinking {law.id}")
                self.shrink(law)
        results = [self.result(law) for law in self.laws]
        return TargetReport(
            target=self.target.name,
            view=self.view,
            implementation=self.target.implementation,
            results=results,
            stderr=self.target.stderr_tail()[-4000:],
            seconds=round(time.monotonic() - started, 3),
        )


def run_target(
    target: Target, view: View, config: RunConfig, progress: Progress | None = None
) -> TargetReport:
    """Fuzz one target on one view and report every law's verdict."""
    return TargetRun(target, view, config, progress).report()
