"""The surface state machine: which log seqs the model sees, and rules S1-S7 that guard it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from compactcheck.invariants.session.envelope import MAX_SAFE_INTEGER, SURFACE_TYPES, SessionEvent
from compactcheck.invariants.session.errors import LogViolationError

EventLookup = Callable[[int], SessionEvent | None]


@dataclass(frozen=True)
class ReplaceRange:
    """A positional replace marker: start and end are surface seqs, ordered by position."""

    start: int
    end: int


# A named tuple, not a frozen dataclass: one is built for every event of every fold and check,
# and a tuple is about three times cheaper to build.
class SurfaceChange(NamedTuple):
    """What one accepted event does to the surface."""

    seq: int
    kind: Literal["none", "append", "replace"]
    start_index: int = 0
    shadowed: tuple[int, ...] = ()


def _safe_non_negative(value: object) -> bool:
    return type(value) is int and 0 <= value <= MAX_SAFE_INTEGER


def parse_surface_op(event: SessionEvent) -> Literal["append"] | ReplaceRange:
    """Read an event's surfaceOp, raising S3 when its shape is wrong."""
    op = event.surface_op
    if op == "append":
        return "append"
    if (
        isinstance(op, dict)
        and set(op) == {"op", "start", "end"}
        and op["op"] == "replace"
        and _safe_non_negative(op["start"])
        and _safe_non_negative(op["end"])
    ):
        return ReplaceRange(op["start"], op["end"])
    raise LogViolationError(
        "S3",
        event.seq,
        f"expected surfaceOp 'append' or exactly {{op:'replace', start, end}} with non-negative "
        f"integer ends; found {op!r}; write one of those two forms",
    )


def _without_result_content(data: Any) -> Any:
    """The tool/result data with the inner result content blanked, for content-only comparison."""
    if not isinstance(data, dict):
        return data
    message = data.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return data
    blocks = message["content"]
    if len(blocks) != 1 or not isinstance(blocks[0], dict):
        return data
    block = {key: value for key, value in blocks[0].items() if key != "content"}
    return {**data, "message": {**message, "content": [block]}}


