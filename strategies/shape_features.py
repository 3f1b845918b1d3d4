"""The shapes of a generated history, as the statistics count them: where its facts are held,
and the forms its messages take, read off its messages view."""

from __future__ import annotations

from typing import Final

from compactcheck.invariants import AssistantMessage, ToolMessage, UserMessage
from compactcheck.invariants.laws.messages.holdings import held_only_in
from compactcheck.invariants.messages import ImagePart, RefusalPart
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.messages_facts import messages_facts
from compactcheck.strategies.messages_view import MessageHistory
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenario_model import Scenario

# The shapes a history's messages and facts take, in the order a report lists them; each is
# drawn in at least a fifth of histories (a test keeps it so).
SHAPE_FEATURES: Final[tuple[str, ...]] = (
    "fact_only_in_call_arguments",
    "fact_only_in_long_result",
    "fact_only_in_parts",
    "five_user_turns",
    "user_message_mid_turn",
    "constraint_mid_turn",
    "edit_result_without_path",
    "text_parts",
    "image_part",
    "null_content",
    "name_field",
    "refusal_part",
    "text_beside_calls",
    "plan_tool_call",
)
# How many user messages a compactor that waits for that many user turns needs.
USER_TURNS: Final = 5


def shape_features(scenario: Scenario, history: MessageHistory) -> frozenset[str]:
    """The shapes one scenario's messages view takes (``SHAPE_FEATURES``)."""
    found: set[str] = set()
    held = held_only_in(history.messages, messages_facts(Projected(scenario, history)))
    found.update(f"fact_only_in_{form}" for form in held)
    users = [m for m in history.messages if isinstance(m, UserMessage)]
    if len(users) >= USER_TURNS:
        found.add("five_user_turns")
    for turn in scenario.turns:
        if turn.interjection:
            found.add("user_message_mid_turn")
            if turn.constraint_changes:
                found.add("constraint_mid_turn")
    for message in history.messages:
        content = message.content
        if isinstance(content, tuple):
            found.add("text_parts")
            if any(isinstance(part, ImagePart) for part in content):
                found.add("image_part")
            if any(isinstance(part, RefusalPart) for part in content):
                found.add("refusal_part")
        if isinstance(message, UserMessage) and message.name is not None:
            found.add("name_field")
        if isinstance(message, AssistantMessage) and message.tool_calls:
            if content is None and "content" in message.model_fields_set:
                found.add("null_content")
            if content:
                found.add("text_beside_calls")
            if any(call.function.name == words.PLAN_TOOL for call in message.tool_calls):
                found.add("plan_tool_call")
    edits = {
        call.call_id
        for batch in scenario.batches()
        for call in batch.calls
        if call.edited_path is not None and call.edited_path not in call.output
    }
    if any(isinstance(m, ToolMessage) and m.tool_call_id in edits for m in history.messages):
        found.add("edit_result_without_path")
    return frozenset(found)
