"""Broken message compactors, each breaking one messages-view law the way real ones do.

Each mutant is the reference message compactor with one bug: a wrong cut rule or head
(``cuts``), a careless summary (``summaries``) or an edit of what it keeps (``edits``).
"""

from __future__ import annotations

from compactcheck.reference_engine.mutants.messages import cuts, edits, summaries
from compactcheck.reference_engine.mutants.messages.builders import (
    MUTANT_BUDGET,
    MUTANT_MAX_MESSAGES,
    chat_mutant,
)
from compactcheck.reference_engine.mutants.mutant import Mutant

__all__ = ["MESSAGE_MUTANTS", "MUTANT_BUDGET", "MUTANT_MAX_MESSAGES"]

MESSAGE_MUTANTS: tuple[Mutant, ...] = (
    chat_mutant(
        "messages-cut-parallel-results",
        "tool_pairing",
        "treats any cut not right after a call as safe, so the tail can start between "
        "parallel results",
        cuts.cut_after_results,
        8,
    ),
    chat_mutant(
        "messages-keep-last-n",
        "tool_pairing",
        "keeps the system prompt and the last messages blindly, orphaning a tool result",
        cuts.keep_last_n,
        12,
    ),
    chat_mutant(
        "messages-drop-late-results",
        "tool_pairing",
        "drops a tool result that did not arrive right after its call, keeping the call",
        cuts.drop_late_results,
        12,
        malformed=("late-results",),
    ),
    chat_mutant(
        "messages-resummarise-goal",
        "goal_preserved",
        "re-summarises the first user message to its first line, eroding the task",
        summaries.resummarise_goal,
        8,
    ),
    chat_mutant(
        "messages-demote-system",
        "constraints_preserved",
        "folds the system prompt into the summary, a user message",
        summaries.demote_system,
        8,
    ),
    chat_mutant(
        "messages-stale-constraint",
        "constraints_preserved",
        "ends the summary by restating every constraint it saw, superseded ones too",
        summaries.restate_constraints,
        10,
    ),
    chat_mutant(
        "messages-weaken-constraints",
        "constraints_not_weakened",
        "restates the system prompt's rules as preferences ('..., where possible')",
        edits.weaken_constraints,
        8,
    ),
    chat_mutant(
        "messages-invent-constraint",
        "no_invented_constraints",
        "ends the summary with a constraint nobody gave",
        summaries.invent_constraint,
        8,
    ),
    chat_mutant(
        "messages-drop-trailing-assistant",
        "recent_tail_preserved",
        "drops a final assistant reply so that the context ends on a user or tool turn",
        cuts.drop_trailing_assistant,
        4,
    ),
    chat_mutant(
        "messages-summary-first",
        "order_preserved",
        "puts the summary above the system prompt instead of in the span it replaces",
        summaries.summary_first,
        8,
    ),
    chat_mutant(
        "messages-truncate-tool-output",
        "tool_results_unpruned",
        "prunes long tool outputs of kept messages in place",
        edits.truncate_tool_output,
        8,
    ),
    chat_mutant(
        "messages-clear-call-arguments",
        "kept_messages_verbatim",
        "clears the arguments of the older tool calls it keeps, to save their tokens",
        edits.clear_call_arguments,
        8,
    ),
    chat_mutant(
        "messages-summary-drops-arguments",
        "facts_preserved",
        "summarises tool calls by name and results by status, losing the files they touched",
        summaries.summary_without_arguments,
        8,
    ),
    chat_mutant(
        "messages-empty-over-budget",
        "non_empty",
        "returns an empty list when the history is longer than its cap",
        cuts.empty_when_over,
        8,
    ),
    chat_mutant(
        "messages-drop-user-turns",
        "user_turn_present",
        "writes the summary as a system message and drops every user turn",
        summaries.drop_user_turns,
        8,
    ),
    chat_mutant(
        "messages-assistant-first",
        "user_turn_first",
        "drops the user turns at the head of its window, so an assistant turn opens the history",
        cuts.assistant_first,
        8,
    ),
    chat_mutant(
        "messages-budget-counts-messages",
        "budget_respected",
        "reads its token budget as a message count, so it never trims",
        cuts.budget_counts_messages,
        12,
        MUTANT_BUDGET,
    ),
    chat_mutant(
        "messages-summary-without-trim",
        "progress",
        "adds the summary of the span it meant to drop but keeps the span, so the context grows",
        cuts.summary_without_trim,
        12,
        MUTANT_BUDGET,
    ),
)
