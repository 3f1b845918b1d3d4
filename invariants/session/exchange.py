"""One session-view compaction as the laws see it: the log handed over and the events appended.

A backend is handed a session log and answers with the events its compaction appended. The
laws judge three readings of the result: the log before (folded once, before the call), the log
after folded from scratch (the durable truth a replay would see), and the incremental result
(the log before, as it was handed, continued with the appended events).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import ValidationError

from compactcheck.invariants.errors import first_problem
from compactcheck.invariants.session.checker import LogChecker
from compactcheck.invariants.session.envelope import SessionEvent, json_copy
from compactcheck.invariants.session.errors import LogViolationError, SessionError
from compactcheck.invariants.session.messages import raw_event_message
from compactcheck.invariants.session.pairing import event_delta
from compactcheck.invariants.session.surface import SurfaceTracker

Mode = Literal["manual", "pressure", "overflow"]
MODES: tuple[Mode, ...] = ("manual", "pressure", "overflow")


class MalformedExchangeError(SessionError):
    """A log or an answer holds something that is not a session event; names which and why."""


@dataclass(frozen=True)
class Breach:
    """The first rule a log breaks: its id, the seq it broke at (None: end of log), the detail."""

    rule: str
    seq: int | None
    detail: str

    @classmethod
    def of(cls, error: LogViolationError) -> Breach:
        """The breach a checker raised."""
        return cls(error.rule, error.seq, error.detail)


@dataclass(frozen=True)
class Replacement:
    """One surface replace seen by a fold, with the open tool calls around its span.

    ``open_before`` is the open-call count at the cut before the span; ``span_delta`` is what the
    shadowed nodes add to it, so the cut after the span has ``open_before + span_delta`` open.
    """

    seq: int
    type: str
    start_index: int
    shadowed: tuple[int, ...]
    open_before: int
    span_delta: int


@dataclass(frozen=True)
class SurfaceView:
    """A surface as a fold left it: nodes, generation, what each node renders to.

    ``rendered[i]`` is the raw JSON message node ``i`` shows the model (None when it shows
    nothing, like an empty assistant message). ``replacements`` are the replaces made by the
    events the fold was asked to record. ``broken`` is the first S rule the log broke; the fold
    stopped there.
    """

    nodes: tuple[int, ...]
    generation: int
    rendered: tuple[dict[str, Any] | None, ...]
    replacements: tuple[Replacement, ...] = ()
    broken: Breach | None = None

    @property
    def messages(self) -> tuple[dict[str, Any], ...]:
        """The model-visible messages, in order."""
        return tuple(message for message in self.rendered if message is not None)


def _delta(event: SessionEvent) -> int:
    return event_delta(event)


class SurfaceFolder:
    """Folds events into a surface under rules S1-S7; stops at the first broken rule."""

    def __init__(self) -> None:
        self.tracker = SurfaceTracker()
        self.events: list[SessionEvent] = []
        self.replacements: list[Replacement] = []
        self.broken: Breach | None = None

    def event_at(self, seq: int) -> SessionEvent | None:
        """The folded event with this seq, if any."""
        return self.events[seq] if 0 <= seq < len(self.events) else None

    def copy(self) -> SurfaceFolder:
        """A detached folder in the same state: feeding it leaves this one as it was."""
        twin = SurfaceFolder()
        twin.tracker = self.tracker.copy()
        twin.events = list(self.events)
        twin.replacements = list(self.replacements)
        twin.broken = self.broken
        return twin

    def feed(self, events: Iterable[SessionEvent], *, record: bool = False) -> None:
        """Fold more events; with record, keep the replaces they make (with their edge counts)."""
        for event in events:
            if self.broken is not None:
                return
            try:
                change = self.tracker.check(event, self.event_at)
            except LogViolationError as error:
                self.broken = Breach.of(error)
                return
            if record and change.kind == "replace":
                # Only the recorded replaces pay for a prefix count, so a fold stays linear in
                # the log plus the (few) surfaces the answer rewrote.
                open_before = sum(
                    _delta(self.events[node]) for node in self.tracker.nodes[: change.start_index]
                )
                span_delta = sum(_delta(self.events[node]) for node in change.shadowed)
                self.replacements.append(
                    Replacement(
                        event.seq,
                        event.type,
                        change.start_index,
                        change.shadowed,
                        open_before,
                        span_delta,
                    )
                )
            self.events.append(event)
            self.tracker.apply(change)

    def view(self) -> SurfaceView:
        """The surface as folded so far."""
        nodes = tuple(self.tracker.nodes)
        return SurfaceView(
            nodes=nodes,
            generation=self.tracker.generation,
            rendered=tuple(raw_event_message(self.events[seq]) for seq in nodes),
            replacements=tuple(self.replacements),
            broken=self.broken,
        )


def fold_view(events: Iterable[SessionEvent]) -> SurfaceView:
    """The surface a whole log folds to."""
    folder = SurfaceFolder()
    folder.feed(events)
    return folder.view()


class AdoptedPrefix:
    """A log checker that adopted our generator's events, handed on once to continue from.

    ``adopt_prefix`` builds it in the same pass that folds the surface of those events; the
    log's check (``first_breach``) takes it over instead of adopting them again. Taken at most
    once: a checker continued with one answer's events is no start for another's.
    """

    __slots__ = ("_checker", "count")

    def __init__(self, checker: LogChecker) -> None:
        self._checker: LogChecker | None = checker
        # How many leading events of the log it adopted.
        self.count = len(checker.events)

    def take(self) -> LogChecker | None:
        """The checker, the first time; None after that."""
        checker, self._checker = self._checker, None
        return checker


def adopt_prefix(events: Sequence[SessionEvent]) -> tuple[AdoptedPrefix, SurfaceFolder]:
    """Our generator's events (valid by construction) adopted by a checker, and their fold.

    One pass serves both: the checker's surface after adopting them is the surface a
    ``SurfaceFolder`` folds them to (nothing breaks in a valid log), so the folder starts from
    a copy of it.
    """
    checker = LogChecker()
    checker.adopt_all(events)
    folder = SurfaceFolder()
    folder.tracker = checker.surface.copy()
    folder.events = list(checker.events)
    return AdoptedPrefix(checker), folder


def first_breach(
    events: Sequence[SessionEvent], vouched: int = 0, adopted: AdoptedPrefix | None = None
) -> Breach | None:
    """The first rule of any family (E, S, SI, C, G, M, TP) a whole log breaks, or None.

    ``vouched`` leading events are our generator's, which keep every rule by construction: they
    are adopted unchecked (``LogChecker.adopt``) and the rest judged as after a full check.
    ``adopted`` may pass a checker that already adopted exactly those events
    (``adopt_prefix``), continued here when it was not taken before.
    """
    checker = adopted.take() if adopted is not None and adopted.count == vouched else None
    if checker is None:
        checker = LogChecker()
        checker.adopt_all(events[:vouched])
    try:
        for event in events[vouched:]:
            checker.feed(event)
        checker.finish(allow_open_bracket=False)
    except LogViolationError as error:
        return Breach.of(error)
    return None


def live_lock(events: Sequence[SessionEvent]) -> int | None:
    """The seq of a live compaction/start: unmatched, and after the last end-seed (else None)."""
    for event in reversed(events):
        if event.type in ("compaction/end", "session/end-seed"):
            return None
        if event.type == "compaction/start":
            return event.seq
    return None


def parse_events(raw: Sequence[Any], where: str) -> tuple[SessionEvent, ...]:
    """Session events from JSON data, raising MalformedExchangeError naming the bad one."""
    events: list[SessionEvent] = []
    for index, item in enumerate(raw):
        if isinstance(item, SessionEvent):
            events.append(item)
            continue
        if not isinstance(item, Mapping):
            raise MalformedExchangeError(
                f"{where}[{index}] should be a session event object; found "
                f"{type(item).__name__}; send JSON objects with type, seq, time and data"
            )
        try:
            events.append(SessionEvent.from_json_data(dict(item)))
        except ValidationError as error:
            at, what = first_problem(error)
            raise MalformedExchangeError(
                f"{where}[{index}] is not a session event: {what} at {at}; fix the envelope"
            ) from error
    return tuple(events)


@dataclass(frozen=True)
class SessionBefore:
    """The log a backend was handed, captured before the call.

    ``log_data`` is a detached JSON copy, so a backend that edits the handed log in place cannot
    change it; ``live_lock`` is the seq of a live unmatched compaction/start, if any; ``folded``
    is the fold ``surface`` was read from, which the answer's incremental reading continues.
    """

    mode: Mode
    log_data: tuple[dict[str, Any], ...]
    events: tuple[SessionEvent, ...]
    surface: SurfaceView
    live_lock: int | None
    folded: SurfaceFolder | None = field(default=None, compare=False, repr=False)
    # How many leading events our generator wrote (vouched for: valid by construction).
    vouched: int = field(default=0, compare=False, repr=False)
    # A checker that adopted those events, for the log after's check to continue from.
    adopted: AdoptedPrefix | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        log: Sequence[Mapping[str, Any]],
        mode: Mode,
        events: Sequence[SessionEvent] | None = None,
        *,
        detached: bool = False,
        folder: SurfaceFolder | None = None,
        vouched: int = 0,
        adopted: AdoptedPrefix | None = None,
    ) -> SessionBefore:
        """Capture a log about to be handed to a backend.

        ``events`` may pass the log already parsed (the same events, in order) to skip parsing;
        ``detached`` says that ``log`` holds plain JSON dicts no one else will hand out or edit
        (fresh encodings), so they are kept as they are instead of copied; ``folder`` may pass
        a fold of a prefix of ``events`` (a fold it owns), continued here with the rest;
        ``vouched`` says how many leading ``events`` our generator wrote (see ``first_breach``)
        and ``adopted`` may pass a checker that adopted them (``adopt_prefix``).
        """
        data = tuple(
            (item if isinstance(item, dict) else dict(item)) if detached else json_copy(dict(item))
            for item in log
        )
        parsed = tuple(events) if events is not None else parse_events(data, "log")
        folded = folder if folder is not None else SurfaceFolder()
        folded.feed(parsed[len(folded.events) :])
        return cls(mode, data, parsed, folded.view(), live_lock(parsed), folded, vouched, adopted)

    def event_at(self, seq: int) -> SessionEvent | None:
        """The event with this seq in the log before, if any."""
        return self.events[seq] if 0 <= seq < len(self.events) else None


@dataclass(frozen=True)
class SessionAfter:
    """What one compaction left: the appended events and the log after, read three ways.

    ``log_data`` is the handed log re-read after the call (it differs from the log before only
    when the backend edited it in place); ``events`` is that log plus the appended events;
    ``surface`` folds ``events`` from scratch; ``incremental`` continues the log before with the
    appended events and records their replaces; ``breach`` is the first rule ``events`` breaks.
    """

    appended: tuple[SessionEvent, ...]
    log_data: tuple[dict[str, Any], ...]
    events: tuple[SessionEvent, ...]
    surface: SurfaceView
    incremental: SurfaceView
    breach: Breach | None

    @classmethod
    def observe(
        cls,
        before: SessionBefore,
        handed_after: Sequence[Mapping[str, Any]],
        appended: Sequence[Any],
    ) -> SessionAfter:
        """Read a backend's answer against the log it was handed."""
        # Parsing copies each event's values (its validators take a lossless copy), so the
        # events share nothing with the answer and need no copy of it first.
        added = parse_events(appended, "appended")
        # Compared before copying: a log handed back as it was (the usual answer) is the
        # before's own detached copy; an edited one is copied and parsed again.
        unchanged = list(handed_after) == list(before.log_data)
        log_data = (
            before.log_data if unchanged else tuple(json_copy(dict(item)) for item in handed_after)
        )
        logged = before.events if unchanged or log_data == before.log_data else None
        if logged is None:
            logged = parse_events(log_data, "log")
        events = (*logged, *added)
        if before.folded is not None:
            continued = before.folded.copy()
        else:
            continued = SurfaceFolder()
            continued.feed(before.events)
        continued.feed(added, record=True)
        incremental = continued.view()
        # The fold is a pure function of the events: when the log after is the log before and
        # the appended events, folding it from scratch gives the incremental surface exactly
        # (less the recorded replaces), so only an edited log is folded again.
        surface = (
            replace(incremental, replacements=()) if logged is before.events else fold_view(events)
        )
        return cls(
            appended=added,
            log_data=log_data,
            events=events,
            surface=surface,
            incremental=incremental,
            # Only a log handed back as it was keeps the generator's events where they were.
            breach=(
                first_breach(events, before.vouched, before.adopted)
                if logged is before.events
                else first_breach(events)
            ),
        )

    def event_at(self, seq: int) -> SessionEvent | None:
        """The event with this seq in the log after, if any."""
        return self.events[seq] if 0 <= seq < len(self.events) else None
