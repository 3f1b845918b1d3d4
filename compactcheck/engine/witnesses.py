"""The witnesses a search keeps: each broken law's failing round, written to the crash corpus."""

from __future__ import annotations

from pathlib import Path

from compactcheck.corpus.entry import CorpusEntry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.recording import Recorder
from compactcheck.harness import RoundOutcome
from compactcheck.invariants import Finding, Invariant, View
from compactcheck.targets.registry import Target


class Witnesses:
    """One target's corpus entries on one view, law by law, named as the run's recording says."""

    def __init__(self, target: Target, view: View, config: RunConfig, recorder: Recorder) -> None:
        self.target = target
        self.view = view
        self.config = config
        self.recorder = recorder
        # The latest entry written for each law.
        self.corpus: dict[str, Path] = {}

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
            model=self.target.model.spec if self.target.model is not None else None,
        )

    def record(self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool) -> Path:
        """Write a failing round to the crash corpus, named as the run's recording says."""
        entry = self.entry(law, outcome, finding, shrunk)
        witness = finding.violations[0].witness
        path = self.recorder.write(self.config.corpus_dir, entry, witness)
        self.corpus[law.id] = path
        return path
