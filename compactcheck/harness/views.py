"""Per-view drivers: generate multi-round cases, run a target on them, re-run one round."""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from hypothesis import strategies as st
from pydantic import ValidationError

from compactcheck.targets.backend import Answer, Backend
from invariants import (
    AgentEvent,
    AgentState,
    Budget,
    CompactorInput,
    Facts,
    Finding,
    Invariant,
    SnapshotDraft,
    View,
    dump_messages,
    parse_messages,
)
from invariants.session import SessionEvent
from invariants.session.exchange import MODES as SESSION_MODES
from invariants.session.exchange import Mode as SessionMode
from invariants.session.exchange import parse_events
from reference_engine.session.harness import (
    SessionBackendError,
    SessionCompactor,
    session_exchange,
)
from reference_engine.snapshot import SnapshotPipeline, is_safe_boundary
from strategies import (
    Projected,
    Scenario,
    project_messages,
    project_session,
    project_snapshot,
    scenarios,
)
from strategies.facts import facts_of_truth
from strategies.messages_facts import messages_facts
from strategies.provider_rules import chat_completions_problems

KNOBS = 8

# compacted: the answer changed the history; unchanged: it handed the history back as it was.
Status = Literal["compacted", "unchanged", "declined", "skipped", "errored", "unsafe"]
# Inputs that break a provider's rules on purpose, each only when the user names it (--malformed):
# a tool result arriving after other messages, and tool calls left without results.
MALFORMED: tuple[str, ...] = ("late-results", "pending-calls")


@dataclass(frozen=True)
class Case:
    """A scenario and where its rounds end: round r sees the first ``cuts[r]`` turns."""

    scenario: Scenario
    cuts: tuple[int, ...]
    # Which compaction the session view asks for (the other views ignore it).
    session_mode: SessionMode = "manual"
    # Small integers drawn with the history for a compactor's own settings (see the adapters):
    # they travel in the messages payload and shrink with the history.
    knobs: tuple[int, ...] = ()

    def prefix(self, round_index: int) -> Scenario:
        """The scenario as it stands at the end of one round (0-based)."""
        turns = self.cuts[round_index]
        last = round_index == len(self.cuts) - 1
        if last:
            return self.scenario
        return replace(self.scenario, turns=self.scenario.turns[:turns], pending_batch=None)


def cases(
    rounds: int, view: View | None = None, malformed: Collection[str] = ()
) -> st.SearchStrategy[Case]:
    """Cases for one view: a messages history is one the provider accepts unless ``malformed``.

    The snapshot and session designs allow a result to arrive late; a chat provider does not.
    """
    if view == "messages":
        late, pending = "late-results" in malformed, "pending-calls" in malformed
        return _cases(rounds, scenarios(late_results=late, pending_calls=pending))
    return _cases(rounds, scenarios())


@st.composite
def _cases(draw: st.DrawFn, rounds: int, scenario_strategy: st.SearchStrategy[Scenario]) -> Case:
    """A scenario cut into one to ``rounds`` compaction rounds at turn boundaries."""
    scenario = draw(scenario_strategy)
    turns = len(scenario.turns)
    count = draw(st.integers(1, max(1, min(rounds, turns))))
    inner = (
        sorted(draw(st.sets(st.integers(1, turns - 1), min_size=count - 1, max_size=count - 1)))
        if count > 1
        else []
    )
    if count > 1:
        # Earlier compactions inside later rounds would rewrite what an earlier round saw;
        # the chained rounds are the compactions under test there.
        first = inner[0]
        turns_fixed = tuple(
            turn if index < first else replace(turn, compacted_before=False)
            for index, turn in enumerate(scenario.turns)
        )
        scenario = replace(scenario, turns=turns_fixed)
    mode = draw(st.sampled_from(SESSION_MODES))
    knobs = tuple(draw(st.lists(st.integers(0, 15), min_size=KNOBS, max_size=KNOBS)))
    return Case(scenario, (*inner, turns), mode, knobs)


