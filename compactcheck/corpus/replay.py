"""Replay the crash corpus: is each recorded failure fixed, still failing, or erroring?"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from compactcheck.corpus.entry import corpus_files, load_entry
from compactcheck.engine.crash import CALL_ANSWERED, call_finding, call_law
from compactcheck.errors import CompactcheckError
from compactcheck.models import ModelSlot
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve
from invariants import UnknownInvariantError, select
from invariants.formats import CHAT, check_format

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
    offline: bool = False

    def slot(self, recorded: str | None, path: Path) -> ModelSlot | None:
        """The slot an entry at ``path`` is replayed with; None for one recorded without."""
        name = self.name or recorded
        if name is None:
            return None
        cache = self.cache_dir or path.parent.parent / "models"
        return ModelSlot(name, cache_dir=cache, max_calls=self.max_calls, offline=self.offline)


def replay_entry(
    path: Path, *, calls: Calls | None = None, models: ModelTerms | None = None
) -> ReplayResult:
    """Re-run one entry's recorded round against its target and re-judge its law.

    An entry recorded with a model is replayed with it, its answers read from the model cache
    (``models`` says where, and whether a request not recorded may be sent).
    """
    data = load_entry(path)
    target_name, view, invariant = data["target"], data["view"], data["invariant"]

    def result(verdict: ReplayVerdict, detail: str) -> ReplayResult:
        return ReplayResult(path, target_name, view, invariant, verdict, detail)

    try:
        [law] = [call_law(view)] if invariant == CALL_ANSWERED else select(view, [invariant])
        recorded = data.get("input")
        # A messages round in a provider format says which (its input is that format's request).
        format = (
            check_format(str(recorded["format"]))
            if isinstance(recorded, dict) and "format" in recorded
            else CHAT
        )
        model = (models or ModelTerms()).slot(data.get("model"), path)
        target = resolve(target_name, view=view, calls=calls, format=format, model=model)
    except (CompactcheckError, UnknownInvariantError) as error:
        return result("errored", str(error))
    try:
        if view not in target.drivers:
            return result("errored", f"{target_name} no longer handles the {view} view")
        outcome = target.drivers[view]().replay(data)
    except (KeyError, TypeError, ValueError) as error:
        return result("errored", f"the entry's input no longer fits the {view} view: {error}")
    finally:
        target.close()
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
        return result("fixed", f"{invariant} holds on the recorded history")
    return result("still failing", finding.violations[0].because)


def replay(
    location: Path, *, calls: Calls | None = None, models: ModelTerms | None = None
) -> list[ReplayResult]:
    """Replay every entry at a path (a file or a corpus folder)."""
    return [replay_entry(path, calls=calls, models=models) for path in corpus_files(location)]
