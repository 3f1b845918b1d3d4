"""pydantic-ai-harness's compaction capabilities as ``pydantic-ai:sliding-window`` and
``pydantic-ai:summarizing``.

The adapter calls the capability's own ``compact(messages, ctx)``, the step that a
``before_model_request`` runs once its threshold is passed, and converts what it returns:
pydantic-ai itself drops orphan tool returns before a model call, so only the compactor's direct
output shows what the compactor did. The run context carries a local ``FunctionModel`` that echoes
every part it was shown (instructions, prompts, tool calls with ids and arguments, tool returns),
so the summary holds everything the capability chose to summarise; given the run's model
(``--model``), the capability is handed that one as a ``FunctionModel`` and prompts it itself.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- ``keep_messages``: 25 %, 50 % or 75 % of the pydantic-ai message count (at least 1), or, when
  ``keep_unit`` is ``"tokens"``, ``keep_tokens`` 25 %, 50 % or 75 % of the history's estimated
  tokens, counted as the budget law's approx_tokens (characters / 4, rounded up: the
  capability's own heuristic too).
- ``preserve_first_user_message``: always the default, true. Turned off, the capability is asked
  to let the goal go, which the goal law would report as asked for.
- summarizing only: ``incremental`` true or false; ``tool_return_max_chars`` the default (500).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, cast

from pydantic_ai import RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RunUsage
from pydantic_ai_harness.compaction import SlidingWindowCompaction, SummarizingCompaction

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters, chat_size
from compactcheck.adapters.convert_pydantic_ai import from_pydantic_ai, to_pydantic_ai
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.pydantic_ai_function import as_function_model

FRACTIONS = (0.25, 0.5, 0.75)


def echo_parts(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model answer that repeats every part of every message it was shown, in order."""
    del info
    lines: list[str] = []
    for message in messages:
        if isinstance(message, ModelRequest) and message.instructions:
            lines.append(message.instructions)
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                lines.append(f"call {part.tool_call_id}: {part.tool_name}({part.args})")
            else:
                lines.append(str(getattr(part, "content", "")))
    return ModelResponse(parts=[TextPart(content="\n".join(lines))])


class _Harness(MessagesAdapter):
    package = "pydantic-ai-harness"

    def parameters(self, messages: Messages) -> Parameters:
        """Retention for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        if draw.choice("keep_unit", ("messages", "tokens")) == "messages":
            draw.share("keep_messages", len(to_pydantic_ai(messages)), FRACTIONS)
        else:
            tokens = chat_size(messages, "approx_tokens")
            draw.share("keep_tokens", tokens, FRACTIONS)
        draw.fixed("preserve_first_user_message", True)
        return draw.drawn

    def _capability(self, parameters: Parameters, model: FunctionModel) -> Any:
        raise NotImplementedError

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The capability's compaction of the history."""
        model = FunctionModel(echo_parts) if self.model is None else as_function_model(self.model)
        capability = self._capability(parameters, model)
        context = RunContext(deps=None, model=model, usage=RunUsage())
        history = to_pydantic_ai(messages)
        compacted = asyncio.run(capability.compact(history, context))
        return from_pydantic_ai(cast(list[ModelMessage], compacted))


def _retention(parameters: Parameters) -> dict[str, Any]:
    if parameters["keep_unit"] == "messages":
        return {"keep_messages": parameters["keep_messages"]}
    return {"keep_tokens": parameters["keep_tokens"]}


class SlidingWindow(_Harness):
    """``SlidingWindowCompaction``: the oldest messages go, tool pairs kept together."""

    def _capability(self, parameters: Parameters, model: FunctionModel) -> Any:
        del model
        # max_messages only says when to compact; compact() itself is called directly.
        return SlidingWindowCompaction[None](max_messages=1, **_retention(parameters))


class Summarizing(_Harness):
    """``SummarizingCompaction`` with an echo model: old messages become one summary."""

    def parameters(self, messages: Messages) -> Parameters:
        """Retention and the incremental flag for this history."""
        drawn = super().parameters(messages)
        draw = ParameterDraw(messages, self.name + ":incremental", self.knobs)
        drawn["incremental"] = draw.flag("incremental")
        return drawn

    def _capability(self, parameters: Parameters, model: FunctionModel) -> Any:
        return SummarizingCompaction[None](
            model=model,
            max_messages=1,
            incremental=bool(parameters["incremental"]),
            **_retention(parameters),
        )


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "pydantic-ai:sliding-window": SlidingWindow,
    "pydantic-ai:summarizing": Summarizing,
}
