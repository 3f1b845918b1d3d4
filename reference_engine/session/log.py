"""The session log: append-only events, validated atomically, with the surface they fold to.

Every append must keep the log well formed as ``compactcheck.invariants.session`` defines a session
log: its surface (S1-S7), turn and step enclosure (SI) and compaction brackets (C1-C7), which the
seed puts on ``Session.append`` itself. That grammar is the log's data model, shared with the judge;
the judge's own checking (``LogChecker``, ``check_log``: the strict G, M and TP rules) is never
used here, so the laws can still catch this engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from compactcheck.invariants.errors import first_problem
from compactcheck.invariants.session import (
    BracketTracker,
    Enclosure,
    LogViolationError,
    SessionEvent,
    SessionMessage,
    SurfaceChange,
    SurfaceTracker,
    derive_event_message,
)
from compactcheck.reference_engine.session.errors import ReentrantAppendError

Clock = Callable[[], int]
Guard = Callable[["Session", SessionEvent], None]
Listener = Callable[["Session", SessionEvent], None]


class StepClock:
    """A deterministic clock: each reading is one millisecond after the last."""

    def __init__(self, start: int = 1_000) -> None:
        self._now = start

    def __call__(self) -> int:
        self._now += 1
        return self._now


class Session:
    """One session: its log, its surface, and the invariants every append must pass."""

    def __init__(
        self,
        session_id: str,
        seed: Sequence[SessionEvent | Mapping[str, Any]] | None = None,
        *,
        clock: Clock | None = None,
        base_seq: int = 0,
        guards: Sequence[Guard] = (),
    ) -> None:
        self.id = session_id
        self.base_seq = base_seq
        self.clock: Clock = clock if clock is not None else StepClock()
        self._events: list[SessionEvent] = []
        self._surface = SurfaceTracker(base_seq)
        self._enclosure = Enclosure()
        # Seeds replay under C7: crossings by stale orphans are forgiven at the next end-seed.
        self._brackets = BracketTracker(defer_crossings=True)
        self._guards: list[Guard] = list(guards)
        self._listeners: list[Listener] = []
        self._busy = False
        self._messages: dict[int, SessionMessage | None] = {}
        self.listener_errors: list[BaseException] = []
        if seed is not None:
            for raw in seed:
                self._admit(self._envelope(raw), publish=False)
            if not self._events or self._events[-1].type != "session/end-seed":
                self.append("session/end-seed", {})
        self._brackets.defer_crossings = False
        self.first_live_seq = self.seq

    # -- reading ---------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The seq the next event will get (the absolute log length)."""
        return self.base_seq + len(self._events)

    @property
    def events(self) -> Sequence[SessionEvent]:
        """The log, oldest first (read-only by contract)."""
        return self._events

    def event_at(self, seq: int) -> SessionEvent | None:
        """The event with this seq, or None when it is outside the log."""
        index = seq - self.base_seq
        return self._events[index] if 0 <= index < len(self._events) else None

    @property
    def surface_nodes(self) -> tuple[int, ...]:
        """The surface: the seqs the model sees, in order (a detached copy)."""
        return tuple(self._surface.nodes)

    @property
    def surface_length(self) -> int:
        """How many nodes the surface holds."""
        return len(self._surface.nodes)

    def surface_slice(self, start: int, end: int | None = None) -> tuple[int, ...]:
        """A detached copy of surface nodes [start:end]."""
        return tuple(self._surface.nodes[start:end])

    def surface_position(self, seq: int) -> int | None:
        """The position of a seq on the surface, or None."""
        return self._surface.position(seq)

    @property
    def replace_generation(self) -> int:
        """How many replacements have committed; +1 per replace."""
        return self._surface.generation

    def derive_messages(self) -> tuple[SessionMessage, ...]:
        """The model-visible history: each surface node rendered, empty ones dropped."""
        out: list[SessionMessage] = []
        for seq in self._surface.nodes:
            if seq not in self._messages:
                event = self.event_at(seq)
                assert event is not None
                self._messages[seq] = derive_event_message(event)
            message = self._messages[seq]
            if message is not None:
                out.append(message)
        return tuple(out)

    # -- writing ---------------------------------------------------------------------------

    def add_guard(self, guard: Guard) -> Callable[[], None]:
        """Add a pre-commit check (an invariant plugin); returns its remover."""
        self._guards.append(guard)
        return lambda: self._guards.remove(guard)

    def on_event(self, listener: Listener) -> Callable[[], None]:
        """Call listener after each committed append; returns its remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def append(
        self,
        type: str,
        data: Any,
        *,
        surface_op: Any = None,
        source_event_seqs: Sequence[int] | None = None,
        ignorable: bool | None = None,
    ) -> SessionEvent:
        """Append one event at the next seq; a rejected append changes nothing."""
        raw: dict[str, Any] = {"type": type, "seq": self.seq, "time": self.clock(), "data": data}
        if surface_op is not None:
            raw["surfaceOp"] = surface_op
        if source_event_seqs is not None:
            raw["sourceEventSeqs"] = (
                list(source_event_seqs)
                if isinstance(source_event_seqs, list | tuple)
                else source_event_seqs
            )
        if ignorable is not None:
            raw["ignorable"] = ignorable
        return self.append_event(raw)

    def append_event(self, raw: SessionEvent | Mapping[str, Any]) -> SessionEvent:
        """Append a fully formed event (its seq must be the next one)."""
        if self._busy:
            raise ReentrantAppendError(
                f"append of {_type_of(raw)} while another append is being published; "
                "appends are not re-entrant: queue the event and append it afterwards"
            )
        event = self._envelope(raw)
        self._admit(event, publish=True)
        return event

    @staticmethod
    def _envelope(raw: SessionEvent | Mapping[str, Any]) -> SessionEvent:
        """A candidate's envelope (E1), copied so a caller's later edits cannot reach the log."""
        data = raw.to_json_data() if isinstance(raw, SessionEvent) else dict(raw)
        try:
            return SessionEvent.from_json_data(data)
        except ValidationError as error:
            where, what = first_problem(error)
            seq = data.get("seq")
            detail = f"expected a valid event envelope; found: {what} at {where}"
            raise LogViolationError("E1", seq if type(seq) is int else None, detail) from error

    def _adopt(self, event: SessionEvent) -> None:
        """Commit an event our own generator wrote (it keeps every rule by construction).

        Only the surface is read before the commit, for the change the event makes; the
        enclosure and bracket checks and the envelope copy of ``_admit`` are skipped. The event
        is shared, not copied: events are frozen and this engine never edits their values.
        """
        change: SurfaceChange = self._surface.check(event, self.event_at)
        self._events.append(event)
        self._surface.apply(change)
        self._enclosure.apply(event)
        self._brackets.apply(event)

    def _admit(self, event: SessionEvent, *, publish: bool) -> None:
        self._busy = True
        try:
            change: SurfaceChange = self._surface.check(event, self.event_at)
            self._enclosure.check(event)
            self._brackets.check(event)
            for guard in list(self._guards):
                guard(self, event)
            self._events.append(event)
            self._surface.apply(change)
            self._enclosure.apply(event)
            self._brackets.apply(event)
            if publish:
                for listener in list(self._listeners):
                    try:
                        listener(self, event)
                    except Exception as error:  # a listener cannot undo a committed event
                        self.listener_errors.append(error)
        finally:
            self._busy = False


def _type_of(raw: SessionEvent | Mapping[str, Any]) -> object:
    return raw.type if isinstance(raw, SessionEvent) else raw.get("type")
