"""The session view: one compaction (manual, pressure or overflow) of a generated log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactcheck.base.backend import Backend
from compactcheck.harness.cases import Case
from compactcheck.harness.outcome import BackendFaultError, RoundOutcome
from compactcheck.harness.session_exchange import SessionBackendError, session_exchange
from compactcheck.invariants import Facts, View
from compactcheck.invariants.session import SessionEvent
from compactcheck.invariants.session.exchange import MalformedExchangeError, parse_events
from compactcheck.invariants.session.exchange import Mode as SessionMode
from compactcheck.reference_engine.shared_semantics import SessionCompactor
from compactcheck.strategies import project_session
from compactcheck.strategies.facts import facts_of_truth
from compactcheck.strategies.generated_log import GeneratedLog


@dataclass(frozen=True)
class _Log:
    """A session log as the harness reads it."""

    events: tuple[SessionEvent, ...]


def backend_session_compactor(backend: Backend) -> SessionCompactor:
    """A session compactor that asks a backend over the protocol's JSON shapes."""

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        answer = backend.compact("session", payload)
        left = answer.input_after
        if isinstance(left, dict) and left is not payload:
            # A backend in another process reports the payload as its compactor left it: the
            # laws judge that edit in place as they judge one made in this process.
            payload.clear()
            payload.update(left)
        if answer.kind == "skipped":
            return {"skipped": answer.reason}
        if answer.kind == "errored" or answer.result is None:
            raise BackendFaultError(answer)
        return answer.result

    return compact


class SessionDriver:
    """The session view: one compaction (manual, pressure or overflow) of a generated log."""

    view: View = "session"

    def __init__(self, compactor: SessionCompactor) -> None:
        self.compactor = compactor

    def one(
        self,
        index: int,
        events: tuple[SessionEvent, ...],
        mode: SessionMode,
        facts: Facts,
        generated: GeneratedLog | None = None,
    ) -> RoundOutcome:
        """One compaction of the log ``events`` in ``mode`` (``generated``: the generator's mark
        on them, when the generator wrote them)."""
        # The recorded log shares the events' JSON values (no one edits either; the backend is
        # handed a copy): serialising copied every value, 4 % of a session case.
        log = [event.shared_json_data() for event in events]
        recorded = {"log": log, "mode": mode}
        try:
            # The recorded log doubles as the log before: neither is handed to the backend.
            done = session_exchange(
                self.compactor, _Log(events), mode, history_data=log, generated=generated
            )
        except SessionBackendError as error:
            cause = error.__cause__
            timed_out = isinstance(cause, BackendFaultError) and cause.answer.timed_out
            reason = cause.answer.reason if isinstance(cause, BackendFaultError) else str(error)
            # Not the backend's fault, nor a raise of the compactor: an answer outside the shape.
            wrong = (
                cause.answer.wrong_answer
                if isinstance(cause, BackendFaultError)
                else cause is None or isinstance(cause, MalformedExchangeError)
            )
            return RoundOutcome(
                index,
                "errored",
                facts,
                input=recorded,
                reason=reason,
                timed_out=timed_out,
                wrong_answer=wrong,
            )
        if done is None:
            return RoundOutcome(
                index, "declined", facts, input=recorded, reason="the backend declined to compact"
            )
        before, after = done
        output = {"appended": [event.to_json_data() for event in after.appended]}
        return RoundOutcome(index, "compacted", facts, before, after, recorded, output)

    def run(self, case: Case) -> list[RoundOutcome]:
        """Compact the whole generated log once, in the case's mode."""
        history = project_session(case.scenario)
        facts = facts_of_truth(case.scenario.truth)
        return [self.one(1, history.events, case.session_mode, facts, history.generated)]

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        events = parse_events(recorded["log"], "corpus entry")
        return self.one(
            entry["round"], events, recorded["mode"], Facts.model_validate(entry["facts"])
        )
