"""The messages view of a scenario: OpenAI chat messages with a system prompt and tool calls."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from compactcheck.invariants import (
    AssistantMessage,
    ChatMessage,
    FunctionCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from compactcheck.strategies.narration import narration
from compactcheck.strategies.projected import Recorder, ViewHistories
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import Action, Constraint, ToolBatch, ToolCallSpec, Turn

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
    """Writes the chat messages of a run as it is walked."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        lines = [constraint_line(constraint, None) for constraint in scenario.constraints]
        prompt = SYSTEM_PROMPT + ("\nConstraints:\n" + "\n".join(lines) if lines else "")
        self.system = SystemMessage(content=prompt)
        self.messages: list[ChatMessage] = []
        self.pending_ids: list[str] = []

    def compaction(self) -> None:
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
        if turn.constraint_changes:
            parts.append(
                "New constraints:\n"
                + "\n".join(
                    constraint_line(constraint, replaced.get(constraint.id))
                    for constraint in turn.constraint_changes
                )
            )
        self.messages.append(UserMessage(content="\n\n".join(parts)))

    def action(self, action: Action) -> None:
        self.ledger.action(action)
        if isinstance(action, ToolBatch):
            self.messages.append(self.batch(action))
        else:
            self.messages.append(self.said(narration(action)))

    @staticmethod
    @lru_cache(maxsize=4096)
    def batch(batch: ToolBatch) -> AssistantMessage:
        """An assistant message carrying the batch's calls.

        Kept for batches seen before (both are immutable): each round of a case projects the
        run from its start again, and building the validated message is most of a batch's cost.
        """
        return AssistantMessage(
            tool_calls=tuple(
                ToolCall(
                    id=call.call_id, function=FunctionCall(name=call.name, arguments=call.arguments)
                )
                for call in batch.calls
            )
        )

    # Kept like ``batch``: every round projects the run from its start again, so the same
    # words and results come back, and a validated message costs more than a cache lookup.
    @staticmethod
    @lru_cache(maxsize=4096)
    def said(text: str) -> AssistantMessage:
        """An assistant message of plain text."""
        return AssistantMessage(content=text)

    @staticmethod
    @lru_cache(maxsize=8192)
    def answer(call_id: str, output: str) -> ToolMessage:
        """The result message of a tool call."""
        return ToolMessage(tool_call_id=call_id, content=output)

    def result(self, call: ToolCallSpec, late: bool) -> None:
        self.ledger.result(call, late)
        self.messages.append(self.answer(call.call_id, call.output))

    def question(self, question: str) -> None:
        self.ledger.question(question)
        self.messages.append(self.said(question))

    def pending(self, batch: ToolBatch) -> None:
        self.ledger.pending(batch)
        self.messages.append(self.batch(batch))
        self.pending_ids.extend(call.call_id for call in batch.calls)

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        self.ledger.turn_end(index, turn, last)

    def history(self) -> MessageHistory:
        """The messages view as it stands."""
        return MessageHistory((self.system, *self.messages), tuple(self.pending_ids))


def project_messages(scenario: Scenario) -> MessageHistory:
    """The messages view of a scenario."""
    return MessageRecorder.project(scenario)


# Scenarios projected into the messages view.
message_histories = ViewHistories(project_messages)
