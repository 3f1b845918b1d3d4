"""What an answer carries of the input's opaque parts: thinking blocks, redacted thinking and
compaction blocks unedited, and no payload of theirs read into the history's text."""

from __future__ import annotations

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats.reading import read_anthropic
from compactcheck.invariants.laws.messages.anthropic.turns import FORMAT, Request, blocks_of
from compactcheck.invariants.laws.messages.reading import searchable_text
from compactcheck.invariants.laws.messages.structure import (
    Breach,
    data,
    relation,
    texts_holding,
)


def _payloads(request: Request) -> list[str]:
    """The opaque strings of a request: signatures, redacted data, encrypted compactions."""
    secrets: list[str] = []
    for block in blocks_of(request, *claude.OPAQUE_BLOCKS):
        if isinstance(block, claude.ThinkingBlock):
            secrets.append(block.signature)
        elif isinstance(block, claude.RedactedThinkingBlock):
            secrets.append(block.data)
        elif isinstance(block, claude.CompactionBlock) and block.encrypted_content:
            secrets.append(block.encrypted_content)
    return secrets


@relation(
    "anthropic_thinking_unmodified",
    FORMAT,
    "every thinking block of the answer is one of the input's, text and signature unchanged",
    "Anthropic extended thinking: thinking blocks go back exactly as received; error `thinking` "
    "or `redacted_thinking` blocks in the latest assistant message cannot be modified",
)
def thinking_unmodified(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """A thinking block is carried whole or dropped, never edited or made up."""
    given = {
        (block.thinking, block.signature)
        for block in blocks_of(before, claude.ThinkingBlock)
        if isinstance(block, claude.ThinkingBlock)
    }
    found = [
        Breach(
            f"a thinking block with signature {block.signature[:16]}... is not one of the "
            "input's: its text or signature was edited, or it was made up",
            data(block),
        )
        for block in blocks_of(after, claude.ThinkingBlock)
        if isinstance(block, claude.ThinkingBlock)
        and (block.thinking, block.signature) not in given
    ]
    return bool(given), found


@relation(
    "anthropic_opaque_blocks_carried",
    FORMAT,
    "redacted thinking and compaction blocks are carried byte for byte or dropped whole, and "
    "no signature or encrypted payload is read into the history's text",
    "Anthropic extended thinking and compaction: redacted_thinking data and compaction "
    "encrypted_content are opaque and returned as received",
)
def opaque_blocks_carried(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """Opaque blocks are not edited, and their payloads are not copied into readable text."""
    kinds = (claude.RedactedThinkingBlock, claude.CompactionBlock)
    given = [block.to_json_data() for block in blocks_of(before, *kinds)]
    found = [
        Breach(
            f"a {block.type} block is not one of the input's: its payload was edited or made up",
            data(block),
        )
        for block in blocks_of(after, *kinds)
        if block.to_json_data() not in given
    ]
    readable = [searchable_text(message) for message in read_anthropic(after)]
    for secret in texts_holding(readable, _payloads(before)):
        found.append(
            Breach(
                f"the answer's text spells out the opaque payload {secret[:16]}... of an input "
                "block: an opaque item was read as agent state",
            )
        )
    return bool(_payloads(before)), found
