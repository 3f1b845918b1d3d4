"""Replay the crash corpus: is each recorded failure fixed, still failing, or not shown fixed?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from compactcheck.backends.ahead import answered_ahead
from compactcheck.base.call_law import CALL_ANSWERED, call_finding, call_law
from compactcheck.base.errors import CompactcheckError
from compactcheck.base.loading import is_file_spec
from compactcheck.corpus.entry import corpus_files, load_entry
from compactcheck.corpus.location import project_root
from compactcheck.invariants import VIEWS, Invariant, UnknownInvariantError, View, select
from compactcheck.invariants.formats import CHAT, Format, check_format
from compactcheck.models import ModelError, ModelSlot, check_name
from compactcheck.models.ledger import run_ledger
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target, resolve
from compactcheck.verdicts import ReplayVerdict

# A flaky finding broke its law in at least one of four calls (the one that found it and three
# re-runs): at that rate it recurs within 25 tries with probability 1 - 0.75**25 > 0.999.
FLAKY_TRIES = 25


@dataclass(frozen=True)
class ReplayResult:
    """What replaying one corpus entry showed."""

    path: Path
    target: str
    view: str
    invariant: str
    verdict: ReplayVerdict
    detail: str
    format: str = ""
    """The wire format of the entry's round (messages view; '' where it has none)."""


@dataclass(frozen=True)
class ModelTerms:
    """How a replay treats the model of an entry recorded with one (``replay --model ...``)."""

    # Another model than the one recorded; None: the recorded one.
    name: str | None = None
    # Default: .compactcheck/models beside the entry's corpus folder.
    cache_dir: Path | None = None
    max_calls: int | None = None
    max_tokens: int | None = None
    offline: bool = False
    # The file the replay counts its calls and tokens in, one for every entry replayed.
    ledger: Path | None = None

    def __post_init__(self) -> None:
        if self.ledger is None and (self.max_calls, self.max_tokens) != (None, None):
            object.__setattr__(self, "ledger", run_ledger())

    def slot(self, recorded: str | None, path: Path) -> ModelSlot | None:
        """The slot an entry at ``path`` is replayed with; None for one recorded without."""
        name = self.name or (_recorded_model(recorded, path) if recorded is not None else None)
        if name is None:
            return None
        slot = ModelSlot(
            name,
            cache_dir=self.cache_dir,
            max_calls=self.max_calls,
            max_tokens=self.max_tokens,
            ledger=self.ledger,
            offline=self.offline,
        )
        # An entry's corpus is its folder: the cache sits beside it, as the run that wrote it had.
        return replace(slot, cache_dir=slot.cache_for(path.parent))


@dataclass(frozen=True)
class _Recorded:
    """One loaded entry, the law it names and the target it is replayed against."""

    path: Path
    data: dict[str, Any]
    law: Invariant
    target: str
    view: View
    format: Format
    model: ModelSlot | None

    @property
    def tries(self) -> int:
        """How often its round is re-run: a flaky finding may not recur at the first try."""
        return FLAKY_TRIES if self.data.get("reproduced") == "flaky" else 1

    # The target as the table shows it: the entry's own name, or the one --target gave.
    shown: str

    def result(self, verdict: ReplayVerdict, detail: str) -> ReplayResult:
        # Only a messages round is in a wire format.
        format = self.format if self.view == "messages" else ""
        return ReplayResult(
            self.path, self.shown, self.view, self.data["invariant"], verdict, detail, format
        )


def replay_entry(
    path: Path,
    *,
    calls: Calls | None = None,
    models: ModelTerms | None = None,
    target: str | None = None,
) -> ReplayResult:
    """Re-run one entry's recorded round against its target and re-judge its law.

    An entry recorded with a model is replayed with it, its answers read from the model cache
    (``models`` says where, and whether a request not recorded may be sent).
    """
    [result] = replay_entries([path], calls=calls, models=models, target=target)
    return result


def replay(
    location: Path,
    *,
    calls: Calls | None = None,
    models: ModelTerms | None = None,
    target: str | None = None,
) -> list[ReplayResult]:
    """Replay every entry at a path (a file or a corpus folder).

    A file named on its own that is not a corpus entry is bad input (``InputFileError``, one
    line); a broken file found in a folder keeps its row, skipped with its reason, beside the
    entries that replay.
    """
    paths = corpus_files(location)
    if location.is_file():
        load_entry(location)
    return replay_entries(paths, calls=calls, models=models, target=target)