@dataclass
class RoundOutcome:
    """One round of a case: what went in, what came out, and the facts to judge it by."""

    round: int
    status: Status
    facts: Facts | None = None
    before: Any = None
    after: Any = None
    input: Any = None
    output: Any = None
    reason: str = ""
    timed_out: bool = False
    # The provider rules the input breaks (empty for input a provider accepts).
    input_problems: tuple[str, ...] = ()

    @property
    def judged(self) -> bool:
        """Whether the round compacted: changed the history, so every law applies."""
        return self.status == "compacted"

    @property
    def answered(self) -> bool:
        """Whether the target gave a valid answer, changed or not."""
        return self.status in ("compacted", "unchanged")

    def judges(self, law: Invariant) -> bool:
        """Whether ``law`` applies to this round: it compacted, or the law judges any answer."""
        return self.judged or (self.status == "unchanged" and not law.requires_change)

    def judge(self, law: Invariant) -> Finding:
        """One law's finding on this round (only where the law applies)."""
        if self.facts is None or not self.judges(law):
            raise ValueError(f"round {self.round} was {self.status}; {law.id} has nothing to judge")
        return law.check(self.before, self.after, self.facts)


class Driver(Protocol):
    """Runs one target on cases of one view."""

    view: View

    def run(self, case: Case) -> list[RoundOutcome]:
        """Every round of a case, in order."""
        ...

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run one recorded round (a crash corpus entry's ``input`` and ``facts``)."""
        ...


def _answer_problem(answer: Answer) -> RoundOutcome | None:
    if answer.kind == "skipped":
        return RoundOutcome(0, "skipped", reason=answer.reason)
    if answer.kind == "errored":
        return RoundOutcome(0, "errored", reason=answer.reason, timed_out=answer.timed_out)
    return None


class MessagesDriver:
    """The messages view: the compacted output plus the next turns is the next round's input."""

    view: View = "messages"

    def __init__(self, backend: Backend, budget: Budget | None = None) -> None:
        self.backend = backend
        self.budget = budget

    def _one(
        self, index: int, messages: list[dict[str, Any]], facts: Facts, knobs: tuple[int, ...]
    ) -> RoundOutcome:
        before = parse_messages(messages)
        problems = tuple(chat_completions_problems(messages))
        handed = copy.deepcopy(messages)
        payload: dict[str, Any] = {"messages": handed}
        recorded: dict[str, Any] = {"messages": messages}
        if knobs:
            payload["knobs"] = recorded["knobs"] = list(knobs)
        answer = self.backend.compact("messages", payload)
        problem = _answer_problem(answer)
        if problem is None and handed != messages:
            # The messages view's counterpart of state_untouched: an in-process compactor that
            # edits the list it was handed would corrupt its caller's history.
            changed = next(
                (i for i, (a, b) in enumerate(zip(messages, handed, strict=False)) if a != b),
                min(len(messages), len(handed)),
            )
            problem = RoundOutcome(
                0,
                "errored",
                reason=f"the backend mutated the message list it was handed, in place (first "
                f"change at index {changed}); a compactor must return a new list",
            )
        if problem is not None:
            problem.round, problem.facts, problem.input = index, facts, recorded
            problem.input_problems = problems
            return problem
        assert answer.result is not None
        output = answer.result.get("messages")
        try:
            after = parse_messages(output)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            return RoundOutcome(
                index,
                "errored",
                facts,
                input=recorded,
                output=output,
                reason=f"the answer is not a valid chat message list: {where}: {first['msg']}",
                input_problems=problems,
            )
        status: Status = "unchanged" if list(after) == list(before) else "compacted"
        # The whole answer is kept: adapters report the parameters they drew beside the messages.
        return RoundOutcome(
            index, status, facts, before, after, recorded, answer.result, input_problems=problems
        )

    def run(self, case: Case) -> list[RoundOutcome]:
        """Compact after each round's turns; feed the output forward."""
        outcomes: list[RoundOutcome] = []
        carried: list[dict[str, Any]] = []
        seen = 0
        for index in range(len(case.cuts)):
            prefix = case.prefix(index)
            history = project_messages(prefix)
            new = dump_messages(history.messages[seen:])
            seen = len(history.messages)
            facts = messages_facts(Projected(prefix, history), self.budget)
            outcome = self._one(index + 1, [*carried, *new], facts, case.knobs)
            outcomes.append(outcome)
            if not outcome.answered:
                break
            carried = dump_messages(outcome.after)
        return outcomes

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        return self._one(
            entry["round"],
            recorded["messages"],
            Facts.model_validate(entry["facts"]),
            tuple(recorded.get("knobs", ())),
        )


class BackendFaultError(Exception):
    """A backend behind JSON answered skipped or errored."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.reason)
        self.answer = answer


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
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise BackendFaultError(
                Answer.error(f"the answer is not a valid snapshot draft: {where}: {first['msg']}")
            ) from error


class SnapshotDriver:
    """The snapshot view: each round compacts the run so far, carrying compaction state."""

    view: View = "snapshot"

    def __init__(self, pipeline: SnapshotPipeline) -> None:
        self.pipeline = pipeline

    def _one(
        self,
        index: int,
        state: AgentState,
        events: tuple[AgentEvent, ...],
        facts: Facts,
        pending: int,
    ) -> tuple[RoundOutcome, AgentState | None]:
        recorded = {"state": state.to_json_data(), "events": [e.to_json_data() for e in events]}
        if not is_safe_boundary(state.status, pending, 0):
            return RoundOutcome(index, "unsafe", facts, input=recorded), None
        working_state = copy.deepcopy(state)
        working_events = copy.deepcopy(events)
        try:
            done = self.pipeline.compact(working_state, working_events)
        except BackendFaultError as fault:
            status: Status = "skipped" if fault.answer.kind == "skipped" else "errored"
            return RoundOutcome(
                index,
                status,
                facts,
                input=recorded,
                reason=fault.answer.reason,
                timed_out=fault.answer.timed_out,
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
        for index in range(len(case.cuts)):
            prefix = case.prefix(index)
            history = project_snapshot(prefix)
            state = history.state
            if carried is not None:
                state = state.model_copy(update={"compaction": carried.compaction})
            facts = Facts.of_state(state, superseded=prefix.truth.superseded_constraints)
            outcome, next_state = self._one(
                index + 1, state, history.events, facts, history.pending_tool_calls
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
        outcome, _ = self._one(
            entry["round"], state, events, Facts.model_validate(entry["facts"]), 0
        )
        return outcome


@dataclass(frozen=True)
class _Log:
    """A session log as the harness reads it."""

    events: tuple[SessionEvent, ...]


def backend_session_compactor(backend: Backend) -> SessionCompactor:
    """A session compactor that asks a backend over the protocol's JSON shapes."""

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        answer = backend.compact("session", payload)
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

    def _one(
        self, index: int, events: tuple[SessionEvent, ...], mode: SessionMode, facts: Facts
    ) -> RoundOutcome:
        recorded = {"log": [event.to_json_data() for event in events], "mode": mode}
        try:
            done = session_exchange(self.compactor, _Log(events), mode)
        except SessionBackendError as error:
            cause = error.__cause__
            timed_out = isinstance(cause, BackendFaultError) and cause.answer.timed_out
            reason = cause.answer.reason if isinstance(cause, BackendFaultError) else str(error)
            return RoundOutcome(
                index, "errored", facts, input=recorded, reason=reason, timed_out=timed_out
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
        return [self._one(1, tuple(history.events), case.session_mode, facts)]

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        events = parse_events(recorded["log"], "corpus entry")
        return self._one(
            entry["round"], events, recorded["mode"], Facts.model_validate(entry["facts"])
        )
