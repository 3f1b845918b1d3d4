"""The facts of a projected message history, as the messages-view laws read them."""

from __future__ import annotations

from compactcheck.invariants.facts import Budget, Facts
from compactcheck.invariants.laws.messages import searchable_text
from compactcheck.invariants.messages import UserMessage, content_text
from compactcheck.strategies.facts import facts_of_truth
from compactcheck.strategies.messages_view import MessageHistory
from compactcheck.strategies.projected import Projected


def messages_facts(projected: Projected[MessageHistory], budget: Budget | None = None) -> Facts:
    """The ground truth of a message history, with identifiers as they appear in its messages.

    ``must_keep`` lists the changed file paths and the ids of steps not yet completed, each only
    when the messages spell it out verbatim: an identifier the history never showed cannot be
    demanded of a compactor that only sees the history.
    """
    truth = projected.truth
    messages = projected.view.messages
    corpus = "\n".join(searchable_text(message) for message in messages)
    first_user = next((m for m in messages if isinstance(m, UserMessage)), None)
    opening = content_text(first_user.content) if first_user is not None else ""
    goal = truth.goal if truth.goal in opening else opening
    candidates = (*truth.changed_files, *truth.pending_step_ids)
    must_keep = tuple(ident for ident in dict.fromkeys(candidates) if ident in corpus)
    return facts_of_truth(truth).model_copy(
        update={"goal": goal, "must_keep": must_keep, "budget": budget}
    )
