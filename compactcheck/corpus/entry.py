"""The crash corpus: every failing history, on disk the moment it is found, version-stable JSON."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import ConfigDict, Field, ValidationError

from compactcheck.base.atomic import create_text_exclusively, write_text_atomically
from compactcheck.base.errors import InputFileError, one_line
from compactcheck.invariants import WireModel

CORPUS_VERSION: Final = 1
# What re-running a shrunk round showed (the report's values, less its "not_checked").
RerunVerdict = Literal["deterministic", "flaky", "errored"]
DEFAULT_CORPUS_DIR = Path(".compactcheck") / "corpus"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_ENTRY_BYTES = 50 * 1024 * 1024


def entry_path(directory: Path, entry: CorpusEntry) -> Path:
    """Where an entry lives, named by what failed and on which input; never outside ``directory``.

    A readable target, view and law, then a digest of what makes the witness this one: its
    round's input, the round, and the model that wrote the target's summaries (not the seed,
    the time or what the target answered). Two runs that find the same witness name one file;
    two that find different witnesses of one law name two.
    """
    readable = _UNSAFE.sub("_", f"{entry.target}--{entry.view}--{entry.invariant}")
    readable = readable.strip("._")[:80] or "entry"
    witness = [entry.target, entry.view, entry.invariant, entry.round, entry.model, entry.input]
    canonical = json.dumps(witness, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return directory / f"{readable}-{digest}.json"


def _version_required(schema: dict[str, Any]) -> None:
    # The constructor fills in the version, but a file must state it: a loader tells versions
    # apart by it before it reads anything else.
    schema["required"] = ["corpusVersion", *schema.get("required", [])]


class CorpusEntry(WireModel):
    """One failing round: enough to re-run it against the same target."""

    # Unknown keys are ignored and only what a replay needs is required, as the loader of
    # corpusVersion 1 always had it: seed, toolkitVersion, shrunk, because and output are for the
    # reader, and a file without them still loads.
    model_config = ConfigDict(extra="ignore", json_schema_extra=_version_required)

    corpus_version: Literal[1] = Field(
        default=CORPUS_VERSION, description="the corpus entry format's version; always 1"
    )
    target: str = Field(description="the target that failed, as given to --target")
    view: str = Field(description="the view it was fuzzed through: messages, snapshot or session")
    invariant: str = Field(description="the id of the broken law (or call_answered)")
    seed: int | None = Field(default=None, description="the seed of the run that found it")
    toolkit_version: str = Field(default="", description="the compactcheck that found it")
    round: int = Field(description="the failing round of the recorded case, from 1")
    shrunk: bool = Field(default=False, description="whether the history was shrunk")
    because: str = Field(default="", description="the broken law's reason, one line")
    way: str | None = Field(
        default=None,
        description="which of its law's distinct ways the witness shows (the kind the law gave "
        "the violation, e.g. dropped or superseded reasserted); absent: the law's only way, or "
        "an older entry",
    )
    facts: dict[str, Any] = Field(description="the facts the law judged the round by")
    input: Any = Field(description="what the target was handed in that round (view-shaped JSON)")
    output: Any = Field(default=None, description="what the target answered, null if nothing")
    model: str | None = Field(
        default=None,
        description="the --model that wrote the target's summaries, as it loads the model, e.g. "
        "openai:gpt-4o-mini or py:my_model.py:model; replay asks it again, or reads its recorded "
        "answers with --offline (an entry that holds a model's own name instead is replayed "
        "with --model naming it); null: the target's own echo",
    )
    reproduced: RerunVerdict | None = Field(
        default=None,
        description="the run's re-runs of the round: it broke the law every time "
        "(deterministic), only some times (flaky: replay tries it several times and never calls "
        "it fixed), or no re-run answered (errored); absent: not checked",
    )

    def to_json_data(self) -> dict[str, Any]:
        """The entry as JSON data, every field included, input and output as recorded."""
        # Python mode, so that input and output reach json.dumps exactly as the run recorded them.
        # Optional slots left empty are not written: such an entry reads as it always did.
        empty = {name for name in ("model", "reproduced", "way") if getattr(self, name) is None}
        return self.model_dump(by_alias=True, exclude=empty or None)


def write_entry(directory: Path, entry: CorpusEntry, path: Path | None = None) -> Path:
    """Write (or replace) an entry atomically, at ``path`` or where its content names it;
    returns its path."""
    path = path or entry_path(directory, entry)
    write_text_atomically(path, entry_text(entry))
    return path


def add_entry(directory: Path, entry: CorpusEntry) -> tuple[Path, bool]:
    """Add an entry where its content names it, unless that file is there already (the same
    witness, found before or beside this run): its path, and whether this call wrote it."""
    path = entry_path(directory, entry)
    return path, create_text_exclusively(path, entry_text(entry))


def entry_text(entry: CorpusEntry) -> str:
    """An entry's file content."""
    return json.dumps(entry.to_json_data(), indent=1, ensure_ascii=False)


def note_reproduced(path: Path, reproduced: RerunVerdict) -> None:
    """Add what the run's re-runs of its round showed to an entry already written."""
    entry = read_entry(path)
    # A campaign keeps a known failure's entry: once seen flaky, it may pass a replay by luck.
    if entry.reproduced != "flaky":
        write_entry(path.parent, entry.model_copy(update={"reproduced": reproduced}), path)


def read_entry(path: Path) -> CorpusEntry:
    """Read and validate one entry; a bad file raises InputFileError naming it."""
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
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply to be a corpus entry") from None
    # The version first, so that a newer format is named as such rather than as a broken field.
    if not isinstance(data, dict) or data.get("corpusVersion") != CORPUS_VERSION:
        raise InputFileError(f"{path}: expected a corpus entry with corpusVersion {CORPUS_VERSION}")
    try:
        # Strict, so that what loads is exactly what the shipped JSON Schema accepts.
        return CorpusEntry.model_validate(data, strict=True)
    except ValidationError as error:
        raise InputFileError(
            f"{path}: breaks the corpus entry schema at {one_line(error)}"
        ) from None


def load_entry(path: Path) -> dict[str, Any]:
    """Read and check one entry, as JSON data; a bad file raises InputFileError naming it."""
    return read_entry(path).to_json_data()


def corpus_files(location: Path) -> list[Path]:
    """The entries at a path: the file itself, or every *.json in a folder, sorted."""
    if location.is_file():
        return [location]
    if location.is_dir():
        return sorted(p for p in location.glob("*.json") if not p.name.startswith("."))
    raise InputFileError(f"{location}: expected a corpus entry or folder, found nothing")
