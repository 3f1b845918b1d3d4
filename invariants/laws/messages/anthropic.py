"""The structural laws of Anthropic Messages: the rules the API enforces on a request's history.

Each law mirrors a documented rule (https://platform.claude.com/docs, tool use and extended
thinking pages) and quotes the error it prevents. The API joins consecutive messages of one role
into one turn, so the pairing rules read turns, not messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats.reading import read_anthropic
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages.reading import searchable_text
from compactcheck.invariants.laws.messages.structure import (
    Breach,
    Rule,
    data,
    relation,
    texts_holding,
)

Request = claude.AnthropicRequest
FORMAT = "anthropic"


@dataclass(frozen=True)
class _Turn:
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


def _turns(request: Request) -> list[_Turn]:
    turns: list[_Turn] = []
    for index, message in enumerate(request.messages):
        if turns and turns[-1].role == message.role:
            last = turns[-1]
            turns[-1] = _Turn(last.role, last.first, (*last.messages, message))
        else:
            turns.append(_Turn(message.role, index, (message,)))
    return turns


def _has_calls(request: Request) -> bool:
    return any(
        isinstance(block, claude.ToolUseBlock | claude.ToolResultBlock)
        for message in request.messages
        for block in message.blocks
    )


def _answered_next(request: Request) -> list[Breach]:
    turns = _turns(request)
    found = []
    for at, turn in enumerate(turns):
        uses = turn.uses() if turn.role == "assistant" else []
        if not uses:
            continue
        following = turns[at + 1] if at + 1 < len(turns) else None
        answered = {r.tool_use_id for r in following.results()} if following else set()
        missing = [use for use in uses if use.id not in answered]
        if missing:
            where = "the history ends" if following is None else f"message {following.first}"
            found.append(
                Breach(
                    f"messages.{turn.first}: tool_use id(s) {', '.join(u.id for u in missing)} "
                    f"have no tool_result in the next turn ({where} does not answer them)",
                    data(*missing),
                )
            )
    return found


def _has_prior_use(request: Request) -> list[Breach]:
    turns = _turns(request)
    found = []
    for at, turn in enumerate(turns):
        results = turn.results() if turn.role == "user" else []
        if not results:
            continue
        before = turns[at - 1] if at > 0 else None
        made = {use.id for use in before.uses()} if before and before.role == "assistant" else set()
        for result in results:
            if result.tool_use_id not in made:
                found.append(
                    Breach(
                        f"messages.{turn.first}: tool_result for {result.tool_use_id} has no "
                        "tool_use in the previous assistant turn",
                        data(result),
                    )
                )
    return found


def _results_first(request: Request) -> list[Breach]:
    found = []
    for turn in _turns(request):
        if turn.role != "user":
            continue
        blocks = turn.blocks
        last_result = max(
            (i for i, b in enumerate(blocks) if isinstance(b, claude.ToolResultBlock)), default=-1
        )
        if last_result < 0:
            continue
        early = [
            block for block in blocks[:last_result] if not isinstance(block, claude.ToolResultBlock)
        ]
        if early:
            found.append(
                Breach(
                    f"messages.{turn.first}: a {early[0].type} block comes before the turn's "
                    "tool_result blocks (they must open the turn)",
                    data(early[0]),
                )
            )
    return found


def _ids_unique(request: Request) -> list[Breach]:
    seen: dict[str, int] = {}
    found = []
    for index, message in enumerate(request.messages):
        for block in message.blocks:
            if isinstance(block, claude.ToolUseBlock | claude.ServerToolUseBlock):
                if block.id in seen:
                    found.append(
                        Breach(
                            f"messages.{index}: tool_use id {block.id} repeats the one in "
                            f"messages.{seen[block.id]}",
                            data(block),
                        )
                    )
                seen.setdefault(block.id, index)
    return found


def _has_server_tools(request: Request) -> bool:
    return any(
        isinstance(block, claude.ServerToolUseBlock | claude.ServerToolResultBlock)
        for message in request.messages
        for block in message.blocks
    )


def _server_pairs(request: Request) -> list[Breach]:
    found = []
    for index, message in enumerate(request.messages):
        used: set[str] = set()
        answered: set[str] = set()
        for block in message.blocks:
            if isinstance(block, claude.ServerToolUseBlock):
                used.add(block.id)
            elif isinstance(block, claude.ServerToolResultBlock):
                if block.tool_use_id not in used:
                    found.append(
                        Breach(
                            f"messages.{index}: {block.type} for {block.tool_use_id} has no "
                            "server_tool_use before it in the same message",
                            data(block),
                        )
                    )
                answered.add(block.tool_use_id)
        for block in message.blocks:
            if isinstance(block, claude.ServerToolUseBlock) and block.id not in answered:
                found.append(
                    Breach(
                        f"messages.{index}: server_tool_use {block.id} lost its result block",
                        data(block),
                    )
                )
    return found


def _thinking_turn(request: Request) -> _Turn | None:
    """The assistant turn whose calls the last user turn answers, with thinking on."""
    if not request.thinking_enabled:
        return None
    turns = _turns(request)
    if len(turns) < 2 or turns[-1].role != "user" or not turns[-1].results():
        return None
    turn = turns[-2]
    return turn if turn.role == "assistant" else None


def _thinking_leads(request: Request) -> list[Breach]:
    turn = _thinking_turn(request)
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


def _nonempty(request: Request) -> list[Breach]:
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


def _has_cache_marks(request: Request) -> bool:
    return any(block.cache_control is not None for _, block in _marked(request))


def _cache_limit(request: Request) -> list[Breach]:
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


def _ends_on_thinking(message: claude.AnthropicMessage) -> bool:
    blocks = message.blocks if not isinstance(message.content, str) else []
    return bool(blocks) and isinstance(
        blocks[-1], claude.ThinkingBlock | claude.RedactedThinkingBlock
    )


def _thinking_not_last(request: Request) -> list[Breach]:
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


def _has_thinking(request: Request) -> bool:
    return any(
        isinstance(block, claude.ThinkingBlock | claude.RedactedThinkingBlock)
        for message in request.messages
        if message.role == "assistant" and not isinstance(message.content, str)
        for block in message.blocks
    )


RULES: tuple[Rule[Request], ...] = (
    Rule(
        "anthropic_thinking_not_last_block",
        FORMAT,
        "no assistant message ends on a thinking block, so none holds thinking alone",
        "Anthropic extended thinking: error messages.N: The final block in an assistant message "
        "cannot be `thinking`",
        _thinking_not_last,
        _has_thinking,
    ),
    Rule(
        "anthropic_tool_use_answered_next",
        FORMAT,
        "every tool_use of an assistant turn is answered by a tool_result in the very next turn",
        "Anthropic tool use: each tool_use block must have a tool_result in the next message; "
        "error `tool_use` ids were found without `tool_result` blocks immediately after",
        _answered_next,
        _has_calls,
    ),
    Rule(
        "anthropic_tool_result_has_prior_use",
        FORMAT,
        "every tool_result answers a tool_use of the assistant turn right before it",
        "Anthropic tool use: each tool_result must have a tool_use in the previous message; "
        "error unexpected `tool_use_id` found in `tool_result` blocks",
        _has_prior_use,
        _has_calls,
    ),
    Rule(
        "anthropic_tool_results_first",
        FORMAT,
        "in a user turn that answers tool calls, the tool_result blocks come before anything else",
        "Anthropic tool use: tool results first in their message; error Did not find N "
        "`tool_result` block(s) at the beginning of this message",
        _results_first,
        _has_calls,
    ),
    Rule(
        "anthropic_tool_use_ids_unique",
        FORMAT,
        "no two tool_use blocks of a request share an id",
        "Anthropic Messages: error `tool_use` ids must be unique",
        _ids_unique,
        _has_calls,
    ),
    Rule(
        "anthropic_server_tool_result_follows_use",
        FORMAT,
        "a server tool's result stays in the message of its server_tool_use, right after it",
        "Anthropic server tools: the result block follows its server_tool_use; error unexpected "
        "`tool_use_id` found in `..._tool_result` blocks",
        _server_pairs,
        _has_server_tools,
    ),
    Rule(
        "anthropic_thinking_leads_tool_turn",
        FORMAT,
        "with thinking on, the assistant turn whose calls the last user turn answers starts with "
        "its thinking block",
        "Anthropic extended thinking with tool use: error a final `assistant` message must start "
        "with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result`)",
        _thinking_leads,
        lambda request: _thinking_turn(request) is not None,
    ),
    Rule(
        "anthropic_nonempty_content",
        FORMAT,
        "every message has content (but an optional final assistant one), and no text block is "
        "empty or only whitespace",
        "Anthropic Messages: errors all messages must have non-empty content except for the "
        "optional final assistant message; text content blocks must be non-empty",
        _nonempty,
        lambda request: bool(request.messages),
    ),
    Rule(
        "anthropic_cache_control_limit",
        FORMAT,
        "at most four blocks carry cache_control, and none is an empty text block",
        "Anthropic prompt caching: error A maximum of 4 blocks with cache_control may be "
        "provided; cache_control cannot be set for empty text blocks",
        _cache_limit,
        _has_cache_marks,
    ),
)


def _blocks(request: Request, *kinds: type) -> list[claude.Block]:
    return [
        block
        for message in request.messages
        for block in message.blocks
        if isinstance(block, kinds)
    ]


def _payloads(request: Request) -> list[str]:
    """The opaque strings of a request: signatures, redacted data, encrypted compactions."""
    secrets: list[str] = []
    for block in _blocks(request, *claude.OPAQUE_BLOCKS):
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
        for block in _blocks(before, claude.ThinkingBlock)
        if isinstance(block, claude.ThinkingBlock)
    }
    found = [
        Breach(
            f"a thinking block with signature {block.signature[:16]}... is not one of the "
            "input's: its text or signature was edited, or it was made up",
            data(block),
        )
        for block in _blocks(after, claude.ThinkingBlock)
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
    given = [block.to_json_data() for block in _blocks(before, *kinds)]
    found = [
        Breach(
            f"a {block.type} block is not one of the input's: its payload was edited or made up",
            data(block),
        )
        for block in _blocks(after, *kinds)
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


LAWS: tuple[Invariant[Request, Request], ...] = (
    *(rule.law() for rule in RULES),
    thinking_unmodified,
    opaque_blocks_carried,
)
