"""The corpus as a run found it, held in memory: what earlier runs found outlives a compactor
that deletes the corpus folder during the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import OutputFileError
from compactcheck.report.model import UNWRITTEN_PREFIX

# An entry larger than this is not read into memory (read_entry refuses it too).
_MAX_KEPT_BYTES = 50 * 1024 * 1024


@dataclass
class CorpusBackup:
    """The text of every entry in a corpus folder when a run started; ``restore`` writes back
    each one that is gone by the run's end."""

    directory: Path
    entries: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def read(cls, directory: Path) -> CorpusBackup:
        """Every entry file (``*.json``, not hidden) of ``directory``; none where it has none
        or cannot be read (a file that cannot be read is not one to keep)."""
        backup = cls(directory)
        try:
            paths = sorted(directory.glob("*.json"))
        except OSError:
            return backup
        for path in paths:
            if path.name.startswith("."):
                continue
            try:
                if path.is_file() and path.stat().st_size <= _MAX_KEPT_BYTES:
                    backup.entries[path] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        return backup

    def restore(self) -> tuple[int, list[str]]:
        """Write again each entry that is no longer on disk: how many were gone, and a line for
        each that could not be written."""
        gone = 0
        unwritten: list[str] = []
        for path, text in self.entries.items():
            if path.is_file():
                continue
            gone += 1
            try:
                write_text_atomically(path, text)
            except OutputFileError as error:
                unwritten.append(f"{UNWRITTEN_PREFIX}the corpus entry {path.name}: {error}")
        return gone, unwritten
