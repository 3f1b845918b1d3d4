"""The session-view harness: any session backend behind the protocol's JSON shape, run on a log.

A session compactor is a callable from a JSON payload to a JSON answer (protocol version 1)::

    payload {"log": [session events], "mode": "manual" | "pressure" | "overflow"}
    answer  {"appended": [the session events the compaction appended]}   a result
            {"skipped": "why it declined"}                                 a decline

A compactor that raises has errored. ``session_exchange`` runs one on a generated history and
returns what the laws judge; it raises ``SessionBackendError`` for every backend fault (a raise,
or an answer outside the shape), so a runner can count the call as errored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from invariants.session import SessionError, SessionEvent, node_price
from invariants.session.exchange import (
    MODES,
    MalformedExchangeError,
    Mode,
    SessionAfter,
    SessionBefore,
    SurfaceFolder,
    parse_events,
)
from reference_engine.session.compactor import BasicCompactor
from reference_engine.session.compactor import Mode as AutomaticMode
from reference_engine.session.config import CompactionConfig
from reference_engine.session.errors import render_error_chain
from reference_engine.session.log import Session, StepClock
from reference_engine.session.manual import IdleHost, compact_now
from reference_engine.session.meter import TokenMeter
from reference_engine.session.routing import latest_route
from reference_engine.session.signal import AbortSignal
from reference_engine.session.summariser import Summariser, TextSummariser
from reference_engine.session.transaction import IdMinter

SessionCompactor = Callable[[dict[str, Any]], dict[str, Any]]

# The routed target the harness writes for automatic modes (pressure and overflow need one).
HARNESS_PROVIDER: Final = "openai"
HARNESS_MODEL: Final = "gpt-test"


class SessionLog(Protocol):
    """A generated session history (``strategies.SessionHistory`` is one): its events."""

    @property
    def events(self) -> Sequence[SessionEvent]:
        """The log, oldest first."""
        ...


class SessionBackendError(SessionError):
    """A session backend raised, or answered outside the protocol's shape: count it as errored."""


# -- the reference backend -----------------------------------------------------------------


class _RunningSession(Session):
    """A session rebuilt from a running log: validated like a seed, but no end-seed is written.

    A backend continues the lifecycle it was handed, so a live lock in the log must stay live;
    a seed would end with session/end-seed and turn it stale.
    """

    def __init__(self, log: Sequence[Mapping[str, Any]]) -> None:
        last_time = log[-1].get("time") if log else None
        start = last_time if type(last_time) is int else 1_000
        super().__init__("harness", None, clock=StepClock(start))
        # C7: a crossing is forgiven when a later end-seed orphans the bracket, as on replay.
        self._brackets.defer_crossings = True
        for raw in log:
            self._admit(self._envelope(raw), publish=False)
        self._brackets.defer_crossings = False


def _read_payload(payload: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], Mode]:
    log, mode = payload.get("log"), payload.get("mode")
    if not isinstance(log, list) or not all(isinstance(item, Mapping) for item in log):
        raise SessionBackendError(
            f"expected payload 'log' to be a list of session event objects; found "
            f"{type(log).__name__}; send {{'log': [...], 'mode': ...}}"
        )
    for known in MODES:
        if mode == known:
            return log, known
    raise SessionBackendError(
        f"expected payload 'mode' to be one of {', '.join(MODES)}; found {mode!r}"
    )


def logged_capacity(session: Session, provider: str, model: str) -> int | None:
    """The context window the latest request/context gives for a target, or None."""
    for event in reversed(session.events):
        data = event.data
        if event.type != "request/context" or not isinstance(data, dict):
            continue
        if data.get("provider") == provider and data.get("model") == model:
            window = data.get("contextWindow")
            return window if type(window) is int and window > 0 else None
    return None


def _nothing_reason(session: Session, mode: Mode) -> str:
    if mode != "manual" and latest_route(session) is None:
        return "no routed request/header in the log; automatic compaction needs a routed target"
    if mode == "pressure":
        return "below the pressure threshold, or no balanced span leaves the retained tail"
    return "no compactable history yet: no balanced span before the newest unit"


