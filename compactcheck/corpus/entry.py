"""The crash corpus: every failing history, on disk the moment it is found, version-stable JSON."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compactcheck.atomic import write_text_atomically
from compactcheck.errors import InputFileError

CORPUS_VERSION = 1
DEFAULT_CORPUS_DIR = Path(".compactcheck") / "corpus"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_ENTRY_BYTES = 50 * 1024 * 1024


def entry_path(directory: Path, target: str, view: str, invariant: str) -> Path:
    """Where the entry of one (target, view, invariant) lives; never outside ``directory``."""
    readable = _UNSAFE.sub("_", f"{target}--{view}--{invariant}").strip("._")[:80] or "entry"
    digest = hashlib.sha256(f"{target}\0{view}\0{invariant}".encode()).hexdigest()[:10]
    return directory / f"{readable}-{digest}.json"


@dataclass(frozen=True)
class CorpusEntry:
    """One failing round: enough to re-run it against the same target."""

    target: str
    view: str
    invariant: str
    seed: int
    toolkit_version: str
    round: int
    input: Any
    facts: dict[str, Any]
    because: str
    output: Any = None
    shrunk: bool = False

    def to_json_data(self) -> dict[str, Any]:
        """The entry as JSON data."""
        return {
            "corpusVersion": CORPUS_VERSION,
            "target": self.target,
            "view": self.view,
            "invariant": self.invariant,
            "seed": self.seed,
            "toolkitVersion": self.toolkit_version,
            "round": self.round,
            "shrunk": self.shrunk,
            "because": self.because,
            "facts": self.facts,
            "input": self.input,
            "output": self.output,
        }


def write_entry(directory: Path, entry: CorpusEntry) -> Path:
    """Write (or replace) an entry atomically; returns its path."""
    path = entry_path(directory, entry.target, entry.view, entry.invariant)
    write_text_atomically(path, json.dumps(entry.to_json_data(), indent=1, ensure_ascii=False))
    return path


_REQUIRED = {"target": str, "view": str, "invariant": str, "round": int, "facts": dict}


def load_entry(path: Path) -> dict[str, Any]:
    """Read and check one entry; a bad file raises InputFileError naming it."""
    try:
        if path.stat().st_size > _MAX_ENTRY_BYTES:
            raise InputFileError(
                f"{path}: larger than {_MAX_ENTRY_BYTES} bytes; not a corpus entry"
            )
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputFileError(f"{path}: cannot read the file ({error.strerror})") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputFileError(f"{path}: expected a JSON corpus entry, found invalid JSON") from error
    if not isinstance(data, dict) or data.get("corpusVersion") != CORPUS_VERSION:
        raise InputFileError(f"{path}: expected a corpus entry with corpusVersion {CORPUS_VERSION}")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            raise InputFileError(f"{path}: corpus entry lacks {key!r} ({kind.__name__})")
    if "input" not in data:
        raise InputFileError(f"{path}: corpus entry lacks 'input'")
    return data


def corpus_files(location: Path) -> list[Path]:
    """The entries at a path: the file itself, or every *.json in a folder, sorted."""
    if location.is_file():
        return [location]
    if location.is_dir():
        return sorted(p for p in location.glob("*.json") if not p.name.startswith("."))
    raise InputFileError(f"{location}: expected a corpus entry or folder, found nothing")
