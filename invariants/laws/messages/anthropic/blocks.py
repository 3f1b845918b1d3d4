"""The content rules of Anthropic Messages: no empty message or text block, few cache marks."""

from __future__ import annotations

from collections.abc import Iterator

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.laws.messages.anthropic.turns import Request
from compactcheck.invariants.laws.messages.structure import Breach, data


def nonempty(request: Request) -> list[Breach]:
    """Each message without content (but a final assistant one) and each blank text block."""
    found = []
    last = len(request.messages) - 1
    for index, message in enumerate(request.messages):
        empty = message.content == "" or message.content == ()
        if empty and not (index == last and message.role == "assistant"):
            found.append(Breach(f"messages.{index}: the message has no content", data(message)))
        for block in message.blocks if not isinstance(message.content, str) else ():
            if isinstance(block, claude.TextBlock) and not block.text.strip():
                found.append(
                    Breach(
                        f"messages.{index}: a text block is empty or only whitespace", data(block)
                    )
                )
    return found


def _marked(request: Request) -> Iterator[tuple[str, claude.Block]]:
    if isinstance(request.system, tuple):
        for system_block in request.system:
            yield "system", system_block
    for index, message in enumerate(request.messages):
        for block in message.blocks if not isinstance(message.content, str) else ():
            yield f"messages.{index}", block
            if isinstance(block, claude.ToolResultBlock) and isinstance(block.content, tuple):
                for inner in block.content:
                    yield f"messages.{index}", inner


def has_cache_marks(request: Request) -> bool:
    """Whether a block carries cache_control."""
    return any(block.cache_control is not None for _, block in _marked(request))


def cache_limit(request: Request) -> list[Breach]:
    """More than four cache marks, and each on an empty text block."""
    marked = [(where, block) for where, block in _marked(request) if block.cache_control]
    found = []
    if len(marked) > 4:
        found.append(
            Breach(
                f"{len(marked)} blocks carry cache_control, over the limit of 4",
                data(*(block for _, block in marked[4:])),
            )
        )
    for where, block in marked:
        if isinstance(block, claude.TextBlock) and not block.text:
            found.append(Breach(f"{where}: cache_control on an empty text block", data(block)))
    return found
