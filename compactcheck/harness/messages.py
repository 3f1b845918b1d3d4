"""The messages view: the compacted output plus the next turns is the next round's input.

A run speaks one wire format. Chat completions travel as ``{"messages": [...]}``; any other
format as ``{"format": NAME, "request": {...}}``, the provider request a compactor of that
format is handed (Anthropic ``system`` and ``messages``, Responses ``instructions`` and
``input``, Gemini ``systemInstruction`` and ``contents``), and it answers ``{"request": ...}``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from compactcheck.base.backend import Answer, Backend, handed
from compactcheck.base.errors import first_problem
from compactcheck.harness.cases import Case
from compactcheck.harness.outcome import RoundOutcome, Status, answer_problem
from compactcheck.invariants import Budget, ChatMessage, Facts, View, dump_messages, parse_messages
from compactcheck.invariants.formats import (
    CHAT,
    HISTORY_FIELD,
    Format,
    NativeRequest,
    parse_request,
    read,
)
from compactcheck.invariants.formats.projection import Features, project_format
from compactcheck.invariants.laws.messages.provider_rules import (
    chat_completions_problems,
    request_problems,
)
from compactcheck.strategies import Projected
from compactcheck.strategies.features import failed_calls
from compactcheck.strategies.messages_facts import messages_facts
from compactcheck.strategies.messages_view import MessageRecorder


def _edited(given: Any, left: Any) -> str | None:
    """How a compactor changed what it was handed, in place; None when it did not."""
    if left == given:
        return None
    if isinstance(given, list) and isinstance(left, list):
        changed = next(
            (i for i, (a, b) in enumerate(zip(given, left, strict=False)) if a != b),
            min(len(given), len(left)),
        )
        return (
            f"the message list it was handed, in place (first change at index {changed}); a "
            "compactor must return a new list"
        )
    return "the request it was handed, in place; a compactor must return a new one"


def _mutated(what: str) -> RoundOutcome:
    # The messages view's counterpart of state_untouched: an in-process compactor that edits
    # what it was handed would corrupt its caller's history.
    return RoundOutcome(0, "errored", reason=f"the backend mutated {what}")


class MessagesDriver:
    """The messages view: the compacted output plus the next turns is the next round's input."""

    view: View = "messages"

    def __init__(self, backend: Backend, budget: Budget | None = None, format: Format = CHAT):
        self.backend = backend
        self.budget = budget
        self.format = format

    def _answer(self, payload: dict[str, Any], key: str, given: Any) -> tuple[Answer, Any]:
        """The backend's answer, and what it left of the ``key`` part it was handed."""
        part = payload[key]
        answer = self.backend.compact("messages", payload)
        # A backend in another process reports the input as its compactor left it, when that
        # compactor edited it in place (an in-process one edited ``part`` itself).
        left = getattr(self.backend, "last_input", None)
        if key == "request" and isinstance(left, dict) and isinstance(left.get("request"), dict):
            left = left["request"]
        if isinstance(left, type(given)) and left is not part:
            part = left
        return answer, part

    def _ask(
        self,
        index: int,
        payload: dict[str, Any],
        key: str,
        recorded: dict[str, Any],
        facts: Facts,
        problems: tuple[str, ...],
    ) -> tuple[Answer, RoundOutcome | None]:
        """Hand ``payload`` over; the answer, and the round's outcome when it is a failure.

        A failure is an answer that is not a result, or a compactor that edited the ``key``
        part of what it was handed in place (``recorded[key]`` is that part as given).
        """
        given = recorded[key]
        answer, left = self._answer(payload, key, given)
        problem = answer_problem(answer)
        edited = _edited(given, left) if problem is None else None
        if edited is not None:
            problem = _mutated(edited)
        if problem is not None:
            problem.round, problem.facts, problem.input = index, facts, recorded
            problem.input_problems = problems
        return answer, problem

    def one(
        self,
        index: int,
        messages: list[dict[str, Any]],
        facts: Facts,
        knobs: tuple[int, ...],
        before: tuple[ChatMessage, ...] | None = None,
    ) -> RoundOutcome:
        """One compaction of ``messages`` (``before`` is them parsed, when the caller has it)."""
        if before is None:
            before = parse_messages(messages)
        problems = tuple(chat_completions_problems(messages))
        payload: dict[str, Any] = {"messages": handed(self.backend, messages)}
        recorded: dict[str, Any] = {"messages": messages}
        if knobs:
            payload["knobs"] = recorded["knobs"] = list(knobs)
        answer, problem = self._ask(index, payload, "messages", recorded, facts, problems)
        if problem is not None:
            return problem
        assert answer.result is not None
        output = answer.result.get("messages")
        try:
            after = parse_messages(output)
        except ValidationError as error:
            where, what = first_problem(error)
            return RoundOutcome(
                index,
                "errored",
                facts,
                input=recorded,
                output=output,
                reason=f"the answer is not a valid chat message list: {where}: {what}",
                input_problems=problems,
                wrong_answer=True,
            )
        status: Status = "unchanged" if list(after) == list(before) else "compacted"
        # The whole answer is kept: adapters report the parameters they drew beside the messages.
        return RoundOutcome(
            index, status, facts, before, after, recorded, answer.result, input_problems=problems
        )

    def native(
        self,
        index: int,
        request: dict[str, Any],
        facts: Facts,
        knobs: tuple[int, ...],
    ) -> RoundOutcome:
        """One compaction of a provider request of the run's format."""
        native_before = parse_request(self.format, request)
        problems = tuple(request_problems(self.format, native_before))
        payload: dict[str, Any] = {
            "format": self.format,
            "request": handed(self.backend, request),
        }
        recorded: dict[str, Any] = {"format": self.format, "request": request}
        if knobs:
            payload["knobs"] = recorded["knobs"] = list(knobs)
        answer, problem = self._ask(index, payload, "request", recorded, facts, problems)
        if problem is not None:
            return problem
        assert answer.result is not None
        output = answer.result.get("request")
        try:
            native_after = parse_request(self.format, output)
        except ValidationError as error:
            where, what = first_problem(error)
            return RoundOutcome(
                index,
                "errored",
                facts,
                input=recorded,
                output=output,
                reason=f"the answer is not a valid {self.format} request: {where}: {what}",
                input_problems=problems,
                wrong_answer=True,
            )
        status: Status = "unchanged" if native_after == native_before else "compacted"
        return RoundOutcome(
            index,
            status,
            facts,
            read(native_before),
            read(native_after),
            recorded,
            answer.result,
            input_problems=problems,
            native_before=native_before,
            native_after=native_after,
        )

    def run(self, case: Case) -> list[RoundOutcome]:
        """Compact after each round's turns; feed the output forward."""
        if self.format != CHAT:
            return self._run_native(case)
        outcomes: list[RoundOutcome] = []
        carried: list[dict[str, Any]] = []
        carried_models: tuple[ChatMessage, ...] = ()
        seen = 0
        for index, (prefix, history) in enumerate(case.projected(MessageRecorder)):
            fresh = history.messages[seen:]
            seen = len(history.messages)
            facts = messages_facts(Projected(prefix, history), self.budget)
            # The parsed input is what was projected and what the target answered: no parse.
            outcome = self.one(
                index + 1,
                [*carried, *dump_messages(fresh)],
                facts,
                case.knobs,
                (*carried_models, *fresh),
            )
            outcomes.append(outcome)
            if not outcome.answered:
                break
            carried_models = tuple(outcome.after)
            carried = dump_messages(carried_models)
        return outcomes

    def _run_native(self, case: Case) -> list[RoundOutcome]:
        """Each round: the answer so far, then the next turns in the same format."""
        outcomes: list[RoundOutcome] = []
        carried: dict[str, Any] | None = None
        features = Features(case.features)
        errors = failed_calls(case.scenario)
        field = HISTORY_FIELD[self.format]
        seen = 0
        for index, (prefix, history) in enumerate(case.projected(MessageRecorder)):
            fresh = project_format(
                self.format, history.messages[seen:], features, errors, offset=seen
            )
            seen = len(history.messages)
            facts = messages_facts(Projected(prefix, history), self.budget)
            if carried is None:
                request = fresh
            else:
                request = {**carried, field: [*carried.get(field, []), *fresh[field]]}
            outcome = self.native(index + 1, request, facts, case.knobs)
            outcomes.append(outcome)
            if not outcome.answered:
                break
            after: NativeRequest = outcome.native_after
            carried = after.to_json_data()
        return outcomes

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        facts = Facts.model_validate(entry["facts"])
        knobs = tuple(recorded.get("knobs", ()))
        if "request" in recorded:
            return self.native(entry["round"], recorded["request"], facts, knobs)
        return self.one(entry["round"], recorded["messages"], facts, knobs)