def reference_session_compactor(
    *,
    config: CompactionConfig | None = None,
    summariser: Callable[[], Summariser] = TextSummariser,
    meter: Callable[[], TokenMeter] = TokenMeter,
) -> SessionCompactor:
    """The reference session engine behind the protocol's JSON shape.

    It rebuilds a session from the log, runs the requested mode (manual ``compact_now``;
    pressure and overflow ``compact_if_needed``, with the context window read from the log's
    latest request/context) and answers the events it appended, including a failed attempt's
    start and error end. When it appended nothing it declines with the reason.
    """
    chosen = config if config is not None else CompactionConfig()

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        log, mode = _read_payload(payload)
        session = _RunningSession(log)
        first_new = session.seq

        def capacity(provider: str, model: str, signal: AbortSignal | None) -> int | None:
            return logged_capacity(session, provider, model)

        compactor = BasicCompactor(
            config=chosen,
            summariser=summariser(),
            meter=meter(),
            capacity=capacity,
            # Ids unique within the log, and the same on every run of the same log.
            new_id=IdMinter(f"compaction-at-{first_new}"),
        )
        reason: str | None = None
        try:
            if mode == "manual":
                result = compact_now(compactor, session, IdleHost())
            else:
                automatic: AutomaticMode = "pressure" if mode == "pressure" else "context-overflow"
                result = compactor.compact_if_needed(session, automatic)
            if result is None:
                reason = _nothing_reason(session, mode)
        except SessionError as error:
            # Classified failures: a failed attempt is answered by the events it logged; one
            # that logged nothing (busy, no open turn, no capacity) is a decline.
            reason = render_error_chain(error)
        appended = [event.to_json_data() for event in session.events[first_new:]]
        if appended:
            return {"appended": appended}
        return {"skipped": reason or "nothing was appended"}

    return compact


# -- preparing a generated history for a mode -------------------------------------------------


def _turns(events: Sequence[SessionEvent]) -> tuple[int, int | None]:
    """The highest turn number seen and the open turn (None between turns)."""
    highest = 0
    open_turn: int | None = None
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        turn = data.get("turn")
        if event.type == "turn/start" and type(turn) is int:
            highest = max(highest, turn)
            open_turn = turn
        elif event.type == "turn/end":
            open_turn = None
    return highest, open_turn


def surface_price(events: Sequence[SessionEvent]) -> int:
    """The heuristic price of the surface a log folds to."""
    folder = SurfaceFolder()
    folder.feed(events)
    return sum(node_price(events[seq]) for seq in folder.tracker.nodes)


def prepared_log(
    history: SessionLog, mode: Mode, *, context_window: int | None = None
) -> list[dict[str, Any]]:
    """The log handed to a backend for a mode.

    Manual compaction gets the history as it is. Automatic modes run inside an open turn with a
    routed target, as the agent's pre-step and request-error hooks do: when the history ends
    between turns the next turn is opened, then a request/header names the target and a
    request/context gives its window (by default the surface's own price, so the log sits above
    an 80% pressure threshold).
    """
    log = [event.to_json_data() for event in history.events]
    if mode == "manual":
        return log
    events = history.events
    highest, open_turn = _turns(events)
    time = events[-1].time if events else 0

    def add(kind: str, data: dict[str, Any]) -> None:
        log.append({"type": kind, "seq": len(log), "time": time + len(log), "data": data})

    if open_turn is None:
        add("turn/start", {"turn": highest + 1})
    target = {"provider": HARNESS_PROVIDER, "model": HARNESS_MODEL}
    add("request/header", {"header": {"config": target}, "reason": "initial"})
    window = context_window if context_window is not None else max(1, surface_price(events))
    add("request/context", {**target, "contextWindow": window})
    return log


def _appended_of(answer: object) -> list[Any] | None:
    """The appended events of a result, None for a decline; raise for anything else."""
    if not isinstance(answer, Mapping):
        raise SessionBackendError(
            f"expected the answer to be an object; found {type(answer).__name__}; answer "
            "{'appended': [...]} or {'skipped': reason}"
        )
    keys = set(answer)
    if keys == {"appended"} and isinstance(answer["appended"], list):
        return list(answer["appended"])
    if keys == {"skipped"} and isinstance(answer["skipped"], str):
        return None
    raise SessionBackendError(
        f"expected an answer {{'appended': [events]}} or {{'skipped': reason}}; found keys "
        f"{sorted(map(str, keys))}"
    )


def session_exchange(
    compactor: SessionCompactor,
    history: SessionLog,
    mode: Mode,
    *,
    context_window: int | None = None,
) -> tuple[SessionBefore, SessionAfter] | None:
    """Run one compaction of a prepared history; None when the backend declined.

    Raises SessionBackendError when the backend raised or answered outside the shape.
    """
    log = prepared_log(history, mode, context_window=context_window)
    # The history's events are already validated; only the harness's own additions are parsed.
    added = parse_events(log[len(history.events) :], "prepared log")
    before = SessionBefore.of(log, mode, (*history.events, *added))
    payload: dict[str, Any] = {"log": log, "mode": mode}
    try:
        answer = compactor(payload)
    except Exception as error:
        raise SessionBackendError(
            f"the session backend raised {type(error).__name__} in {mode} mode: {error}"
        ) from error
    appended = _appended_of(answer)
    if appended is None:
        return None
    handed = payload.get("log")
    try:
        if not isinstance(handed, list):
            raise MalformedExchangeError(
                f"the backend replaced the handed log with {type(handed).__name__}"
            )
        after = SessionAfter.observe(before, handed, appended)
    except MalformedExchangeError as error:
        raise SessionBackendError(f"unreadable answer in {mode} mode: {error}") from error
    return before, after
