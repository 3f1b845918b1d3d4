"""An honest local stand-in for a summarising model: it repeats everything it was shown.

Every message handed to it comes back as text, tool calls with their ids, names and arguments and
tool results with their call ids included, in the order shown. Whatever a summarising component
then loses was dropped by the component's own selection, never by the model. Nothing here reaches
a network or loads weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.chat_models import SimpleChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage


def echo_text(messages: Sequence[BaseMessage]) -> str:
    """Everything in a list of LangChain messages, one block per message, in order."""
    blocks: list[str] = []
    for message in messages:
        lines = [f"[{message.type}] {message.text}"]
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                lines.append(f"  call {call['id']}: {call['name']}({call['args']})")
        if isinstance(message, ToolMessage):
            lines.append(f"  result of {message.tool_call_id}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


class EchoChatModel(SimpleChatModel):
    """A chat model whose answer is the echo of its whole prompt."""

    @property
    def _llm_type(self) -> str:
        return "compactcheck-echo"

    def _call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> str:
        return echo_text(messages)
