"""One session compaction: the log a target is handed for a mode, and how its answer is read.

``session_exchange`` runs a ``SessionCompactor`` (the shape in
``compactcheck.reference_engine.shared_semantics``) on a generated history and returns what the laws
judge; it raises ``SessionBackendError`` for every backend fault (a raise, or an answer outside the
shape), so a runner can count the call as errored.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from compactcheck.invariants.canonical import json_copy
from compactcheck.invariants.session import SessionError, SessionEvent, node_price
from compactcheck.invariants.session.exchange import (
    AdoptedPrefix,
    MalformedExchangeError,
    SessionAfter,
    SessionBefore,
    SurfaceFolder,
    adopt_prefix,
    parse_events,
)
from compactcheck.invariants.session.exchange import Mode as SessionMode
from compactcheck.reference_engine.shared_semantics import GeneratedCompactor, SessionCompactor
from compactcheck.strategies.generated_log import GeneratedLog

# The routed target the harness writes for automatic modes (pressure and overflow need one).
HARNESS_PROVIDER: Final = "openai"
HARNESS_MODEL: Final = "gpt-test"


class SessionLog(Protocol):
    """A generated session history (``compactcheck.strategies.SessionHistory`` is one): its
    events."""

    @property
    def events(self) -> Sequence[SessionEvent]:
        """The log, oldest first."""
        ...


class SessionBackendError(SessionError):
    """A session backend raised, or answered outside the protocol's shape: count it as errored."""


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


def _folded_price(folder: SurfaceFolder) -> int:
    return sum(node_price(folder.events[seq]) for seq in folder.tracker.nodes)


def _additions(
    events: Sequence[SessionEvent],
    mode: SessionMode,
    context_window: int | None,
    folder: SurfaceFolder,
) -> list[dict[str, Any]]:
    """The events the harness writes after the history for a mode (``folder``: its fold).

    Manual compaction gets the history as it is. Automatic modes run inside an open turn with a
    routed target, as the agent's pre-step and request-error hooks do: when the history ends
    between turns the next turn is opened, then a request/header names the target and a
    request/context gives its window (by default the surface's own price, so the log sits above
    an 80% pressure threshold).
    """
    if mode == "manual":
        return []
    added: list[dict[str, Any]] = []
    highest, open_turn = _turns(events)
    time = events[-1].time if events else 0

    def add(kind: str, data: dict[str, Any]) -> None:
        seq = len(events) + len(added)
        added.append({"type": kind, "seq": seq, "time": time + seq, "data": data})

    if open_turn is None:
        add("turn/start", {"turn": highest + 1})
    target = {"provider": HARNESS_PROVIDER, "model": HARNESS_MODEL}
    add("request/header", {"header": {"config": target}, "reason": "initial"})
    window = context_window if context_window is not None else max(1, _folded_price(folder))
    add("request/context", {**target, "contextWindow": window})
    return added


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
    mode: SessionMode,
    *,
    context_window: int | None = None,
    history_data: Sequence[dict[str, Any]] | None = None,
    generated: GeneratedLog | None = None,
) -> tuple[SessionBefore, SessionAfter] | None:
    """Run one compaction of a prepared history; None when the backend declined.

    ``history_data`` may pass the history's events already encoded (fresh JSON dicts, in order,
    that no one edits) to skip encoding them again. ``generated`` is the generator's mark on the
    history's events: a ``GeneratedCompactor`` is handed it beside the payload (any other
    compactor never sees it). Raises SessionBackendError when the backend raised or answered
    outside the shape.
    """
    events = history.events
    # The mark vouches for these very events (the history's own objects), or for nothing.
    written = generated.events if generated is not None else ()
    vouched = (
        len(written)
        if len(written) <= len(events) and all(map(operator.is_, written, events))
        else 0
    )
    # One fold of the history serves the default window and the log before; the events our
    # generator wrote are folded by the pass that adopts them for the log's check.
    adopted: AdoptedPrefix | None = None
    if vouched:
        adopted, folder = adopt_prefix(events[:vouched])
    else:
        folder = SurfaceFolder()
    folder.feed(events[vouched:])
    encoded = (
        list(history_data)
        if history_data is not None
        else [event.to_json_data() for event in events]
    )
    additions = _additions(events, mode, context_window, folder)
    # The history's events are already validated; only the harness's own additions are parsed.
    added = parse_events(additions, "prepared log")
    # The additions are copied in: the handed log below shares nothing with the log before.
    before = SessionBefore.of(
        [*encoded, *map(json_copy, additions)],
        mode,
        (*events, *added),
        detached=True,
        folder=folder,
        vouched=vouched,
        adopted=adopted,
    )
    payload: dict[str, Any] = {"log": [json_copy(item) for item in before.log_data], "mode": mode}
    try:
        if generated is not None and isinstance(compactor, GeneratedCompactor):
            answer = compactor.compact_generated(payload, generated)
        else:
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
