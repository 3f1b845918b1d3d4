"""Turn, step and tool-call enclosure (rules SI): the core session invariant every log obeys."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.errors import LogViolationError

TURN_SCOPED_TYPES = frozenset({"todo/write", "request/header", "request/context"})
# The kinds ``Enclosure.apply`` commits more than the last seq for (keep in step with it): a
# caller that commits many events may set ``last_seq`` alone for the others.
ENCLOSING_TYPES = frozenset(
    {"turn/start", "turn/end", "step/start", "step/end", "tool/call", "tool/result"}
)


def _int(data: Any, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if type(value) is int else None


def result_call_id(data: Any) -> str | None:
    """The call id a tool/result answers (its source.callId)."""
    message = data.get("message") if isinstance(data, dict) else None
    source = message.get("source") if isinstance(message, dict) else None
    call_id = source.get("callId") if isinstance(source, dict) else None
    return call_id if isinstance(call_id, str) else None


def _error_code(data: Any) -> str | None:
    error = data.get("error") if isinstance(data, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


class Enclosure:
    """The state of the turn/step/tool-call invariant after a log prefix."""

    def __init__(self) -> None:
        self.last_seq = -1
        self.open_turn: int | None = None
        self.open_step: int | None = None
        self.next_turn = 1
        self.next_step = 1
        self.pending_calls: list[str] = []

    def _fail(self, rule: str, event: SessionEvent, message: str) -> LogViolationError:
        return LogViolationError(rule, event.seq, message)

    def _require_step(self, event: SessionEvent) -> None:
        turn, step = _int(event.data, "turn"), _int(event.data, "step")
        if self.open_turn is None or self.open_step is None:
            raise self._fail(
                "SI-step-scope",
                event,
                f"{event.type} needs an open turn and step; found none open; "
                "append it between step/start and step/end",
            )
        if (turn, step) != (self.open_turn, self.open_step):
            raise self._fail(
                "SI-step-scope",
                event,
                f"{event.type} names turn {turn} step {step}; expected the open turn "
                f"{self.open_turn} step {self.open_step}",
            )

    def check(self, event: SessionEvent) -> None:
        """Raise when the event would break an enclosure rule; change nothing."""
        if event.seq <= self.last_seq:
            raise self._fail(
                "SI-seq", event, f"seq {event.seq} is not above the previous seq {self.last_seq}"
            )
        kind, data = event.type, event.data
        if kind == "turn/start":
            turn = _int(data, "turn")
            if self.open_turn is not None:
                raise self._fail(
                    "SI-turn-start",
                    event,
                    f"turn/start {turn} while turn {self.open_turn} is open; end it first",
                )
            if turn != self.next_turn:
                raise self._fail(
                    "SI-turn-start", event, f"expected turn/start {self.next_turn}; found {turn}"
                )
        elif kind == "turn/end":
            turn = _int(data, "turn")
            if self.open_turn is None or turn != self.open_turn:
                raise self._fail(
                    "SI-turn-end",
                    event,
                    f"turn/end {turn} must name the open turn; found open turn {self.open_turn}",
                )
            if self.open_step is not None:
                raise self._fail(
                    "SI-turn-end",
                    event,
                    f"turn/end {turn} while step {self.open_step} is open; end the step first",
                )
        elif kind == "step/start":
            turn, step = _int(data, "turn"), _int(data, "step")
            if self.open_turn is None or turn != self.open_turn or self.open_step is not None:
                raise self._fail(
                    "SI-step-start",
                    event,
                    f"step/start {turn}.{step} needs open turn {turn} and no open step; found turn "
                    f"{self.open_turn}, step {self.open_step}",
                )
            if step != self.next_step:
                raise self._fail(
                    "SI-step-start", event, f"expected step {self.next_step}; found {step}"
                )
        elif kind == "step/end":
            turn, step = _int(data, "turn"), _int(data, "step")
            if (turn, step) != (self.open_turn, self.open_step) or self.open_step is None:
                raise self._fail(
                    "SI-step-end",
                    event,
                    f"step/end {turn}.{step} must match the open step "
                    f"{self.open_turn}.{self.open_step}",
                )
        elif kind in ("assistant/chunk", "assistant/message", "tool/call"):
            self._require_step(event)
        elif kind == "tool/result":
            if event.is_replacement:
                if self.open_turn is None:
                    raise self._fail(
                        "SI-rewrite",
                        event,
                        "tool/result surface replacement appended outside any open turn; "
                        "rewrite results only while a turn is open",
                    )
                return
            self._require_step(event)
            call_id = result_call_id(data)
            if call_id not in self.pending_calls and _error_code(data) != "TOOL_NOT_STARTED":
                raise self._fail(
                    "SI-tool-result",
                    event,
                    f"tool/result for call {call_id!r} has no pending tool/call in this step; "
                    f"pending: {self.pending_calls}",
                )
        elif kind in TURN_SCOPED_TYPES and self.open_turn is None:
            raise self._fail(
                "SI-open-turn", event, f"{kind} needs an open turn; found none; start a turn first"
            )

    def apply(self, event: SessionEvent) -> None:
        """Commit an event that check() accepted."""
        self.last_seq = event.seq
        kind, data = event.type, event.data
        if kind == "turn/start":
            self.open_turn = _int(data, "turn")
            self.next_step = 1
        elif kind == "turn/end":
            self.open_turn = None
            self.next_turn += 1
        elif kind == "step/start":
            self.open_step = _int(data, "step")
        elif kind == "step/end":
            self.open_step = None
            self.pending_calls.clear()
            self.next_step += 1
        elif kind == "tool/call":
            call_id = data.get("callId") if isinstance(data, dict) else None
            if isinstance(call_id, str):
                self.pending_calls.append(call_id)
        elif kind == "tool/result" and not event.is_replacement:
            call_id = result_call_id(data)
            if call_id in self.pending_calls:
                self.pending_calls.remove(call_id)
