"""The extended thinking rules of Anthropic Messages: the answered tool turn opens with its
thinking, and no assistant message ends on thinking."""

from __future__ import annotations

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.laws.messages.anthropic.turns import Request, Turn, turns_of
from compactcheck.invariants.laws.messages.structure import Breach, data


def thinking_turn(request: Request) -> Turn | None:
    """The assistant turn whose calls the last user turn answers, with thinking on."""
    if not request.thinking_enabled:
        return None
    turns = turns_of(request)
    if len(turns) < 2 or turns[-1].role != "user" or not turns[-1].results():
        return None
    turn = turns[-2]
    return turn if turn.role == "assistant" else None


def thinking_leads(request: Request) -> list[Breach]:
    """The answered tool turn, with thinking on, when it does not open with thinking."""
    turn = thinking_turn(request)
    if turn is None:
        return []
    first = turn.messages[0].blocks[0] if turn.messages[0].blocks else None
    if isinstance(first, claude.ThinkingBlock | claude.RedactedThinkingBlock):
        return []
    kind = first.type if first is not None else "nothing"
    return [
        Breach(
            f"messages.{turn.first}: the assistant turn whose tool calls the last user turn "
            f"answers starts with {kind}, not a thinking block (thinking is on)",
            data(first),
        )
    ]


def _ends_on_thinking(message: claude.AnthropicMessage) -> bool:
    blocks = message.blocks if not isinstance(message.content, str) else []
    return bool(blocks) and isinstance(
        blocks[-1], claude.ThinkingBlock | claude.RedactedThinkingBlock
    )


def thinking_not_last(request: Request) -> list[Breach]:
    """Each assistant message that ends on a thinking block."""
    found = []
    for index, message in enumerate(request.messages):
        if message.role == "assistant" and _ends_on_thinking(message):
            last = message.blocks[-1]
            only = all(
                isinstance(b, claude.ThinkingBlock | claude.RedactedThinkingBlock)
                for b in message.blocks
            )
            what = "holds only thinking" if only else f"ends on a {last.type} block"
            found.append(Breach(f"messages.{index}: the assistant message {what}", data(last)))
    return found


def has_thinking(request: Request) -> bool:
    """Whether an assistant message holds a thinking block."""
    return any(
        isinstance(block, claude.ThinkingBlock | claude.RedactedThinkingBlock)
        for message in request.messages
        if message.role == "assistant" and not isinstance(message.content, str)
        for block in message.blocks
    )
