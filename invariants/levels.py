"""Conformance levels: the laws grouped into promises a compactor author can aim for.

1. **The provider accepts it**: the compacted history is one the model's API takes and the run's
   machinery can read: the compactor answers, tool calls and results stay paired, something
   (and some user turn) is left, every structural rule of the wire format holds; for the
   snapshot and session views, the snapshot or log is well formed and cites only what it may.
2. **The agent can carry on**: what the agent needs to continue its task survives: the goal,
   the current constraints, the recent tail in order, pending work, the question it is waiting
   on, and compaction makes progress.
3. **Nothing that matters is lost**: every must-keep fact (changed files, completed work and its
   evidence, skills, failed attempts, validations, identifiers), within the declared budget.

A target reaches level N when every applicable law of levels 1 to N passed and none of them is
waived (a waived law is not promised). A law of level 1 cannot be waived: a provider's rejection
is never a design choice.

A law's level can depend on the wire format, where providers differ: a history with no user
turn is rejected by Anthropic and Gemini (level 1 in their formats) but accepted by OpenAI's own
endpoints, where it loses the user's request instead (level 2).
"""

from __future__ import annotations

from collections.abc import Mapping

LEVELS: Mapping[int, str] = {
    1: "the provider accepts it",
    2: "the agent can carry on",
    3: "nothing that matters is lost",
}

_ACCEPTED = frozenset(
    {
        "call_answered",
        "tool_pairing",
        "non_empty",
        "user_turn_present",
        "user_turn_first",
        # snapshot
        "evidence_in_range",
        "source_range_valid",
        "checksum_valid",
        "raw_tail_preserved",
        "state_untouched",
        # session
        "surface_well_formed",
        "transaction_grammar",
        "lock_exclusive",
        "failure_atomic",
        "replay_deterministic",
        "checkpoint_identifiable",
    }
)
_CARRY_ON = frozenset(
    {
        "goal_preserved",
        "constraints_preserved",
        "no_invented_constraints",
        "recent_tail_preserved",
        "order_preserved",
        "kept_messages_verbatim",
        "progress",
        # snapshot
        "pending_steps_preserved",
        "unresolved_questions_preserved",
        # session
        "shrinks",
        "tail_retained",
        "summary_hygiene",
    }
)


# Laws placed per format by what the format's provider does with a breach; other formats take
# the law's level above.
_BY_FORMAT: Mapping[tuple[str, str], int] = {
    # OpenAI's chat completions and Responses accept a list with no user turn (a system-only
    # list is answered); the agent then answers no request, so the agent cannot carry on.
    ("user_turn_present", "openai-chat"): 2,
    ("user_turn_present", "openai-responses"): 2,
    # Anthropic's first-party API and OpenAI's accept an assistant-first history; Gemini rejects
    # it everywhere, Claude on Bedrock too (a platform, not a format: level 2 in anthropic).
    ("user_turn_first", "openai-chat"): 2,
    ("user_turn_first", "openai-responses"): 2,
    ("user_turn_first", "anthropic"): 2,
}

# What each format's provider does with a breach of a law placed per format, as level texts
# and the catalogue say it.
PROVIDER_RULES: Mapping[tuple[str, str], str] = {
    ("user_turn_present", "anthropic"): "Anthropic's Messages API (Claude on Bedrock and "
    "Vertex too) rejects a history with no user turn",
    ("user_turn_present", "gemini"): "Gemini's generateContent rejects a history with no user "
    "turn ('contents is not specified' when only the system instruction is left)",
    ("user_turn_present", "openai-chat"): "OpenAI chat completions accept a history with no "
    "user turn, but the request it answers is lost; many OpenAI-compatible servers and Bedrock "
    "reject it",
    ("user_turn_present", "openai-responses"): "OpenAI Responses accepts a history with no user "
    "turn, but the request it answers is lost",
    ("user_turn_first", "gemini"): "Gemini's generateContent rejects contents that open with a "
    "model turn ('Please ensure that multiturn requests alternate between user and model')",
    ("user_turn_first", "anthropic"): "Anthropic's first-party API accepts a history that opens "
    "with an assistant message; Claude on Amazon Bedrock rejects it ('A conversation must start "
    "with a user message'; 'messages: first message must use the \"user\" role')",
    ("user_turn_first", "openai-chat"): "OpenAI chat completions accept a history that opens with "
    "an assistant message; Bedrock's Converse, and gateways in front of Claude or Gemini, "
    "reject it",
    ("user_turn_first", "openai-responses"): "OpenAI Responses accepts input that opens with an "
    "assistant message",
}


def level_of(invariant: str, structural: bool = False, format: str = "openai-chat") -> int:
    """The level a law belongs to in ``format``; a format's structural law is level 1."""
    if structural:
        return 1
    placed = _BY_FORMAT.get((invariant, format))
    if placed is not None:
        return placed
    if invariant in _ACCEPTED:
        return 1
    if invariant in _CARRY_ON:
        return 2
    return 3


__all__ = ["LEVELS", "PROVIDER_RULES", "level_of"]
