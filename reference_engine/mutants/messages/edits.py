"""Message mutants that edit what they keep: rules softened, outputs pruned, arguments cleared."""

from __future__ import annotations

from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    content_text,
)
from compactcheck.reference_engine.messages import compact_messages
from compactcheck.reference_engine.mutants.messages.builders import (
    MUTANT_MAX_MESSAGES,
    Messages,
    reference,
)


def weaken_constraints(messages: Messages) -> Messages:
    """Rewrites the system prompt's rules as preferences: each "- [c1] ..." line is kept, its
    force relaxed, as a summariser that "tidies" a prompt does."""

    def relaxed(message: ChatMessage) -> ChatMessage:
        if not isinstance(message, SystemMessage):
            return message
        lines = content_text(message.content).splitlines()
        softened = [f"{line}, where possible" if line.startswith("- [") else line for line in lines]
        return SystemMessage(content="\n".join(softened))

    return tuple(relaxed(message) for message in reference(messages))


def truncate_tool_output(messages: Messages) -> Messages:
    """Prunes long tool outputs of the kept messages in place; a roomier cap keeps more of them."""
    limit = 8
    return tuple(
        ToolMessage(tool_call_id=m.tool_call_id, content=content_text(m.content)[:limit] + "...")
        if isinstance(m, ToolMessage) and len(content_text(m.content)) > limit
        else m
        for m in compact_messages(messages, 2 * MUTANT_MAX_MESSAGES)
    )


def _cleared(message: AssistantMessage) -> AssistantMessage:
    """The calls of ``message`` with their arguments cleared."""
    assert message.tool_calls is not None
    calls = tuple(
        call.model_copy(update={"function": call.function.model_copy(update={"arguments": "{}"})})
        for call in message.tool_calls
    )
    return message.model_copy(update={"tool_calls": calls})


def clear_call_arguments(messages: Messages) -> Messages:
    """Clears the arguments of the older tool calls it keeps, to save their tokens (LangChain's
    ClearToolUsesEdit with clear_tool_inputs): the kept call no longer says what it did."""
    compacted = reference(messages)
    newest = len(compacted) - 1
    return tuple(
        _cleared(m) if isinstance(m, AssistantMessage) and m.tool_calls and at < newest else m
        for at, m in enumerate(compacted)
    )
