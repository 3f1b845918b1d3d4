"""The witnesses a search keeps: each broken law's failing round, written to the crash corpus.

A write that fails (a full disk, a read-only folder, a file where the folder should be) is
caught here, never raised into Hypothesis's test function, and said in one line; the entry stays
in memory, in the run's report. At the end of the run every entry it wrote is looked for again,
and one that is gone (a compactor that deleted the corpus) is written again from memory.
"""

from __future__ import annotations

from pathlib import Path

from compactcheck.base.errors import CompactcheckError, OutputFileError
from compactcheck.corpus.entry import CorpusEntry, RerunVerdict, note_reproduced, write_entry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.recording import Recorder
from compactcheck.harness import RoundOutcome
from compactcheck.invariants import Finding, Invariant, View
from compactcheck.invariants.ways import way_of
from compactcheck.report.model import UNWRITTEN_PREFIX
from compactcheck.targets.registry import Target

# A law and one way it was broken (``invariants.ways``): each has its own witness and entry.
Slot = tuple[str, str]


class Witnesses:
    """One target's corpus entries on one view, by law and way, named as the run's recording
    says."""

    def __init__(self, target: Target, view: View, config: RunConfig, recorder: Recorder) -> None:
        self.target = target
        self.view = view
        self.config = config
        self.recorder = recorder
        # The latest entry written for each law and way.
        self.paths: dict[Slot, Path] = {}
        # Each law and way's latest entry as written, to write again if its file goes.
        self.kept: dict[Slot, CorpusEntry] = {}
        # For each law and way whose latest entry could not be written, the line that says so.
        self._unwritten: dict[Slot, str] = {}

    def corpus(self, first_ways: dict[str, str]) -> dict[str, Path]:
        """The entry of each law's first way (``first_ways``: the one its verdict shows first),
        where it was written."""
        slots = ((law, (law, way)) for law, way in first_ways.items())
        return {law: self.paths[slot] for law, slot in slots if slot in self.paths}

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
            way=way_of(finding.violations[0]) or None,
            output=outcome.output,
            shrunk=shrunk,
            model=self.target.model.spec if self.target.model is not None else None,
        )

    def record(
        self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool
    ) -> Path | None:
        """Write a failing round to the crash corpus, named as the run's recording says; None
        when it could not be written (said in ``unwritten``)."""
        entry = self.entry(law, outcome, finding, shrunk)
        witness = finding.violations[0].witness
        slot = (law.id, entry.way or "")
        self.kept[slot] = entry
        try:
            path = self.recorder.write(self.config.corpus_dir, entry, witness)
        except OutputFileError as error:
            self.paths.pop(slot, None)
            self._failed(slot, error)
            return None
        # A later entry of the way written: the earlier one that was not is not missed.
        self._unwritten.pop(slot, None)
        self.paths[slot] = path
        return path

    @property
    def unwritten(self) -> list[str]:
        """One line for each law whose latest entry could not be written, for the report."""
        return list(self._unwritten.values())

    def note_reproduced(self, law: str, way: str, reproduced: RerunVerdict) -> None:
        """Add what the re-runs of a law's round of one way showed to its entry, in memory and
        on disk."""
        slot = (law, way)
        entry = self.kept.get(slot)
        if entry is not None and entry.reproduced != "flaky":
            self.kept[slot] = entry.model_copy(update={"reproduced": reproduced})
        path = self.paths.get(slot)
        if path is None or not path.is_file():
            return
        try:
            note_reproduced(path, reproduced)
        except CompactcheckError as error:
            self._failed(slot, error)

    def restore(self) -> int:
        """Write again, from memory, each entry of this run that is no longer on disk; how many
        were gone."""
        gone = 0
        for slot, path in self.paths.items():
            if path.is_file():
                continue
            gone += 1
            try:
                write_entry(path.parent, self.kept[slot], path)
            except OutputFileError as error:
                self._failed(slot, error)
        return gone

    def _failed(self, slot: Slot, error: CompactcheckError) -> None:
        self._unwritten[slot] = f"{UNWRITTEN_PREFIX}the corpus entry of {slot[0]}: {error}"
