"""How the laws read an Anthropic request: its turns, as the API joins them, and its blocks."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.invariants.formats import anthropic as claude

Request = claude.AnthropicRequest
FORMAT = "anthropic"


@dataclass(frozen=True)
class Turn:
    """Consecutive messages of one role, as the API joins them."""

    role: str
    first: int
    messages: tuple[claude.AnthropicMessage, ...]

    @property
    def blocks(self) -> list[claude.Block]:
        return [block for message in self.messages for block in message.blocks]

    def uses(self) -> list[claude.ToolUseBlock]:
        return [b for b in self.blocks if isinstance(b, claude.ToolUseBlock)]

    def results(self) -> list[claude.ToolResultBlock]:
        return [b for b in self.blocks if isinstance(b, claude.ToolResultBlock)]


def turns_of(request: Request) -> list[Turn]:
    """The request's messages joined into turns: consecutive messages of one role are one."""
    turns: list[Turn] = []
    for index, message in enumerate(request.messages):
        if turns and turns[-1].role == message.role:
            last = turns[-1]
            turns[-1] = Turn(last.role, last.first, (*last.messages, message))
        else:
            turns.append(Turn(message.role, index, (message,)))
    return turns


def blocks_of(request: Request, *kinds: type) -> list[claude.Block]:
    """Every block of the request's messages of one of ``kinds``, in order."""
    return [
        block
        for message in request.messages
        for block in message.blocks
        if isinstance(block, kinds)
    ]
