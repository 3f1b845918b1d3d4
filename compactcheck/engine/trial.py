"""One case of one law at a time: the engine's entry point for a Hypothesis test of the user's
own (the pytest plugin's ``check_case``), where Hypothesis draws, replays and shrinks the cases."""

from __future__ import annotations

from compactcheck.engine.config import RunConfig
from compactcheck.engine.results import witness_of
from compactcheck.engine.steering import history_size
from compactcheck.engine.tally import Failure
from compactcheck.engine.target_run import TargetRun
from compactcheck.harness import Case
from compactcheck.invariants import View
from compactcheck.report.model import Counterexample
from compactcheck.targets.registry import Target


class Trial:
    """A target opened on a view for judging cases one at a time; its corpus is the run's."""

    def __init__(self, target: Target, view: View, config: RunConfig) -> None:
        self._run = TargetRun(target, view, config)

    def judge(self, invariant: str, case: Case) -> Counterexample | None:
        """Run one case through the target: the witness of the first round that breaks the law
        ``invariant``, already written to the crash corpus (unshrunk: Hypothesis shrinks the
        case, and each smaller failure replaces the entry); None when every round held."""
        search = self._run.search
        law = next(law for law in self._run.judge.judging if law.id == invariant)
        for outcome in search.run_case(case):
            finding = self._run.judge.broken(outcome, law)
            if finding is not None:
                path = search.witnesses.record(law, outcome, finding, shrunk=False)
                failure = Failure(outcome, finding, history_size(outcome))
                # Hypothesis replays the failing case itself before it reports it.
                return witness_of(failure, str(path) if path else None, "not_checked")
        return None

    def close(self) -> None:
        """Close the target (its worker process, if it has one)."""
        self._run.target.close()