def replay_entries(
    paths: Sequence[Path],
    *,
    calls: Calls | None = None,
    models: ModelTerms | None = None,
    target: str | None = None,
) -> list[ReplayResult]:
    """Replay entries, in order; ``target`` replaces the target they name.

    The entries of one target (and model) share one start of it, and their requests go to it
    pipelined (answers ahead): they do not depend on one another. An entry that cannot be read
    is skipped, with its reason, and the others are replayed.
    """
    results: dict[Path, ReplayResult] = {}
    groups: dict[tuple[str, View, Format, str, str], list[_Recorded]] = {}
    for path in paths:
        try:
            data = load_entry(path)
        except CompactcheckError as error:
            results[path] = ReplayResult(path, "", "", "", "skipped", str(error))
            continue
        try:
            recorded = _recorded(path, data, models or ModelTerms(), target)
        except (CompactcheckError, UnknownInvariantError) as error:
            # A law, view or format this compactcheck does not know: the entry cannot be read.
            results[path] = ReplayResult(
                path, data["target"], data["view"], data["invariant"], "skipped", f"{path}: {error}"
            )
            continue
        slot = recorded.model
        key = (
            recorded.target,
            recorded.view,
            recorded.format,
            slot.name if slot is not None else "",
            str(slot.cache_dir) if slot is not None else "",
        )
        groups.setdefault(key, []).append(recorded)
    for (name, view, format, _, _), entries in groups.items():
        try:
            resolved = resolve(name, view=view, calls=calls, format=format, model=entries[0].model)
        except (CompactcheckError, UnknownInvariantError) as error:
            results.update(
                (entry.path, entry.result("errored", str(error) + _how_to(name, target, entry)))
                for entry in entries
            )
            continue
        try:
            if view not in resolved.drivers:
                for entry in entries:
                    results[entry.path] = entry.result(
                        "errored", f"{name} no longer handles the {view} view"
                    )
                continue
            runs = {entry.path: partial(_replayed, resolved, entry) for entry in entries}
            # A flaky entry's tries are the same call given several times: sent in one batch.
            ahead = [runs[entry.path] for entry in entries for _ in range(entry.tries)]
            with answered_ahead(resolved.backend, ahead):
                for entry in entries:
                    tried = [runs[entry.path]() for _ in range(entry.tries)]
                    results[entry.path] = _verdict(entry, tried)
        finally:
            resolved.close()
    return [results[path] for path in paths]


def recorded_rounds(
    corpus_dir: Path, target: str, view: View, format: Format, models: tuple[str, ...]
) -> list[dict[str, Any]]:
    """The corpus entries of one target, view and format, those recorded with one of ``models``
    first (their answers are in the model cache), to run ahead of anything generated."""
    fitting: list[dict[str, Any]] = []
    for path in corpus_files(corpus_dir) if corpus_dir.is_dir() else []:
        try:
            data = load_entry(path)
            ours = data.get("target") == target and data.get("view") == view
            if ours and _format_of(data) == format:
                fitting.append(data)
        except CompactcheckError:
            # An entry that cannot be read (or names no format we know) is not run ahead of
            # the search: `compactcheck replay` says what is wrong with it.
            continue
    return sorted(fitting, key=lambda data: data.get("model", "") not in models)


def _format_of(data: dict[str, Any]) -> Format:
    """The wire format of an entry's round (a messages round in a provider format says which)."""
    recorded = data.get("input")
    if isinstance(recorded, dict) and "format" in recorded:
        return check_format(str(recorded["format"]))
    return CHAT


def _recorded(
    path: Path, data: dict[str, Any], models: ModelTerms, target: str | None
) -> _Recorded:
    view, invariant, format = data["view"], data["invariant"], _format_of(data)
    if view not in VIEWS:
        raise CompactcheckError(f"expected a view ({', '.join(VIEWS)}), found {view!r}")
    # The laws of the entry's format: a format's structural laws judge no other format.
    laws = [call_law(view)] if invariant == CALL_ANSWERED else select(view, [invariant], (), format)
    if not laws:
        raise CompactcheckError(
            f"{invariant} does not judge the {format} format this entry's round is in; "
            "`compactcheck invariants` lists the formats of each law"
        )
    model = models.slot(data.get("model"), path)
    name = target or _located(data["target"], path)
    return _Recorded(path, data, laws[0], name, view, format, model, target or data["target"])


