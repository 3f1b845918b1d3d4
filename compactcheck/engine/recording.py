"""Where a run keeps what it finds: the crash corpus entry of each broken law.

A plain run names an entry after its target, view and law (one per law, the shrunk one
replacing the first found). A campaign names entries by witness signature instead, so that
distinct bugs of one law each keep theirs (``scale.campaign``). Both are a ``Recording``: a
picklable description that starts one ``Recorder`` per target run, so that it crosses into
worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from compactcheck.corpus.entry import CorpusEntry, write_entry


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


@dataclass(frozen=True)
class _ByLaw:
    def write(self, directory: Path, entry: CorpusEntry, witness: Sequence[Any]) -> Path:
        del witness
        return write_entry(directory, entry)

    @property
    def discarded(self) -> tuple[Path, ...]:
        return ()


@dataclass(frozen=True)
class ByLaw:
    """One entry per (target, view, law): the default of ``run`` and of the pytest plugin."""

    # Shards of one target would overwrite each other's entry of a law.
    separate_pieces: bool = True

    def start(self) -> Recorder:
        """The recorder (stateless)."""
        return _ByLaw()