class SurfaceTracker:
    """The live surface: ordered node seqs, their positions and the replace generation."""

    def __init__(self, base_seq: int = 0) -> None:
        self.nodes: list[int] = []
        self.index: dict[int, int] = {}
        self.generation = 0
        self.next_seq = base_seq

    def copy(self) -> SurfaceTracker:
        """A detached tracker in the same state, to continue without disturbing this one."""
        twin = SurfaceTracker(self.next_seq)
        twin.nodes = list(self.nodes)
        twin.index = dict(self.index)
        twin.generation = self.generation
        return twin

    def position(self, seq: int) -> int | None:
        """The index of a seq on the surface, or None when it is not there."""
        return self.index.get(seq)

    def check(self, event: SessionEvent, event_at: EventLookup) -> SurfaceChange:
        """Validate a candidate event (S1-S7, in the spec's order) without changing anything."""
        seq = event.seq
        if seq != self.next_seq:
            raise LogViolationError(
                "S1",
                seq,
                f"seq {seq} is not contiguous; expected {self.next_seq}; "
                "append events in order with seq equal to the log length",
            )
        if event.type not in SURFACE_TYPES:
            if event.surface_op is not None or event.source_event_seqs is not None:
                raise LogViolationError(
                    "S2",
                    seq,
                    f"expected no surfaceOp or sourceEventSeqs on log-only type {event.type}; "
                    "found one; only user/message, assistant/message and tool/result reach the "
                    "surface",
                )
            return SurfaceChange(seq, "none")
        if event.surface_op is None:
            raise LogViolationError(
                "S2",
                seq,
                f"expected surfaceOp on surface type {event.type}; found none; "
                "add surfaceOp 'append' or a replace",
            )
        op = parse_surface_op(event)
        start_index = end_index = 0
        if isinstance(op, ReplaceRange):
            found_start = self.index.get(op.start)
            if found_start is None:
                raise LogViolationError(
                    "S5", seq, f"start seq {op.start} not found in surface; replace visible nodes"
                )
            found_end = self.index.get(op.end)
            if found_end is None:
                raise LogViolationError(
                    "S5", seq, f"end seq {op.end} not found in surface; replace visible nodes"
                )
            if found_start > found_end:
                raise LogViolationError(
                    "S5",
                    seq,
                    f"start seq {op.start} (index {found_start}) is after end seq {op.end} "
                    f"(index {found_end}); ranges are surface positions, list start first",
                )
            start_index, end_index = found_start, found_end
        sources = self._check_sources(event)
        if not isinstance(op, ReplaceRange):
            return SurfaceChange(seq, "append")
        shadowed = tuple(self.nodes[start_index : end_index + 1])
        cited = set(sources or ())
        missing = [node for node in shadowed if node not in cited]
        if missing:
            raise LogViolationError(
                "S6",
                seq,
                f"replace sourceEventSeqs must cite every shadowed node; missing "
                f"{', '.join(map(str, missing))}; add them to sourceEventSeqs",
            )
        if event.type == "tool/result":
            self._check_result_rewrite(event, shadowed, event_at)
        return SurfaceChange(seq, "replace", start_index, shadowed)

    def change_of(self, event: SessionEvent) -> SurfaceChange:
        """What an event of a log known to keep every rule does to the surface, unchecked.

        The change ``check`` returns for such an event: every rule's test is skipped, only the
        span a replace shadows is looked up.
        """
        seq = event.seq
        op = event.surface_op
        if op is None or event.type not in SURFACE_TYPES:
            return SurfaceChange(seq, "none")
        if op == "append":
            return SurfaceChange(seq, "append")
        start_index = self.index[op["start"]]
        end_index = self.index[op["end"]]
        return SurfaceChange(
            seq, "replace", start_index, tuple(self.nodes[start_index : end_index + 1])
        )

    def _check_sources(self, event: SessionEvent) -> Sequence[int] | None:
        sources = event.source_event_seqs
        seq = event.seq
        if sources is None:
            return None
        if not isinstance(sources, list):
            raise LogViolationError(
                "S4", seq, f"expected sourceEventSeqs to be an array; found {sources!r}"
            )
        if not sources and event.type != "assistant/message":
            raise LogViolationError(
                "S4",
                seq,
                f"expected a non-empty sourceEventSeqs on {event.type}; found []; "
                "cite the events it derives from or omit the key",
            )
        seen: set[int] = set()
        for value in sources:
            if not _safe_non_negative(value):
                raise LogViolationError(
                    "S4",
                    seq,
                    f"expected sourceEventSeqs to hold non-negative integers; found {value!r}",
                )
            if value in seen:
                raise LogViolationError(
                    "S4", seq, f"sourceEventSeqs repeats {value}; cite each event once"
                )
            if value >= seq:
                raise LogViolationError(
                    "S4",
                    seq,
                    f"sourceEventSeqs cites {value}, which is not earlier than seq {seq}; "
                    "cite earlier events only",
                )
            seen.add(value)
        return sources

    def _check_result_rewrite(
        self, event: SessionEvent, shadowed: tuple[int, ...], event_at: EventLookup
    ) -> None:
        seq = event.seq
        if len(shadowed) != 1:
            raise LogViolationError(
                "S7",
                seq,
                f"a tool/result replacement must shadow exactly one node; found {len(shadowed)}",
            )
        original = event_at(shadowed[0])
        if original is None or original.type != "tool/result":
            found = original.type if original else "no event"
            raise LogViolationError(
                "S7",
                seq,
                f"a tool/result replacement must shadow a tool/result; found {found} at "
                f"seq {shadowed[0]}",
            )
        if _without_result_content(original.data) != _without_result_content(event.data):
            raise LogViolationError(
                "S7",
                seq,
                f"a tool/result replacement may change only content of seq {shadowed[0]}; "
                "found other fields changed; copy every other field verbatim",
            )

    def apply(self, change: SurfaceChange) -> None:
        """Commit a change that check() accepted."""
        self.next_seq = change.seq + 1
        if change.kind == "append":
            self.index[change.seq] = len(self.nodes)
            self.nodes.append(change.seq)
        elif change.kind == "replace":
            start = change.start_index
            for node in change.shadowed:
                del self.index[node]
            self.nodes[start : start + len(change.shadowed)] = [change.seq]
            if len(change.shadowed) == 1:
                self.index[change.seq] = start
            else:
                for position in range(start, len(self.nodes)):
                    self.index[self.nodes[position]] = position
            self.generation += 1
