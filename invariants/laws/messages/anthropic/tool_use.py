"""The tool use rules of Anthropic Messages: each tool_use answered in the next turn, each
tool_result after its tool_use and first in its turn, ids unique, server tools in one message."""

from __future__ import annotations

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.laws.messages.anthropic.turns import Request, turns_of
from compactcheck.invariants.laws.messages.structure import Breach, data


def has_calls(request: Request) -> bool:
    """Whether the request holds a tool_use or tool_result block."""
    return any(
        isinstance(block, claude.ToolUseBlock | claude.ToolResultBlock)
        for message in request.messages
        for block in message.blocks
    )


def answered_next(request: Request) -> list[Breach]:
    """Each tool_use whose id the very next turn does not answer."""
    turns = turns_of(request)
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


def has_prior_use(request: Request) -> list[Breach]:
    """Each tool_result that no tool_use of the assistant turn before it made."""
    turns = turns_of(request)
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


def results_first(request: Request) -> list[Breach]:
    """Each user turn where another block comes before its tool_result blocks."""
    found = []
    for turn in turns_of(request):
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


def ids_unique(request: Request) -> list[Breach]:
    """Each tool_use (client or server) whose id an earlier one already took."""
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


def has_server_tools(request: Request) -> bool:
    """Whether the request holds a server tool block."""
    return any(
        isinstance(block, claude.ServerToolUseBlock | claude.ServerToolResultBlock)
        for message in request.messages
        for block in message.blocks
    )


def server_pairs(request: Request) -> list[Breach]:
    """Each server tool result not after its server_tool_use in one message; each use unanswered."""
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
