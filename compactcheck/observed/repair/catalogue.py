"""Which repairs mend which law, and the order in which broken laws are mended.

The rules a provider enforces on the shape of a request come first (their repairs mostly take
stray halves out, which often mends a content law on the way: a note taken out from before the
tool results leaves the result last again), ``tool_pairing`` with them; then the laws that lose
something (their repairs bring input units back, or state what was lost), and the laws on order
last. After any repair the mender starts again from the top, so what a unit brought back breaks
(a goal message holding a tool result) is cleaned up next. Within a law the repairs are offered
in turn and the mender keeps the lawful, smaller answer. A law absent here has no mechanical
repair: the budget laws (a repair never shrinks what the compactor kept).
"""

from __future__ import annotations

from compactcheck.observed.repair import (
    anthropic_blocks,
    anthropic_pairing,
    anthropic_server,
    chat_pairing,
    constraints,
    gemini,
    gemini_parts,
    order,
    prompt,
    responses,
    verbatim,
)
from compactcheck.observed.repair.change import Repair

REPAIRS: dict[str, tuple[Repair, ...]] = {
    # Anthropic Messages.
    "anthropic_thinking_not_last_block": (
        anthropic_blocks.take_out_trailing_thinking,
        anthropic_blocks.restore_thinking_turns,
    ),
    "anthropic_tool_use_answered_next": (
        anthropic_pairing.take_out_unanswered_tool_uses,
        anthropic_pairing.bring_back_tool_results,
    ),
    "anthropic_tool_result_has_prior_use": (
        anthropic_pairing.take_out_orphan_tool_results,
        anthropic_pairing.bring_back_tool_uses,
    ),
    "anthropic_tool_results_first": (
        anthropic_pairing.take_out_notes_before_results,
        anthropic_pairing.move_tool_results_first,
    ),
    "anthropic_tool_use_ids_unique": (anthropic_pairing.take_out_repeated_tool_uses,),
    "anthropic_server_tool_result_follows_use": (
        anthropic_server.take_out_stray_server_blocks,
        anthropic_server.bring_back_server_blocks,
    ),
    "anthropic_thinking_leads_tool_turn": (anthropic_blocks.bring_back_leading_thinking,),
    "anthropic_nonempty_content": (anthropic_blocks.take_out_empty_content,),
    "anthropic_cache_control_limit": (anthropic_blocks.take_out_cache_marks,),
    "anthropic_thinking_unmodified": (anthropic_blocks.restore_thinking_blocks,),
    "anthropic_opaque_blocks_carried": (anthropic_blocks.take_out_edited_opaque_blocks,),
    # OpenAI Responses.
    "responses_output_has_call": (
        responses.take_out_orphan_outputs,
        responses.bring_back_call_items,
    ),
    "responses_call_has_output": (
        responses.take_out_unanswered_call_items,
        responses.bring_back_output_items,
    ),
    "responses_call_id_kept": (responses.take_out_outputs_without_call_id,),
    "responses_reasoning_followed": (
        responses.take_out_stranded_reasoning,
        responses.bring_back_reasoning_followers,
    ),
    "responses_item_ids_unique": (responses.take_out_repeated_items,),
    "responses_message_roles": (responses.take_out_bad_roles,),
    "responses_item_keeps_its_reasoning": (
        responses.take_out_orphaned_ids,
        responses.bring_back_owning_reasoning,
    ),
    "responses_item_ids_issued": (responses.take_out_unissued_ids,),
    "responses_opaque_items_carried": (responses.restore_opaque_items,),
    # Gemini.
    "gemini_response_count_matches_calls": (
        gemini.take_out_unanswered_function_calls,
        gemini.bring_back_function_responses,
    ),
    "gemini_call_follows_user_or_response": (
        gemini.take_out_turns_before_calls,
        gemini.bring_back_turns_before_calls,
    ),
    "gemini_response_follows_call": (
        gemini.take_out_orphan_responses,
        gemini.bring_back_function_calls,
    ),
    "gemini_nonempty_parts": (gemini.take_out_empty_parts,),
    "gemini_roles_user_model": (gemini.take_out_bad_role_turns,),
    "gemini_function_response_id_matches": (gemini_parts.restore_function_responses,),
    "gemini_thought_signature_kept": (gemini_parts.restore_thought_signatures,),
    "gemini_signatures_carried": (gemini_parts.take_out_moved_signatures,),
    "tool_pairing": (
        chat_pairing.take_out_orphan_results,
        chat_pairing.bring_back_calls,
        chat_pairing.take_out_unanswered_calls,
        chat_pairing.bring_back_results,
    ),
    # What every format must still say.
    "non_empty": (prompt.restore_last_message,),
    "goal_preserved": (prompt.restore_goal,),
    "constraints_preserved": (
        prompt.restore_system_prompt,
        prompt.replace_system_prompt,
        constraints.state_constraints_in_summary,
        constraints.restore_constraint_messages,
        constraints.take_out_stale_constraint_lines,
        constraints.restore_replacing_messages,
        constraints.restate_changed_constraints,
    ),
    "constraints_not_weakened": (
        prompt.replace_system_prompt,
        constraints.restate_weakened_constraints,
    ),
    "no_invented_constraints": (constraints.take_out_invented_constraints,),
    "kept_messages_verbatim": (verbatim.restore_kept_messages,),
    "tool_results_unpruned": (verbatim.restore_pruned_results,),
    "user_turn_present": (prompt.restore_user_turn,),
    "user_turn_first": (prompt.restore_opening_user_turn, prompt.take_out_opening_assistant),
    "recent_tail_preserved": (prompt.restore_last_message,),
    "facts_preserved": (constraints.state_facts_in_summary, constraints.restore_fact_messages),
    "order_preserved": (order.move_notes_into_gaps,),
}

# The order in which broken laws are mended: REPAIRS' order (laws without a repair never are).
ORDER: tuple[str, ...] = tuple(REPAIRS)

COVERED: frozenset[str] = frozenset(REPAIRS)
"""The laws that have at least one repair."""

__all__ = ["COVERED", "ORDER", "REPAIRS"]
