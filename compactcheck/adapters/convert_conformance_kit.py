"""OpenAI chat dicts to compaction-conformance-kit turns and back, losslessly.

A kit ``Turn`` holds a role and a text. A plain message (system, user or assistant, string
content, no name, no tool calls) is a turn with its own role and text; any other message (tool
calls, tool results, text parts, names) is a turn of its role whose text is the whole chat dict as
JSON behind a record separator (U+001E), which no plain text starts with: a plain text that does
start with one is encoded the same way, so decoding never guesses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from compaction_kit.session import Turn  # type: ignore[import-untyped]

MARK = "\x1e"


def _plain(message: dict[str, Any]) -> bool:
    return (
        message["role"] in ("system", "user", "assistant")
        and set(message) == {"role", "content"}
        and isinstance(message["content"], str)
        and not message["content"].startswith(MARK)
    )


def to_turns(messages: Sequence[dict[str, Any]]) -> list[Turn]:
    """Kit turns for OpenAI chat dicts."""
    return [
        Turn(message["role"], message["content"])
        if _plain(message)
        else Turn(message["role"], MARK + json.dumps(message, ensure_ascii=False))
        for message in messages
    ]


def from_turns(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for kit turns."""
    messages: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        if turn.text.startswith(MARK):
            messages.append(json.loads(turn.text[len(MARK) :]))
        elif turn.role in ("system", "user", "assistant"):
            messages.append({"role": turn.role, "content": turn.text})
        else:
            raise ValueError(f"turn {index}: a plain {turn.role!r} turn has no chat form")
    return messages
