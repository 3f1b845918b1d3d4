"""The messages view: the compacted output plus the next turns is the next round's input."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from compactcheck.errors import first_problem
from compactcheck.harness.cases import Case
from compactcheck.harness.outcome import RoundOutcome, Status, answer_problem
from compactcheck.targets.backend import Backend
from invariants import Budget, ChatMessage, Facts, View, dump_messages, json_copy, parse_messages
from strategies import Projected, project_messages
from strategies.messages_facts import messages_facts
from strategies.provider_rules import chat_completions_problems


class MessagesDriver:
    """The messages view: the compacted output plus the next turns is the next round's input."""

    view: View = "messages"

    def __init__(self, backend: Backend, budget: Budget | None = None) -> None:
        self.backend = backend
        self.budget = budget

    def _one(
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
        handed = json_copy(messages)
        payload: dict[str, Any] = {"messages": handed}
        recorded: dict[str, Any] = {"messages": messages}
        if knobs:
            payload["knobs"] = recorded["knobs"] = list(knobs)
        answer = self.backend.compact("messages", payload)
        problem = answer_problem(answer)
        # A backend in another process reports the input as its compactor left it, when that
        # compactor edited it in place (an in-process one edited ``handed`` itself).
        left = getattr(self.backend, "last_input", None)
        if isinstance(left, list) and left is not payload["messages"]:
            handed = left
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
            where, what = first_problem(error)
            return RoundOutcome(
                index,
                "errored",
                facts,
                input=recorded,
                output=output,
                reason=f"the answer is not a valid chat message list: {where}: {what}",
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
        carried_models: tuple[ChatMessage, ...] = ()
        seen = 0
        for index in range(len(case.cuts)):
            prefix = case.prefix(index)
            history = project_messages(prefix)
            fresh = history.messages[seen:]
            seen = len(history.messages)
            facts = messages_facts(Projected(prefix, history), self.budget)
            # The parsed input is what was projected and what the target answered: no parse.
            outcome = self._one(
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

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round."""
        recorded = entry["input"]
        return self._one(
            entry["round"],
            recorded["messages"],
            Facts.model_validate(entry["facts"]),
            tuple(recorded.get("knobs", ())),
        )
