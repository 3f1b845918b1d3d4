"""The streaming session-log checker: one pass, names the first rule (S, SI, C, G, M, TP) broken."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from compactcheck.invariants.errors import first_problem
from compactcheck.invariants.session.bracket import BRACKETING_TYPES, BracketTracker, is_checkpoint
from compactcheck.invariants.session.checkpoint import check_checkpoint, check_prune_follow_up
from compactcheck.invariants.session.enclosure import ENCLOSING_TYPES, Enclosure
from compactcheck.invariants.session.envelope import SURFACE_TYPES, SessionEvent
from compactcheck.invariants.session.errors import LogViolationError
from compactcheck.invariants.session.pairing import event_delta
from compactcheck.invariants.session.surface import SurfaceChange, SurfaceTracker, parse_surface_op


class LogChecker:
    """Feed events in order; each feed raises the first rule the log breaks at that event."""

    def __init__(self, base_seq: int = 0) -> None:
        self.base_seq = base_seq
        self.events: list[SessionEvent] = []
        self.surface = SurfaceTracker(base_seq)
        self.enclosure = Enclosure()
        self.brackets = BracketTracker(defer_crossings=True)
        self.claim: tuple[int, int, int] | None = None
        self.open_total = 0
        self.pending_prune: SessionEvent | None = None

    def event_at(self, seq: int) -> SessionEvent | None:
        """The fed event with this seq, if any."""
        index = seq - self.base_seq
        return self.events[index] if 0 <= index < len(self.events) else None

    def feed(self, raw: SessionEvent | Mapping[str, Any]) -> None:
        """Check one more event against everything seen so far, then commit it."""
        event = raw if isinstance(raw, SessionEvent) else self._envelope(raw)
        change = self.surface.check(event, self.event_at)
        self.enclosure.check(event)
        if self.pending_prune is not None:
            check_prune_follow_up(self.pending_prune, event, self.event_at)
        bracket = self.brackets.open
        if bracket is not None and is_checkpoint(event):
            self.brackets.check(event)
            check_checkpoint(event, change, bracket, self.event_at, self.surface.nodes)
        else:
            self.brackets.check(event)
        if (
            event.type == "compaction/end"
            and bracket is not None
            and not (isinstance(event.data, dict) and "error" in event.data)
            and bracket.checkpoint_seq is None
        ):
            raise LogViolationError(
                "G-b",
                event.seq,
                "a successful compaction/end needs a checkpoint after the summary; "
                "close with an error when no checkpoint was written",
            )
        self._check_claim(event, change)
        self._check_chunk_citations(event)
        self._check_pairing(event, change)
        self._commit(event, change)

    def adopt(self, event: SessionEvent) -> None:
        """Commit an event of a log known to keep every rule (our generator's), unchecked.

        The state each rule keeps is committed as ``feed`` commits it; only the checks that
        change nothing are skipped (the surface's and the pairing's are run for the change and
        the open-call count they compute), so later events are judged exactly as after ``feed``.
        """
        change = self.surface.check(event, self.event_at)
        self._check_pairing(event, change)
        self._commit(event, change)

    def adopt_all(self, events: Iterable[SessionEvent]) -> None:
        """``adopt`` each of ``events`` in order (a log our generator wrote), in one loop.

        The state committed is ``adopt``'s; the rules' tests are skipped whole, so a change is
        read (``SurfaceTracker.change_of``) rather than checked, and the open-call count moves
        by what an event adds less what it shadows (in a valid log the count is the sum over
        the surface, which is what ``_check_pairing`` recounts).
        """
        surface, enclosure, brackets = self.surface, self.enclosure, self.brackets
        change_of, event_at = surface.change_of, self.event_at
        nodes, positions = surface.nodes, surface.index
        logged = self.events
        open_total = self.open_total
        last: SessionEvent | None = None
        for event in events:
            last = event
            kind = event.type
            op = event.surface_op
            if op is None or kind not in SURFACE_TYPES:
                pass  # no surface change ("none")
            elif op == "append":
                # Most surface events: ``apply`` of ``change_of``'s append, in line.
                if kind == "tool/result":
                    open_total -= 1
                elif kind == "assistant/message":
                    open_total += event_delta(event)
                positions[event.seq] = len(nodes)
                nodes.append(event.seq)
            else:
                change = change_of(event)
                if kind == "tool/result":
                    open_total -= 1
                elif kind == "assistant/message":
                    open_total += event_delta(event)
                for node in change.shadowed:
                    shadowed = event_at(node)
                    assert shadowed is not None
                    open_total -= event_delta(shadowed)
                surface.apply(change)
            logged.append(event)
            # Most events (messages, calls) change no bracket and no enclosure but its last seq,
            # which, like the surface's next seq and the claim, only the last event sets.
            if kind in ENCLOSING_TYPES:
                enclosure.apply(event)
            if kind in BRACKETING_TYPES:
                brackets.apply(event)
        if last is None:
            return
        surface.next_seq = last.seq + 1
        enclosure.last_seq = last.seq
        self.claim = self._claim_of(last)
        self.open_total = open_total
        self.pending_prune = last if last.type == "compaction/prune" else None

    def _commit(self, event: SessionEvent, change: SurfaceChange) -> None:
        """Commit an event judged (or known) to keep every rule: the state each rule keeps."""
        self.events.append(event)
        self.surface.apply(change)
        self.enclosure.apply(event)
        self.brackets.apply(event)
        self.claim = self._claim_of(event)
        self.pending_prune = event if event.type == "compaction/prune" else None

    def finish(self, allow_open_bracket: bool = False) -> None:
        """Judge the end of the log: a live unmatched start is a lock left behind."""
        if self.pending_prune is not None:
            raise LogViolationError(
                "G-i",
                self.pending_prune.seq,
                "compaction/prune is the last event; its tool/result rewrite never followed",
            )
        bracket = self.brackets.open
        if bracket is None:
            return
        if bracket.deferred_crossing is not None:
            raise bracket.deferred_crossing
        if not allow_open_bracket:
            raise LogViolationError(
                "G-k",
                None,
                f"compaction/start at seq {bracket.start_seq} is unmatched after the last "
                "end-seed (a live lock); close it with compaction/end",
            )

    def _envelope(self, raw: Mapping[str, Any]) -> SessionEvent:
        try:
            return SessionEvent.from_json_data(dict(raw))
        except ValidationError as error:
            seq = raw.get("seq")
            raise LogViolationError(
                "E1",
                seq if type(seq) is int else None,
                f"expected a valid event envelope; found {error.error_count()} problem(s): "
                f"{first_problem(error)[1]}",
            ) from error

    def _check_claim(self, event: SessionEvent, change: SurfaceChange) -> None:
        if change.kind != "replace" or self.claim is None:
            return
        op = parse_surface_op(event)
        start, end, _tokens = self.claim
        if op == "append" or (op.start, op.end) != (start, end):
            raise LogViolationError(
                "M2",
                event.seq,
                f"replace at seq {event.seq} has no adjacent shadow price (armed claim covers "
                f"{start}..{end})",
            )

    def _claim_of(self, event: SessionEvent) -> tuple[int, int, int] | None:
        if event.type not in ("compaction/summary", "compaction/prune"):
            return None
        data = event.data
        shadow = data.get("shadowedRange") if isinstance(data, dict) else None
        if not isinstance(shadow, dict):
            return None
        return (shadow.get("start", -1), shadow.get("end", -1), data.get("shadowedTokenCount", 0))

    def _check_chunk_citations(self, event: SessionEvent) -> None:
        if event.type != "assistant/message" or not isinstance(event.source_event_seqs, list):
            return
        data = event.data if isinstance(event.data, dict) else {}
        for cited in event.source_event_seqs:
            chunk = self.event_at(cited)
            chunk_data = chunk.data if chunk is not None and isinstance(chunk.data, dict) else {}
            if (
                chunk is None
                or chunk.type != "assistant/chunk"
                or chunk_data.get("turn") != data.get("turn")
                or chunk_data.get("step") != data.get("step")
            ):
                raise LogViolationError(
                    "M3",
                    event.seq,
                    f"assistant/message cites seq {cited}, which is not an assistant/chunk of "
                    f"turn {data.get('turn')} step {data.get('step')}",
                )

    def _check_pairing(self, event: SessionEvent, change: SurfaceChange) -> None:
        if change.kind == "none":
            return
        delta = event_delta(event)
        if change.kind == "append":
            if self.open_total + delta < 0:
                raise LogViolationError(
                    "TP3",
                    event.seq,
                    f"tool/result at surface seq {event.seq} has no matching tool-call "
                    "(corrupt surface)",
                )
            self.open_total += delta
            return
        removed = 0
        for node in change.shadowed:
            node_event = self.event_at(node)
            assert node_event is not None
            removed += event_delta(node_event)
        if removed == delta:
            return
        # The open count after the span shifts: re-verify the whole future surface once.
        nodes = list(self.surface.nodes)
        start = change.start_index
        nodes[start : start + len(change.shadowed)] = [event.seq]
        running = 0
        for node in nodes:
            node_event = event if node == event.seq else self.event_at(node)
            assert node_event is not None
            running += event_delta(node_event)
            if running < 0:
                raise LogViolationError(
                    "TP3",
                    event.seq,
                    f"after this replace, tool/result at surface seq {node} has no matching "
                    "tool-call (corrupt surface)",
                )
        self.open_total = running


def check_log(
    events: Iterable[SessionEvent | Mapping[str, Any]],
    *,
    base_seq: int = 0,
    allow_open_bracket: bool = False,
) -> LogViolationError | None:
    """The first rule a whole log breaks, or None when it keeps them all."""
    checker = LogChecker(base_seq)
    try:
        for event in events:
            checker.feed(event)
        checker.finish(allow_open_bracket)
    except LogViolationError as violation:
        return violation
    return None


def assert_log_valid(
    events: Iterable[SessionEvent | Mapping[str, Any]],
    *,
    base_seq: int = 0,
    allow_open_bracket: bool = False,
) -> None:
    """Raise the first LogViolationError of a log (a test helper for every engine-written log)."""
    violation = check_log(events, base_seq=base_seq, allow_open_bracket=allow_open_bracket)
    if violation is not None:
        raise violation
