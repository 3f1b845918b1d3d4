"""Small summarising compactors for the fakes' tests: a model writes the summary, or rewords one.

``model_summariser`` keeps the system prompt and the last message and has its model summarise
everything between, once per compaction, as a summarising middleware does; ``reworded_reference``
is the messages reference compactor with each summary it writes restated by a model. Both run
in process as targets of the messages view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compactcheck.backends.inprocess import CallableBackend
from compactcheck.base.implementation import Implementation
from compactcheck.harness import MessagesDriver
from compactcheck.invariants import (
    AssistantMessage,
    SystemMessage,
    content_text,
    dump_messages,
    parse_messages,
)
from compactcheck.invariants.messages import UserMessage
from compactcheck.models import Model, ModelRequest, Turn
from compactcheck.reference_engine.messages import reference_for
from compactcheck.reference_engine.messages.summary import SUMMARY_HEADER
from compactcheck.targets.registry import Target

Compactor = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _turn(message: Any) -> Turn:
    text = content_text(message.content)
    if isinstance(message, AssistantMessage) and message.tool_calls:
        calls = "; ".join(f"{c.function.name} {c.function.arguments}" for c in message.tool_calls)
        text = f"{text}\ncalled {calls}".strip()
    role = message.role if message.role in ("user", "assistant", "tool") else "user"
    return Turn(role=role, text=text)


def model_summariser(model: Model) -> Compactor:
    """A compactor whose ``model`` summarises all but the system prompt and the last message."""

    def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parsed = parse_messages(messages)
        system = [m for m in parsed[:1] if isinstance(m, SystemMessage)]
        body = parsed[len(system) : -1]
        if len(body) < 2:
            return list(messages)
        summary = model.answer(ModelRequest(turns=tuple(_turn(m) for m in body)))
        kept = (*system, UserMessage(content=summary), parsed[-1])
        return dump_messages(kept)

    return compact


def reworded_reference(model: Model, max_messages: int = 6) -> Compactor:
    """The messages reference compactor, each summary message it writes restated by ``model``."""
    reference = reference_for("openai-chat", None, max_messages)

    def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = reference(messages)
        reworded = []
        for message in out:
            text = message.get("content")
            if isinstance(text, str) and text.startswith(SUMMARY_HEADER.split("{")[0]):
                request = ModelRequest(turns=(Turn(role="user", text=text),))
                message = {**message, "content": model.answer(request)}
            reworded.append(message)
        return reworded

    return compact


def target_of(name: str, compactor: Compactor) -> Target:
    """An in-process messages target for ``compactor``."""
    backend = CallableBackend(compactor, name=name, views=("messages",))
    implementation = Implementation(
        name=name, version="test", language="python", views=["messages"], formats=["openai-chat"]
    )
    return Target(name, implementation, {"messages": lambda: MessagesDriver(backend)})
