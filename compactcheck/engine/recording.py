"""Where a run keeps what it finds: the crash corpus entry of each broken law.

A plain run names an entry after its target, view and law and a digest of its witness
(``corpus.entry.entry_path``), so that runs, seeds, shards and workers add the witnesses they
find to one corpus, each distinct one once; the shrunk witness of each way a law broke in
(``invariants.ways``) takes the place of that way's first found, which the run removes if it
wrote it itself. A campaign names entries by witness
signature instead, so that distinct bugs of one law each keep theirs (``scale.campaign``).
Both are a ``Recording``: a picklable description that starts one ``Recorder`` per target run,
so that it crosses into worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from compactcheck.corpus.entry import CorpusEntry, add_entry


class Recorder(Protocol):
    """Writes the corpus entries of one target run."""

    def write(self, directory: Path, entry: CorpusEntry, witness: Sequence[Any]) -> Path:
        """Write ``entry`` (its witness given for naming) and say where it is."""
        ...

    @property
    def discarded(self) -> tuple[Path, ...]:
        """Entries this recorder wrote, gave up, and left for its caller to remove."""
        ...


class Recording(Protocol):
    """How a run names its corpus entries; ``start`` gives one target run its recorder."""

    @property
    def separate_pieces(self) -> bool:
        """Whether shards of one target, run side by side, need corpus folders of their own
        (merged at the end): true where two shards could write one file name."""
        ...

    def start(self) -> Recorder:
        """A fresh recorder for one target run."""
        ...


@dataclass
class _ByLaw:
    # The entry this recorder itself added for each law and way (``invariants.ways``), until a
    # newer witness of that way replaces it.
    mine: dict[tuple[str, str], Path] = field(default_factory=dict)

    def write(self, directory: Path, entry: CorpusEntry, witness: Sequence[Any]) -> Path:
        del witness
        path, added = add_entry(directory, entry)
        slot = (entry.invariant, entry.way or "")
        earlier = self.mine.pop(slot, None)
        if earlier is not None and earlier != path:
            # Only a file this run wrote: one found there may be another run's witness.
            earlier.unlink(missing_ok=True)
        if added or earlier == path:
            self.mine[slot] = path
        return path

    @property
    def discarded(self) -> tuple[Path, ...]:
        return ()


@dataclass(frozen=True)
class ByLaw:
    """One entry per (target, view, law) and distinct witness: the default of ``run`` and of
    the pytest plugin."""

    # Each shard keeps the entries it adds apart until the end, merged then (gather_corpora).
    separate_pieces: bool = True

    def start(self) -> Recorder:
        """A fresh recorder for one target run."""
        return _ByLaw()
