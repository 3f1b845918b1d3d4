#!/usr/bin/env python3
"""Agent Framework's SummarizationStrategy can leave a request with no user message.

Run with the pinned package only (no network, no key):

    pip install agent-framework-core==1.23.0
    python reports/repro/agent_framework_summary_leaves_no_user_turn.py

The strategy writes its summary as an *assistant* message. When every user message falls in the
summarised groups (here target_count=1 keeps only the newest group, an assistant answer), what
apply_compaction projects for the model is a system message followed by assistant messages only.
Providers that require a user turn reject that request (Anthropic: the first message must use
the "user" role; Gemini: a conversation must open with a user turn). Exit status 1 while the
defect is present, 0 once a user message survives.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from agent_framework import ChatResponse, Message, SummarizationStrategy, apply_compaction


class LocalSummariser:
    """A stand-in chat client: its summary is the transcript it was handed."""

    def __init__(self) -> None:
        self.additional_properties: dict[str, Any] = {}

    async def get_response(self, messages: Sequence[Message], **_: Any) -> ChatResponse[None]:
        return ChatResponse(messages=[Message("assistant", [messages[-1].text])])


def main() -> int:
    history = [
        Message("system", ["You are a careful coding agent."]),
        Message("user", ["Goal: fix the login bug (AUTH-142)."]),
        Message("assistant", ["Looking at auth.py."]),
        Message("assistant", ["Step 1 is complete: pytest ok."]),
    ]
    client: Any = LocalSummariser()
    strategy = SummarizationStrategy(client=client, target_count=1, threshold=0)
    sent = asyncio.run(apply_compaction(history, strategy=strategy))
    for message in sent:
        print(f"{message.role:9} {message.text[:70]!r}")
    roles = [str(message.role) for message in sent]
    if "user" in roles:
        print("OK: a user message is still sent")
        return 0
    print(f"DEFECT: the request holds no user message (roles {roles})")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
