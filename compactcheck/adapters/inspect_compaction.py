"""inspect-ai's compaction (``inspect_ai.model``) as ``inspect-ai:trim-messages``,
``inspect-ai:compaction-trim``, ``inspect-ai:compaction-edit`` and
``inspect-ai:compaction-summary``.

``trim_messages`` is called directly. The three strategies run as an inspect-ai agent runs them:
through the handler ``compaction(strategy, prefix, model=...)``, whose ``compact_input`` returns
the input to send to the model (the handler puts the prefix back and collapses consecutive
messages as the provider needs). The prefix is what an agent starts with: the leading system
messages and the first user message. Each call is a fresh handler, forced to compact once
(``compact_input(messages, force=True)``, the path inspect-ai takes after a context overflow),
under a threshold no result exceeds, so that one pass of the strategy is judged, never the
handler's refusal of a result still over its threshold.

Offline: the model is inspect-ai's ``mockllm`` provider with two changes, both local: tokens are
counted as the budget law's approx_tokens (characters / 4, rounded up) instead of tiktoken's
encoding, which would be downloaded; and its answer to a summary request is the conversation it
was shown, word for word (every message, calls with ids and arguments, results with their call
ids), without the summary prompt, or the run's model's answer (``--model``).

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- trim-messages: ``preserve`` 0.7 (the default), 0.5 or 0.2 of the conversation.
- compaction-trim: ``preserve`` 0.8 (the default), 0.5 or 0.2.
- compaction-edit: ``keep_tool_uses`` 3 (the default), 1 or 0; ``keep_tool_inputs`` true (the
  default) or false; ``keep_thinking_turns`` 1 (the default).
- compaction-summary: no parameter of its own (the default prompt).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from typing import Any, cast

from inspect_ai._util.registry import RegistryInfo, registry_tag
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    CompactionEdit,
    CompactionStrategy,
    CompactionSummary,
    CompactionTrim,
    GenerateConfig,
    Model,
    ModelOutput,
    compaction,
    trim_messages,
)
from inspect_ai.model._providers.mockllm import MockLLM

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_inspect import from_inspect, to_inspect
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.request import ModelRequest, Turn

# No result is refused for its size: one forced pass is what is judged.
_NEVER = 10**12


def _echo(messages: list[ChatMessage]) -> str:
    lines: list[str] = []
    for message in messages:
        lines.append(f"[{message.role}] {message.text}")
        if isinstance(message, ChatMessageAssistant):
            for call in message.tool_calls or []:
                lines.append(f"  call {call.id}: {call.function}({call.arguments})")
        if isinstance(message, ChatMessageTool):
            lines.append(f"  result of {message.tool_call_id}")
    return "\n".join(lines)


class LocalModelApi(MockLLM):
    """inspect-ai's mock provider, counting characters / 4 and echoing what it is shown."""

    def __init__(self, model: Any = None) -> None:
        super().__init__("compactcheck-echo", custom_outputs=self._answer)
        self.slot = model

    def _answer(self, messages: list[ChatMessage], *_: Any) -> ModelOutput:
        # The last message is the summary prompt: everything before it is the conversation.
        shown, prompt = messages[:-1], messages[-1:]
        if self.slot is None:
            said = _echo(shown)
        else:
            system = "\n".join(m.text for m in messages if m.role == "system")
            turns = tuple(
                Turn(role="assistant" if m.role == "assistant" else "user", text=_echo([m]))
                for m in [*shown, *prompt]
                if m.role != "system"
            )
            said = self.slot.answer(ModelRequest(system=system, turns=turns))
        return ModelOutput.from_content(model="compactcheck-echo", content=said)

    async def count_text_tokens(self, text: str) -> int:
        """The budget law's approx_tokens: characters / 4, rounded up."""
        return math.ceil(len(text) / 4)


def local_model(slot: Any = None) -> Model:
    """An inspect-ai model that never reaches a network."""
    api = LocalModelApi(slot)
    # Tagged as inspect-ai's own provider decorator tags what it builds (its name is read back).
    registry_tag(LocalModelApi, api, RegistryInfo(type="modelapi", name="compactcheck-local"))
    return Model(api, GenerateConfig())


def prefix(messages: list[ChatMessage]) -> list[ChatMessage]:
    """What an agent starts with: the leading system messages and the first user message."""
    start: list[ChatMessage] = []
    for message in messages:
        start.append(message)
        if message.role != "system":
            break
    return start if start and start[-1].role == "user" else [m for m in start if m.role == "system"]


class TrimMessages(MessagesAdapter):
    """``trim_messages``: system and input kept, a share of the conversation, pairs mended."""

    package = "inspect-ai"

    def parameters(self, messages: Messages) -> Parameters:
        """The share of the conversation kept."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.choice("preserve", (0.7, 0.5, 0.2))
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The trimmed history."""
        preserve = cast(float, parameters["preserve"])
        return from_inspect(asyncio.run(trim_messages(to_inspect(messages), preserve=preserve)))


class _Handler(MessagesAdapter):
    package = "inspect-ai"

    def _strategy(self, parameters: Parameters) -> CompactionStrategy:
        raise NotImplementedError

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The input the compaction handler would send to the model."""
        history = to_inspect(messages)
        handler = compaction(
            self._strategy(parameters), prefix(history), model=local_model(self.model)
        )
        compacted, _ = asyncio.run(handler.compact_input(history, force=True))
        return from_inspect(compacted)


class Trim(_Handler):
    """``CompactionTrim``: ``trim_messages`` through the handler."""

    def parameters(self, messages: Messages) -> Parameters:
        """The share of the conversation kept."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.choice("preserve", (0.8, 0.5, 0.2))
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> CompactionStrategy:
        return CompactionTrim(threshold=_NEVER, preserve=cast(float, parameters["preserve"]))


class Edit(_Handler):
    """``CompactionEdit``: older tool results become a placeholder."""

    def parameters(self, messages: Messages) -> Parameters:
        """How many tool uses stay, and whether cleared calls keep their inputs."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.choice("keep_tool_uses", (3, 1, 0))
        draw.choice("keep_tool_inputs", (True, False))
        draw.fixed("keep_thinking_turns", 1)
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> CompactionStrategy:
        return CompactionEdit(
            threshold=_NEVER,
            keep_tool_uses=cast(int, parameters["keep_tool_uses"]),
            keep_tool_inputs=bool(parameters["keep_tool_inputs"]),
            keep_thinking_turns=1,
        )


class Summary(_Handler):
    """``CompactionSummary``: the conversation becomes one summary after the prefix."""

    def parameters(self, messages: Messages) -> Parameters:
        """No drawn setting: the default prompt."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.fixed("prompt", "default")
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> CompactionStrategy:
        return CompactionSummary(threshold=_NEVER)


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "inspect-ai:trim-messages": TrimMessages,
    "inspect-ai:compaction-trim": Trim,
    "inspect-ai:compaction-edit": Edit,
    "inspect-ai:compaction-summary": Summary,
}
