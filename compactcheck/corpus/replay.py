"""Replay the crash corpus: is each recorded failure fixed, still failing, or erroring?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal

from compactcheck.corpus.entry import corpus_files, load_entry
from compactcheck.engine.crash import CALL_ANSWERED, call_finding, call_law
from compactcheck.errors import CompactcheckError
from compactcheck.models import ModelSlot
from compactcheck.models.ledger import run_ledger
from compactcheck.targets.ahead import answered_ahead
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target, resolve
from invariants import Invariant, UnknownInvariantError, View, select
from invariants.formats import CHAT, Format, check_format

ReplayVerdict = Literal["fixed", "still failing", "errored"]


@dataclass(frozen=True)
class ReplayResult:
    """What replaying one corpus entry showed."""

    path: Path
    target: str
    view: str
    invariant: str
    verdict: ReplayVerdict
    detail: str


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
        name = self.name or recorded
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

    def result(self, verdict: ReplayVerdict, detail: str) -> ReplayResult:
        return ReplayResult(
            self.path, self.target, self.view, self.data["invariant"], verdict, detail
        )


def replay_entry(
    path: Path, *, calls: Calls | None = None, models: ModelTerms | None = None
) -> ReplayResult:
    """Re-run one entry's recorded round against its target and re-judge its law.

    An entry recorded with a model is replayed with it, its answers read from the model cache
    (``models`` says where, and whether a request not recorded may be sent).
    """
    [result] = replay_entries([path], calls=calls, models=models)
    return result


def replay(
    location: Path, *, calls: Calls | None = None, models: ModelTerms | None = None
) -> list[ReplayResult]:
    """Replay every entry at a path (a file or a corpus folder)."""
    return replay_entries(corpus_files(location), calls=calls, models=models)


def replay_entries(
    paths: Sequence[Path], *, calls: Calls | None = None, models: ModelTerms | None = None
) -> list[ReplayResult]:
    """Replay entries, in order. The entries of one target (and model) share one start of it,
    and their requests go to it pipelined (answers ahead): they do not depend on one another."""
    results: dict[Path, ReplayResult] = {}
    groups: dict[tuple[str, View, Format, str, str], list[_Recorded]] = {}
    for path in paths:
        data = load_entry(path)
        try:
            recorded = _recorded(path, data, models or ModelTerms())
        except (CompactcheckError, UnknownInvariantError) as error:
            results[path] = ReplayResult(
                path, data["target"], data["view"], data["invariant"], "errored", str(error)
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
            target = resolve(name, view=view, calls=calls, format=format, model=entries[0].model)
        except (CompactcheckError, UnknownInvariantError) as error:
            results.update((entry.path, entry.result("errored", str(error))) for entry in entries)
            continue
        try:
            if view not in target.drivers:
                for entry in entries:
                    results[entry.path] = entry.result(
                        "errored", f"{name} no longer handles the {view} view"
                    )
                continue
            runs = [partial(_replayed, target, entry) for entry in entries]
            with answered_ahead(target.backend, runs):
                results.update(
                    (entry.path, run()) for entry, run in zip(entries, runs, strict=True)
                )
        finally:
            target.close()
    return [results[path] for path in paths]


def recorded_rounds(
    corpus_dir: Path, target: str, view: View, format: Format, model: str
) -> list[dict[str, Any]]:
    """The corpus entries of one target, view and format, those recorded with ``model`` first
    (their answers are in the model cache), to run ahead of anything generated."""
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
    return sorted(fitting, key=lambda data: data.get("model") != model)


def _format_of(data: dict[str, Any]) -> Format:
    """The wire format of an entry's round (a messages round in a provider format says which)."""
    recorded = data.get("input")
    if isinstance(recorded, dict) and "format" in recorded:
        return check_format(str(recorded["format"]))
    return CHAT


def _recorded(path: Path, data: dict[str, Any], models: ModelTerms) -> _Recorded:
    view, invariant = data["view"], data["invariant"]
    [law] = [call_law(view)] if invariant == CALL_ANSWERED else select(view, [invariant])
    model = models.slot(data.get("model"), path)
    return _Recorded(path, data, law, data["target"], view, _format_of(data), model)


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
        # An unchanged history keeps every content law: the recorded failure is gone.
        return result("fixed", "the target now hands this history back unchanged")
    if not outcome.judges(law):
        return result("errored", f"round was {outcome.status}: {outcome.reason}")
    finding = outcome.judge(law)
    if finding.holds:
        return result("fixed", f"{entry.data['invariant']} holds on the recorded history")
    return result("still failing", finding.violations[0].because)
