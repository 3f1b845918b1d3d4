"""The messages view of a scenario: OpenAI chat messages with a system prompt and tool calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants import ChatMessage, UserMessage, dump_messages
from compactcheck.strategies import chat_shapes as build
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.narration import narration
from compactcheck.strategies.projected import Recorder, ViewHistories
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.shapes import Shapes
from compactcheck.strategies.turns import (
    Action,
    CompleteStep,
    Constraint,
    StartStep,
    ToolBatch,
    ToolCallSpec,
    Turn,
)

SYSTEM_PROMPT = "You are a careful coding agent. Follow every constraint below."


@dataclass(frozen=True)
class MessageHistory:
    """A chat message list and the ids of the calls whose results have not arrived."""

    messages: tuple[ChatMessage, ...]
    pending_call_ids: tuple[str, ...] = ()

    def as_dicts(self) -> list[dict[str, Any]]:
        """The messages as OpenAI chat dicts."""
        return dump_messages(self.messages)


def constraint_line(constraint: Constraint, replaced_text: str | None) -> str:
    """How a constraint reads in a prompt; an update names the one it replaces."""
    if constraint.supersedes is None:
        return f"- [{constraint.id}] {constraint.text}"
    return (
        f"- [{constraint.id}] {constraint.text} "
        f"(replaces [{constraint.supersedes}] {replaced_text})"
    )


class MessageRecorder(Recorder[MessageHistory]):
    """Writes the chat messages of a run as it is walked, in the shapes its client gives them."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.shapes = Shapes.of(scenario.shapes)
        lines = [constraint_line(constraint, None) for constraint in scenario.constraints]
        listed = "Constraints:\n" + "\n".join(lines) if lines else ""
        self.system = build.system(SYSTEM_PROMPT, listed, self.shapes)
        self.messages: list[ChatMessage] = []
        self.pending_ids: list[str] = []
        # What the assistant said last, held for the tool batch it comes with (words_with_calls).
        self.held: str | None = None
        # The turn's actions so far, and the user's words due after a number of them.
        self.acted = 0
        self.due_at = 0
        self.due: tuple[str, ...] = ()
        self.plan_calls = 0

    def compaction(self) -> None:
        self.release()
        # An earlier compaction left one summary in place of everything before it, as
        # summarising middlewares do: it carries what the run must not forget.
        truth = self.ledger.truth()
        plan = truth.plan
        lines = ["Summary of the conversation so far.", f"Goal: {truth.goal}"]
        lines += [f"Constraint: {text}" for text in truth.constraints]
        lines += [
            f"Step {step.id} ({step.title}): {step.status}"
            + (f", evidence: {'; '.join(step.evidence)}" if step.evidence else "")
            for step in plan.steps
        ]
        lines += [f"Acceptance: {item.description}" for item in plan.acceptance_criteria]
        lines += [f"Changed file: {path}" for path in truth.changed_files]
        lines += [
            f"Validation: {item.command} {'passed' if item.passed else 'failed'} ({item.summary})"
            for item in truth.validations
        ]
        lines += [f"Failed attempt: {text}" for text in truth.failed_attempts]
        lines += [f"Active skill: {name}" for name in truth.active_skills]
        if truth.pending_question:
            lines.append(f"Open question to the user: {truth.pending_question}")
        self.messages = [UserMessage(content="\n".join(lines))]

    def turn(self, index: int, turn: Turn, answered: str | None) -> None:
        self.release()
        replaced = {
            constraint.id: self.ledger.superseded_text(constraint.supersedes)
            for constraint in turn.constraint_changes
            if constraint.supersedes is not None
        }
        self.ledger.turn(index, turn, answered)
        parts = [f"Goal: {self.ledger.scenario.goal}"] if index == 0 else []
        if answered is not None:
            parts.append(f"Answer to {answered!r}: {turn.answer}")
        parts.append(turn.user_text)
        changes = (
            "New constraints:\n"
            + "\n".join(
                constraint_line(constraint, replaced.get(constraint.id))
                for constraint in turn.constraint_changes
            )
            if turn.constraint_changes
            else ""
        )
        # A user who writes again while the agent works gives the turn's new rules then.
        self.acted, self.due_at = 0, turn.interjection
        self.due = ((changes or turn.aside),) if turn.interjection else ()
        if changes and not turn.interjection:
            parts.append(changes)
        image = words.IMAGE_URLS[0] if index == 0 and self.shapes.image else None
        self.messages.append(build.user(tuple(parts), self.shapes, image))
        if index == 0 and self.shapes.refusal:
            # The model declines part of the request, then gets on with the rest.
            rotation = self.ledger.scenario.run_id
            self.messages.append(build.refused(words.REFUSALS[len(rotation) % 2]))

    def interject(self) -> None:
        """The user's words due at this point of the turn, if they are due now."""
        if self.due and self.acted >= self.due_at:
            self.release()
            self.messages.append(build.user(self.due, self.shapes))
            self.due = ()

    def release(self) -> None:
        """The words held for a tool batch, said on their own: no batch followed them."""
        if self.held is not None:
            self.messages.append(build.said(self.held, self.shapes))
            self.held = None

    def action(self, action: Action) -> None:
        self.interject()
        self.acted += 1
        self.ledger.action(action)
        if isinstance(action, ToolBatch):
            self.make_calls(action)
        elif isinstance(action, StartStep | CompleteStep) and self.shapes.plan_tool:
            self.plan_call(action)
        else:
            self.release()
            text = narration(action)
            if self.shapes.words_with_calls:
                self.held = text
            else:
                self.messages.append(build.said(text, self.shapes))

    def make_calls(self, batch: ToolBatch) -> None:
        """The assistant message making a batch's calls, with the words held for it."""
        self.messages.append(build.calls(batch, self.held, self.shapes))
        self.held = None

    def plan_call(self, action: StartStep | CompleteStep) -> None:
        """A step started or completed with the plan tool, answered at once with "ok"."""
        started = isinstance(action, StartStep)
        arguments: dict[str, str] = {
            "step_id": action.step_id,
            "status": "in_progress" if started else "completed",
        }
        if isinstance(action, CompleteStep):
            arguments["evidence"] = "; ".join(action.evidence)
        # Numbered apart from the run's other calls, and not after the step: its id is no place
        # the step's id is said.
        self.plan_calls += 1
        call_id = f"call_plan_{self.plan_calls}"
        encoded = json.dumps(arguments, separators=(",", ":"))
        call = ToolCallSpec(call_id, words.PLAN_TOOL, encoded, "ok", False)
        self.make_calls(ToolBatch(f"batch_{call_id}", (call,)))
        self.messages.append(build.answer(call_id, "ok", self.shapes))

    def result(self, call: ToolCallSpec, late: bool) -> None:
        self.ledger.result(call, late)
        self.release()
        self.messages.append(build.answer(call.call_id, call.output, self.shapes))

    def question(self, question: str) -> None:
        self.interject()
        self.release()
        self.ledger.question(question)
        self.messages.append(build.said(question, self.shapes))

    def pending(self, batch: ToolBatch) -> None:
        self.interject()
        self.ledger.pending(batch)
        self.make_calls(batch)
        self.pending_ids.extend(call.call_id for call in batch.calls)

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        self.interject()
        self.release()
        self.ledger.turn_end(index, turn, last)

    def history(self) -> MessageHistory:
        """The messages view as it stands."""
        return MessageHistory((self.system, *self.messages), tuple(self.pending_ids))


def project_messages(scenario: Scenario) -> MessageHistory:
    """The messages view of a scenario."""
    return MessageRecorder.project(scenario)


# Scenarios projected into the messages view.
message_histories = ViewHistories(project_messages)
