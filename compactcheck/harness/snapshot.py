"""The snapshot view: each round compacts the run so far, carrying the compaction state.

A target answers only the draft; the shared frame
(``compactcheck.reference_engine.shared_semantics``) hands it its input, seals the draft and keeps
the raw tail, as the seed's engine would.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from compactcheck.base.backend import Answer, Backend
from compactcheck.base.errors import first_problem
from compactcheck.harness.cases import Case
from compactcheck.harness.outcome import BackendFaultError, RoundOutcome, Status
from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactorInput,
    Facts,
    SnapshotDraft,
    View,
)
from compactcheck.invariants.canonical import json_copy
from compactcheck.reference_engine.shared_semantics import SnapshotFrame, is_safe_boundary
from compactcheck.strategies.snapshot_view import SnapshotRecorder

# A round dumps every event of its history: in one call of the serializer, what each event's
# ``to_json_data`` gives (a call per event cost a fifth more).
_EVENTS = TypeAdapter(tuple[AgentEvent, ...])
# What ``AgentEvent.trusted`` calls, looked up once: a round may copy every event.
_built = AgentEvent.built


class BackendCompactor:
    """A snapshot compactor that asks a backend over the protocol's JSON shapes."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.last_seen: dict[str, Any] | None = None

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Hand the input over as JSON; the draft comes back as JSON."""
        payload = {"compactorInput": compactor_input.to_json_data()}
        answer = self.backend.compact("snapshot", payload)
        seen = getattr(self.backend, "last_input", None)
        self.last_seen = seen if isinstance(seen, dict) else None
        if answer.kind != "result" or answer.result is None:
            raise BackendFaultError(answer)
        try:
            return SnapshotDraft.from_json_data(answer.result.get("draft"))
        except ValidationError as error:
            where, what = first_problem(error)
            raise BackendFaultError(
                Answer.error(
                    f"the answer is not a valid snapshot draft: {where}: {what}", wrong_answer=True
                )
            ) from error


def backend_snapshot_frame(backend: Backend) -> SnapshotFrame:
    """The shared frame around a backend's snapshot compactor."""
    return SnapshotFrame(compactor=BackendCompactor(backend))


class SnapshotDriver:
    """The snapshot view: each round compacts the run so far, carrying compaction state."""

    view: View = "snapshot"

    def __init__(self, frame: SnapshotFrame) -> None:
        self.frame = frame

    def one(
        self,
        index: int,
        state: AgentState,
        events: tuple[AgentEvent, ...],
        facts: Facts,
        pending: int,
        shared: bool = False,
    ) -> tuple[RoundOutcome, AgentState | None]:
        """One compaction of ``state`` and ``events``: the outcome, and the state to carry on.

        ``shared``: later rounds read the same event objects, so the compactor gets copies.
        """
        recorded = {
            "state": state.to_json_data(),
            "events": _EVENTS.dump_python(events, mode="json", by_alias=True, exclude_none=True),
        }
        if not is_safe_boundary(state.status, pending, 0):
            return RoundOutcome(index, "unsafe", facts, input=recorded), None
        # The recorded input above is a dump of its own, and the laws see an edit in place
        # through the handed data the frame dumps before and after the call. So the compactor is
        # handed ``events`` themselves where the round owns them (the last round of a case, a
        # replay); an earlier round's events are the start of the later rounds' too (one walk
        # projects them all), and it gets copies (valid already: the payloads copied, no
        # validation), so that its edits cannot reach a later round's input.
        if shared:
            events = tuple(
                _built(
                    {
                        "event_id": e.event_id,
                        "sequence": e.sequence,
                        "type": e.type,
                        "payload": json_copy(e.payload),
                    }
                )
                for e in events
            )
        try:
            done = self.frame.compact(state, events)
        except BackendFaultError as fault:
            status: Status = "skipped" if fault.answer.kind == "skipped" else "errored"
            return RoundOutcome(
                index,
                status,
                facts,
                input=recorded,
                reason=fault.answer.reason,
                timed_out=fault.answer.timed_out,
                wrong_answer=fault.answer.wrong_answer,
            ), None
        if done is None:
            return RoundOutcome(
                index, "declined", facts, input=recorded, reason="the context would not shrink"
            ), None
        before, after, carried = done
        output = {
            "snapshot": after.snapshot.to_json_data(),
            "rawTail": [e.to_json_data() for e in after.raw_tail],
        }
        return RoundOutcome(index, "compacted", facts, before, after, recorded, output), carried

    def run(self, case: Case) -> list[RoundOutcome]:
        """Compact after each round's turns, carrying the compaction state forward."""
        outcomes: list[RoundOutcome] = []
        carried: AgentState | None = None
        rounds = case.projected(SnapshotRecorder)
        for index, (prefix, history) in enumerate(rounds):
            state = history.state
            if carried is not None:
                state = state.model_copy(update={"compaction": carried.compaction})
            facts = Facts.of_state(state, superseded=prefix.truth.superseded_constraints)
            outcome, next_state = self.one(
                index + 1,
                state,
                history.events,
                facts,
                history.pending_tool_calls,
                shared=index < len(rounds) - 1,
            )
            outcomes.append(outcome)
            if outcome.status in ("errored", "skipped"):
                break
            # A declined or unsafe round leaves the state as it was; the run goes on.
            if next_state is not None:
                carried = next_state
        return outcomes

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        state = AgentState.from_json_data(recorded["state"])
        events = tuple(AgentEvent.from_json_data(e) for e in recorded["events"])
        outcome, _ = self.one(
            entry["round"], state, events, Facts.model_validate(entry["facts"]), 0
        )
        return outcome
