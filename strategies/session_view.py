"""The session view of a scenario: an append-only session log with a surface (seed 002)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from compactcheck.invariants.session import SessionEvent, checkpoint_source, estimate_message
from compactcheck.strategies.generated_log import GeneratedLog, _written
from compactcheck.strategies.narration import narration
from compactcheck.strategies.projected import Recorder, ViewHistories
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import Action, ToolBatch, ToolCallSpec, Turn

_PROVIDER: Final = "openai"
_MODEL: Final = "gpt-test"
_START_TIME: Final = 1_767_225_600_000


@dataclass(frozen=True)
class SessionHistory:
    """A session log, where its live lifecycle starts, and what the projection left out.

    ``open_turn`` is the turn a trailing pending batch keeps open; ``skipped_compactions``
    counts earlier compactions of the scenario that this view could not show because no
    checkpoint could be smaller than the history it would replace (rule G-g). ``generated`` is
    the generator's mark on ``events`` (None on a history built from anything else).
    """

    events: tuple[SessionEvent, ...]
    first_live_seq: int = 0
    open_turn: int | None = None
    skipped_compactions: int = 0
    generated: GeneratedLog | None = field(default=None, compare=False, repr=False)

    def as_dicts(self) -> list[dict[str, Any]]:
        """The log as JSON-shaped events."""
        return [event.to_json_data() for event in self.events]


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


class SessionRecorder(Recorder[SessionHistory]):
    """Writes the session log of a run as it is walked: one step per turn, manual compactions."""

    # The run's last turn stays open while a batch is pending.
    ends_turns_alike = False

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.events: list[SessionEvent] = []
        self.nodes: list[int] = []
        self.turn_number = 0
        self.first_live_seq = 0
        self.compactions = 0
        self.skipped = 0
        self.open_turn: int | None = None
        restarts = [index for index, turn in enumerate(scenario.turns) if turn.restarted_before]
        self.stale_at = restarts[-1] if restarts and scenario.stale_lock else None
        self.turn_index = 0

    def emit(
        self,
        kind: str,
        data: Any,
        surface_op: Any = None,
        sources: list[int] | None = None,
    ) -> SessionEvent:
        """Append one event with the next seq; a surface append also grows the surface.

        Every value passed is fresh plain JSON built for this event alone (strings, integers,
        lists and dicts), so the event is built without a validating copy; the tests of the view
        validate every event it writes.
        """
        seq = len(self.events)
        event = SessionEvent.trusted(kind, seq, _START_TIME + seq, data, surface_op, sources)
        self.events.append(event)
        if surface_op == "append":
            self.nodes.append(seq)
        return event

    def _assistant(self, content: list[dict[str, Any]]) -> None:
        seq = len(self.events)
        message = {
            "id": f"msg-{seq}",
            "role": "assistant",
            "content": content,
            "source": {"kind": "model", "provider": _PROVIDER, "model": _MODEL},
        }
        data = {"turn": self.turn_number, "step": 1, "message": message}
        self.emit("assistant/message", data, "append")

    def restart(self, stale_lock: bool) -> None:
        if self.stale_at == self.turn_index:
            # The earlier lifecycle crashed mid-compaction: its start stays, made stale below.
            self.emit("compaction/start", {"compactionId": "compaction-crashed", "turn": None})
        self.emit("session/end-seed", {})
        self.first_live_seq = len(self.events)

    def compaction(self) -> None:
        nodes = list(self.nodes)
        shadowed_price = sum(estimate_message(self._message_of(seq)) for seq in nodes)
        truth = self.ledger.truth()
        candidates = [
            f"Summary. Goal: {truth.goal}. Constraints: {'; '.join(truth.constraints)}.",
            f"Goal: {truth.goal}",
            ".",
        ]
        summary = next(
            (
                text
                for text in candidates
                if estimate_message(self._user(text, {"kind": "user"})) < shadowed_price
            ),
            None,
        )
        if summary is None or not nodes:
            self.skipped += 1
            return
        self.compactions += 1
        compaction_id = f"compaction-{self.compactions}"
        start = self.emit("compaction/start", {"compactionId": compaction_id, "turn": None})
        shadow_range = {"start": nodes[0], "end": nodes[-1]}
        summary_event = self.emit(
            "compaction/summary",
            {
                "compactionId": compaction_id,
                "summary": _text(summary),
                "shadowedRange": shadow_range,
                "shadowedSeqs": nodes,
                "shadowedTokenCount": shadowed_price,
                "provider": _PROVIDER,
                "model": _MODEL,
            },
        )
        checkpoint = self._user(summary, checkpoint_source(compaction_id))
        self.emit(
            "user/message",
            checkpoint,
            {"op": "replace", **shadow_range},
            [start.seq, summary_event.seq, *nodes],
        )
        self.nodes = [len(self.events) - 1]
        self.emit("compaction/end", {"compactionId": compaction_id, "turn": None})

    def _message_of(self, seq: int) -> dict[str, Any]:
        event = self.events[seq]
        message: dict[str, Any] = (
            event.data if event.type == "user/message" else event.data["message"]
        )
        return message

    def _user(self, text: str, source: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": f"msg-{len(self.events)}",
            "role": "user",
            "content": _text(text),
            "source": source,
        }

    def turn(self, index: int, turn: Turn, answered: str | None) -> None:
        self.ledger.turn(index, turn, answered)
        parts = [f"Goal: {self.ledger.scenario.goal}"] if index == 0 else []
        if answered is not None:
            parts.append(f"Answer to {answered!r}: {turn.answer}")
        parts.append(turn.user_text)
        constraints = (*self.ledger.scenario.constraints, *turn.constraint_changes)
        for constraint in constraints if index == 0 else turn.constraint_changes:
            replaced = (
                f" (replaces [{constraint.supersedes}])"
                if constraint.supersedes is not None
                else ""
            )
            parts.append(f"Constraint [{constraint.id}]: {constraint.text}{replaced}")
        self.emit("user/message", self._user("\n".join(parts), {"kind": "user"}), "append")
        self.turn_number += 1
        self.open_turn = self.turn_number
        self.emit("turn/start", {"turn": self.turn_number})
        self.emit("step/start", {"turn": self.turn_number, "step": 1})

    def action(self, action: Action) -> None:
        self.ledger.action(action)
        if isinstance(action, ToolBatch):
            self.batch(action)
        else:
            self._assistant(_text(narration(action, skill_description=False)))

    def batch(self, batch: ToolBatch) -> None:
        """The assistant message carrying the calls, then one tool/call event per call."""
        self._assistant(
            [
                {
                    "type": "tool-call",
                    "id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
                for call in batch.calls
            ]
        )
        for call in batch.calls:
            self.emit(
                "tool/call",
                {
                    "turn": self.turn_number,
                    "step": 1,
                    "callId": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                },
            )

    def result(self, call: ToolCallSpec, late: bool) -> None:
        self.ledger.result(call, late)
        block = {
            "type": "tool-result",
            "toolCallId": call.call_id,
            "isError": call.is_error,
            "content": _text(call.output),
        }
        message = {
            "id": f"msg-{len(self.events)}",
            "role": "user",
            "content": [block],
            "source": {"kind": "tool", "callId": call.call_id},
        }
        self.emit(
            "tool/result", {"turn": self.turn_number, "step": 1, "message": message}, "append"
        )

    def question(self, question: str) -> None:
        self.ledger.question(question)
        self._assistant(_text(question))

    def pending(self, batch: ToolBatch) -> None:
        self.ledger.pending(batch)
        self.batch(batch)

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        self.ledger.turn_end(index, turn, last)
        self.turn_index = index + 1
        if last and self.ledger.pending_calls:
            return
        self.emit("step/end", {"turn": self.turn_number, "step": 1})
        self.emit("turn/end", {"turn": self.turn_number, "reason": {"kind": "completed"}})
        self.open_turn = None

    def history(self) -> SessionHistory:
        """The session view as it stands."""
        events = tuple(self.events)
        return SessionHistory(
            events, self.first_live_seq, self.open_turn, self.skipped, _written(events)
        )


def project_session(scenario: Scenario) -> SessionHistory:
    """The session view of a scenario."""
    return SessionRecorder.project(scenario)


# Scenarios projected into the session view.
session_histories = ViewHistories(project_session)