def _recorded_model(recorded: str, path: Path) -> str:
    """The ``--model`` an entry was recorded with, as this replay can load it; a one-line
    CompactcheckError when it cannot be: its file is gone, or the entry holds the model's own
    name rather than a --model (as older entries of a ``py:`` model do)."""
    try:
        check_name(recorded)
    except ModelError:
        raise CompactcheckError(
            f"recorded with the model {recorded!r}, which the entry names by the model's own name, "
            "not by the --model that loads it; replay it with that --model (e.g. --model "
            f"py:FILE.py:NAME for a model of your own named {recorded!r})"
        ) from None
    if not recorded.startswith("py:"):
        return recorded
    located = _located(recorded, path)
    module_part = located.removeprefix("py:").rpartition(":")[0]
    if is_file_spec(module_part) and not Path(module_part).is_file():
        raise CompactcheckError(
            f"recorded with the model {recorded}, but {module_part} is not there (looked in "
            "the working directory and the corpus's project); put the file back, or replay "
            "with --model NAME to name the model"
        )
    return located


def _located(name: str, path: Path) -> str:
    """A ``py:FILE.py:NAME`` target as this replay can load it: its file taken from the working
    directory, as a run names it, or else from the project the corpus at ``path`` is in (where
    ``fuzz()`` names it from), so that a corpus replays from anywhere in its checkout."""
    module_part, _, attribute = name.removeprefix("py:").rpartition(":")
    if not name.startswith("py:") or not module_part or not is_file_spec(module_part):
        return name
    if Path(module_part).is_absolute() or Path(module_part).is_file():
        return name
    root = project_root(path.parent)
    if root is not None and (root / module_part).is_file():
        return f"py:{root / module_part}:{attribute}"
    return name


def _how_to(name: str, override: str | None, entry: _Recorded) -> str:
    """What to do about a ``py:`` target a replay cannot load: name another with --target."""
    if override is not None or not name.startswith("py:"):
        return ""
    module_part, _, attribute = name.removeprefix("py:").rpartition(":")
    why = ""
    if not attribute.isidentifier():
        why = (
            f"; {attribute} cannot be loaded by name (a lambda, a closure or a method handed "
            "to compactcheck.fuzz())"
        )
    elif module_part == "__main__":
        why = f"; {attribute} was defined in an interactive session, not in a file"
    elif not module_part:
        why = f"; the entry names no file or module that defines {attribute}"
    # A callable that cannot be named needs a module-level one that does the same; a file
    # that moved, its new place.
    whom = "a module-level compactor that does the same" if why else "the compactor where it is"
    command = f"compactcheck replay {entry.path} --target py:FILE.py:NAME"
    return f"{why}; replay it against {whom}: {command}"


def _verdict(entry: _Recorded, tried: Sequence[ReplayResult]) -> ReplayResult:
    """One entry's verdict from its tries: a failure in any of them is still a failure."""
    failing = [result for result in tried if result.verdict == "still failing"]
    if len(tried) == 1:
        return tried[0]
    if failing:
        detail = f"failed in {len(failing)} of {len(tried)} tries: {failing[0].detail}"
        return replace(failing[0], detail=detail)
    if all(result.verdict in ("errored", "not judged") for result in tried):
        # Not one try judged the law: that is what the entry shows, not a failure unseen.
        return tried[0]
    return entry.result(
        "not reproduced",
        f"not reproduced in {len(tried)} tries, but the run found it flaky: not proof of a fix "
        "(delete the entry once its cause is fixed)",
    )


def _replayed(target: Target, entry: _Recorded) -> ReplayResult:
    """Re-run one entry's recorded round on a fresh driver of its target; re-judge its law."""
    law, view, result = entry.law, entry.view, entry.result
    try:
        outcome = target.drivers[view]().replay(entry.data)
    except (KeyError, TypeError, ValueError) as error:
        return result("errored", f"the entry's input no longer fits the {view} view: {error}")
    if law.id == CALL_ANSWERED:
        call = call_finding(outcome)
        if call is None:
            return result("errored", f"round was {outcome.status}: {outcome.reason}")
        if call.holds:
            return result("fixed", "the call answers on the recorded input")
        return result("still failing", call.violations[0].because)
    if outcome.status == "unchanged" and not outcome.judges(law):
        # An unchanged history keeps every content law trivially: that is not a fix of the law.
        return result(
            "not judged",
            f"no longer compacts this history (hands it back unchanged): {law.id} not judged",
        )
    if not outcome.judges(law):
        return result("errored", f"round was {outcome.status}: {outcome.reason}")
    finding = outcome.judge(law)
    if finding.holds:
        return result("fixed", f"{entry.data['invariant']} holds on the recorded history")
    return result("still failing", finding.violations[0].because)
