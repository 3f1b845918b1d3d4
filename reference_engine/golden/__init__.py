"""The golden corpus of the snapshot engine: hand-written cases with their expected outcomes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue, ValidationError

from compactcheck.base.errors import InputFileError, one_line
from compactcheck.invariants import AgentEvent, AgentState, ContextUsage, SnapshotDraft
from compactcheck.invariants.wire import WireModel
from compactcheck.reference_engine.snapshot import (
    CompactionError,
    CompactionOutcome,
    Compactor,
    EngineConfig,
    FixedCompactor,
    HistoryError,
    ReferenceCompactor,
    SnapshotDesign,
    maybe_compact,
)

ExpectedOutcome = Literal["below_threshold", "unsafe_boundary", "compacted", "rejected", "error"]

# Golden cases run at a fixed time so that their snapshots (and checksums) never change.
GOLDEN_TIME = datetime(2026, 1, 1, tzinfo=UTC)


class Expectation(WireModel):
    """What one round of a case must do."""

    outcome: ExpectedOutcome
    failed_rules: tuple[str, ...] = ()
    made_progress: bool | None = None
    orphaned_results: tuple[str, ...] | None = None
    error: str | None = None


class Round(WireModel):
    """One call of maybe_compact: the authoritative state, new events, usage and compactor."""

    state: AgentState
    new_events: tuple[AgentEvent, ...] = ()
    usage: ContextUsage
    pending_tool_call_count: int = 0
    pending_output_count: int = 0
    # "reference" for the reference compactor, or a fixed draft returned whatever the input.
    draft: SnapshotDraft | None = None
    # Fields overwritten on the latest stored snapshot before this round, without resealing:
    # a snapshot altered in a store after it was built.
    tamper_previous_snapshot: dict[str, JsonValue] | None = None
    expect: Expectation


class GoldenCase(WireModel):
    """A hand-written case: rounds run in order, carrying compaction state and the log."""

    name: str
    description: str
    mode: SnapshotDesign = SnapshotDesign.CORRECTED
    raw_tail_size: int = 4
    max_raw_tail: int | None = None
    rounds: tuple[Round, ...] = Field(min_length=1)


@dataclass(frozen=True)
class RoundResult:
    """What a round did, beside what it was expected to do."""

    index: int
    expected: Expectation
    outcome: str
    failed_rules: tuple[str, ...]
    made_progress: bool | None
    orphaned_results: tuple[str, ...]
    error: str | None

    @property
    def mismatches(self) -> list[str]:
        """Each way the round differs from its expectation."""
        found: list[str] = []
        want = self.expected
        if self.outcome != want.outcome:
            found.append(f"outcome {self.outcome}, expected {want.outcome}")
        if self.failed_rules != want.failed_rules:
            found.append(
                f"failed rules {list(self.failed_rules)}, expected {list(want.failed_rules)}"
            )
        if want.made_progress is not None and self.made_progress != want.made_progress:
            found.append(f"progress {self.made_progress}, expected {want.made_progress}")
        if want.orphaned_results is not None and self.orphaned_results != want.orphaned_results:
            found.append(
                f"orphaned results {list(self.orphaned_results)}, "
                f"expected {list(want.orphaned_results)}"
            )
        if want.error is not None and (self.error is None or want.error not in self.error):
            found.append(f"error {self.error!r}, expected one containing {want.error!r}")
        return found


@dataclass(frozen=True)
class CaseResult:
    """Every round of one case."""

    case: GoldenCase
    path: Path
    rounds: tuple[RoundResult, ...]

    @property
    def passed(self) -> bool:
        """Whether every round did what it was expected to do."""
        return all(not result.mismatches for result in self.rounds)


def _tampered(state: AgentState, fields: dict[str, JsonValue]) -> AgentState:
    snapshots = state.compaction.snapshots
    if not snapshots:
        raise InputFileError("tamperPreviousSnapshot needs a snapshot from an earlier round")
    data: dict[str, Any] = snapshots[-1].to_json_data()
    data.update(fields)
    altered = type(snapshots[-1]).from_json_data(data)
    compaction = state.compaction.model_copy(update={"snapshots": (*snapshots[:-1], altered)})
    return state.model_copy(update={"compaction": compaction})


def run_case(case: GoldenCase, path: Path) -> CaseResult:
    """Run every round of a case through the reference engine."""
    config = EngineConfig(
        mode=case.mode,
        raw_tail_size=case.raw_tail_size,
        max_raw_tail=case.max_raw_tail,
        clock=lambda: GOLDEN_TIME,
    )
    events: list[AgentEvent] = []
    carried = None
    results = []
    for index, round_ in enumerate(case.rounds, start=1):
        events.extend(round_.new_events)
        state = round_.state
        if carried is not None:
            state = state.model_copy(update={"compaction": carried})
        if round_.tamper_previous_snapshot is not None:
            state = _tampered(state, round_.tamper_previous_snapshot)
        compactor: Compactor = (
            ReferenceCompactor() if round_.draft is None else FixedCompactor(round_.draft)
        )
        try:
            outcome: CompactionOutcome | None = maybe_compact(
                state,
                events,
                round_.usage,
                compactor,
                pending_tool_calls=round_.pending_tool_call_count,
                pending_outputs=round_.pending_output_count,
                config=config,
            )
        except (CompactionError, HistoryError) as error:
            outcome = None
            results.append(RoundResult(index, round_.expect, "error", (), None, (), str(error)))
        if outcome is not None:
            events.extend(outcome.emitted)
            carried = outcome.state.compaction
            compacting = outcome.kind in ("compacted", "rejected")
            results.append(
                RoundResult(
                    index,
                    round_.expect,
                    outcome.kind,
                    outcome.failed_rules,
                    outcome.made_progress if compacting else None,
                    outcome.orphaned_results,
                    None,
                )
            )
    return CaseResult(case, path, tuple(results))


def load_case(path: Path) -> GoldenCase:
    """Read and validate one case file; a bad file raises InputFileError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputFileError(f"{path}: cannot read the file ({error.strerror})") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputFileError(f"{path}: expected a JSON golden case, found invalid JSON") from error
    try:
        return GoldenCase.from_json_data(data)
    except ValidationError as error:
        raise InputFileError(f"{path}: not a golden case: {one_line(error)}") from error


def case_files(location: Path) -> Iterator[Path]:
    """The case files at a path: the file itself, or every *.json below a folder, sorted."""
    if location.is_file():
        yield location
    elif location.is_dir():
        yield from sorted(location.rglob("*.json"))
    else:
        raise InputFileError(f"{location}: expected a golden case file or folder, found nothing")


# The corpus ships inside the package, beside this module.
DEFAULT_CORPUS = Path(__file__).resolve().parent / "snapshot"
