"""The reference session engine behind the protocol's JSON shape (``SessionCompactor``).

It answers a payload ``{"log": [...], "mode": ...}`` with the events it appended, or declines
with a reason; the shape is ``compactcheck.reference_engine.shared_semantics.SessionCompactor``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from compactcheck.invariants.session import SessionError, SessionEvent
from compactcheck.invariants.session.exchange import MODES
from compactcheck.invariants.session.exchange import Mode as SessionMode
from compactcheck.reference_engine.session.compactor import AutomaticTrigger, BasicCompactor
from compactcheck.reference_engine.session.config import CompactionConfig
from compactcheck.reference_engine.session.errors import PayloadError, render_error_chain
from compactcheck.reference_engine.session.log import Session, StepClock
from compactcheck.reference_engine.session.manual import IdleHost, compact_now
from compactcheck.reference_engine.session.meter import TokenMeter
from compactcheck.reference_engine.session.routing import latest_route
from compactcheck.reference_engine.session.signal import AbortSignal
from compactcheck.reference_engine.session.summariser import Summariser, TextSummariser
from compactcheck.reference_engine.session.transaction import IdMinter
from compactcheck.strategies.generated_log import GeneratedLog


class _RunningSession(Session):
    """A session rebuilt from a running log: validated like a seed, but no end-seed is written.

    A backend continues the lifecycle it was handed, so a live lock in the log must stay live;
    a seed would end with session/end-seed and turn it stale.
    """

    def __init__(
        self, log: Sequence[Mapping[str, Any]], adopted: Sequence[SessionEvent] = ()
    ) -> None:
        """Rebuild from ``log``; its first ``len(adopted)`` entries are ``adopted``, the events
        our generator wrote for them, committed as they are (``Session._adopt``)."""
        last_time = log[-1].get("time") if log else None
        start = last_time if type(last_time) is int else 1_000
        super().__init__("harness", None, clock=StepClock(start))
        # C7: a crossing is forgiven when a later end-seed orphans the bracket, as on replay.
        self._brackets.defer_crossings = True
        for event in adopted:
            self._adopt(event)
        for raw in log[len(adopted) :]:
            self._admit(self._envelope(raw), publish=False)
        self._brackets.defer_crossings = False


def _read_payload(payload: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], SessionMode]:
    log, mode = payload.get("log"), payload.get("mode")
    if not isinstance(log, list) or not all(isinstance(item, Mapping) for item in log):
        raise PayloadError(
            f"expected payload 'log' to be a list of session event objects; found "
            f"{type(log).__name__}; send {{'log': [...], 'mode': ...}}"
        )
    for known in MODES:
        if mode == known:
            return log, known
    raise PayloadError(f"expected payload 'mode' to be one of {', '.join(MODES)}; found {mode!r}")


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


def _nothing_reason(session: Session, mode: SessionMode) -> str:
    if mode != "manual" and latest_route(session) is None:
        return "no routed request/header in the log; automatic compaction needs a routed target"
    if mode == "pressure":
        return "below the pressure threshold, or no balanced span leaves the retained tail"
    return "no compactable history yet: no balanced span before the newest unit"


def _vouched(log: Sequence[Mapping[str, Any]], generated: GeneratedLog) -> tuple[SessionEvent, ...]:
    """The generator's events when ``log`` starts with exactly their JSON, else none.

    Trust goes with content, not with the call: a handed log that differs from what the
    generator wrote anywhere in its part is checked whole, as any other log is.
    """
    events = generated.events
    if len(log) < len(events) or list(log[: len(events)]) != generated.encoded():
        return ()
    return events


class ReferenceSessionCompactor:
    """The reference session engine behind the protocol's JSON shape (a ``GeneratedCompactor``).

    It rebuilds a session from the log, runs the requested mode (manual ``compact_now``;
    pressure and overflow ``compact_if_needed``, with the context window read from the log's
    latest request/context) and answers the events it appended, including a failed attempt's
    start and error end. When it appended nothing it declines with the reason.
    """

    def __init__(
        self,
        config: CompactionConfig,
        summariser: Callable[[], Summariser],
        meter: Callable[[], TokenMeter],
    ) -> None:
        self.config = config
        self.summariser = summariser
        self.meter = meter

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Compact the payload's log, parsing and checking every event of it."""
        log, mode = _read_payload(payload)
        return self._compact(_RunningSession(log), mode)

    def compact_generated(self, payload: dict[str, Any], generated: GeneratedLog) -> dict[str, Any]:
        """The answer of ``self(payload)``, adopting the events ``generated`` vouches for.

        Only a log that starts with exactly the generator's JSON skips their parsing and
        checking; what follows (the harness's own additions) is checked as always.
        """
        log, mode = _read_payload(payload)
        return self._compact(_RunningSession(log, _vouched(log, generated)), mode)

    def _compact(self, session: _RunningSession, mode: SessionMode) -> dict[str, Any]:
        first_new = session.seq

        def capacity(provider: str, model: str, signal: AbortSignal | None) -> int | None:
            return logged_capacity(session, provider, model)

        compactor = BasicCompactor(
            config=self.config,
            summariser=self.summariser(),
            meter=self.meter(),
            capacity=capacity,
            # Ids unique within the log, and the same on every run of the same log.
            new_id=IdMinter(f"compaction-at-{first_new}"),
        )
        reason: str | None = None
        try:
            if mode == "manual":
                result = compact_now(compactor, session, IdleHost())
            else:
                trigger: AutomaticTrigger = "pressure" if mode == "pressure" else "context-overflow"
                result = compactor.compact_if_needed(session, trigger)
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


def reference_session_compactor(
    *,
    config: CompactionConfig | None = None,
    summariser: Callable[[], Summariser] = TextSummariser,
    meter: Callable[[], TokenMeter] = TokenMeter,
) -> ReferenceSessionCompactor:
    """The reference session engine behind the protocol's JSON shape (see the class)."""
    chosen = config if config is not None else CompactionConfig()
    return ReferenceSessionCompactor(chosen, summariser, meter)
