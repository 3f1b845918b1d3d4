"""The structural laws of Anthropic Messages: the rules the API enforces on a request's history.

Each law mirrors a documented rule (https://platform.claude.com/docs, tool use and extended
thinking pages) and quotes the error it prevents. The API joins consecutive messages of one role
into one turn, so the pairing rules read turns, not messages.
"""

from __future__ import annotations

from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages.anthropic import blocks, thinking, tool_use
from compactcheck.invariants.laws.messages.anthropic.carried import (
    opaque_blocks_carried,
    thinking_unmodified,
)
from compactcheck.invariants.laws.messages.anthropic.turns import FORMAT, Request
from compactcheck.invariants.laws.messages.structure import Rule

__all__ = ["FORMAT", "LAWS", "RULES", "Request"]

RULES: tuple[Rule[Request], ...] = (
    Rule(
        "anthropic_thinking_not_last_block",
        FORMAT,
        "no assistant message ends on a thinking block, so none holds thinking alone",
        "Anthropic extended thinking: error messages.N: The final block in an assistant message "
        "cannot be `thinking`",
        thinking.thinking_not_last,
        thinking.has_thinking,
    ),
    Rule(
        "anthropic_tool_use_answered_next",
        FORMAT,
        "every tool_use of an assistant turn is answered by a tool_result in the very next turn",
        "Anthropic tool use: each tool_use block must have a tool_result in the next message; "
        "error `tool_use` ids were found without `tool_result` blocks immediately after",
        tool_use.answered_next,
        tool_use.has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "anthropic_tool_result_has_prior_use",
        FORMAT,
        "every tool_result answers a tool_use of the assistant turn right before it",
        "Anthropic tool use: each tool_result must have a tool_use in the previous message; "
        "error unexpected `tool_use_id` found in `tool_result` blocks",
        tool_use.has_prior_use,
        tool_use.has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "anthropic_tool_results_first",
        FORMAT,
        "in a user turn that answers tool calls, the tool_result blocks come before anything else",
        "Anthropic tool use: tool results first in their message; error Did not find N "
        "`tool_result` block(s) at the beginning of this message",
        tool_use.results_first,
        tool_use.has_calls,
    ),
    Rule(
        "anthropic_tool_use_ids_unique",
        FORMAT,
        "no two tool_use blocks of a request share an id",
        "Anthropic Messages: error `tool_use` ids must be unique",
        tool_use.ids_unique,
        tool_use.has_calls,
    ),
    Rule(
        "anthropic_server_tool_result_follows_use",
        FORMAT,
        "a server tool's result stays in the message of its server_tool_use, right after it",
        "Anthropic server tools: the result block follows its server_tool_use; error unexpected "
        "`tool_use_id` found in `..._tool_result` blocks",
        tool_use.server_pairs,
        tool_use.has_server_tools,
    ),
    Rule(
        "anthropic_thinking_leads_tool_turn",
        FORMAT,
        "with thinking on, the assistant turn whose calls the last user turn answers starts with "
        "its thinking block",
        "Anthropic extended thinking with tool use: error a final `assistant` message must start "
        "with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result`)",
        thinking.thinking_leads,
        lambda request: thinking.thinking_turn(request) is not None,
    ),
    Rule(
        "anthropic_nonempty_content",
        FORMAT,
        "every message has content (but an optional final assistant one), and no text block is "
        "empty or only whitespace",
        "Anthropic Messages: errors all messages must have non-empty content except for the "
        "optional final assistant message; text content blocks must be non-empty",
        blocks.nonempty,
        lambda request: bool(request.messages),
    ),
    Rule(
        "anthropic_cache_control_limit",
        FORMAT,
        "at most four blocks carry cache_control, and none is an empty text block",
        "Anthropic prompt caching: error A maximum of 4 blocks with cache_control may be "
        "provided; cache_control cannot be set for empty text blocks",
        blocks.cache_limit,
        blocks.has_cache_marks,
    ),
)


LAWS: tuple[Invariant[Request, Request], ...] = (
    *(rule.law() for rule in RULES),
    thinking_unmodified,
    opaque_blocks_carried,
)
