"""Microsoft Agent Framework's compaction strategies (agent-framework-core) as
``agent-framework:<strategy>`` targets.

Each call converts the history to a fresh list of Agent Framework messages (``apply_compaction``
marks the messages it is handed in place, so a list is never reused) and runs
``apply_compaction(messages, strategy=...)``, the function the framework's ``CompactionProvider``
and chat client run before a model call. The framework does not delete: it marks messages
excluded and inserts summaries linked to what they replace; what is judged is its projection,
the included messages it returns, which is what would be sent to the model.

Offline: token counts are the framework's own ``CharacterEstimatorTokenizer`` (characters / 4);
``SummarizationStrategy`` is handed ``EchoChatClient``, a local client whose answer is the
transcript the strategy showed it, word for word, or the run's model (``--model``).

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- truncation: ``metric`` messages or tokens; ``compact_to`` 25 %, 50 % or 75 % of the history in
  that metric; ``max_n`` equal to it (compaction triggers once the history is larger);
  ``preserve_first_user_group`` false (the default) or true.
- sliding-window: ``keep_last_groups`` 25 %, 50 % or 75 % of the message count.
- selective-tool-call and tool-result: ``keep_last_tool_call_groups`` 0, 1 (the default) or 2.
- summarization: ``target_count`` 25 %, 50 % or 75 % of the message count; ``threshold`` 0 to 2.
- persisted-summarization: as summarization, run as a ``CompactionProvider``'s
  ``after_strategy`` on the stored history; the session goes through ``to_dict`` and JSON and
  back, and the next turn's history is loaded with ``skip_excluded=True`` (without it, the
  framework loads the excluded originals beside the summary).
- token-budget: ``token_budget`` 25 %, 50 % or 75 % of the history's tokens; the strategies the
  framework's documentation composes, ``ToolResultCompactionStrategy`` (keep 1) then
  ``SlidingWindowStrategy`` (keep ``keep_last_groups``, as above), then its own fallback;
  ``early_stop`` true (the default) or false.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from agent_framework import (
    AgentSession,
    CharacterEstimatorTokenizer,
    ChatResponse,
    CompactionProvider,
    InMemoryHistoryProvider,
    Message,
    SelectiveToolCallCompactionStrategy,
    SlidingWindowStrategy,
    SummarizationStrategy,
    TokenBudgetComposedStrategy,
    ToolResultCompactionStrategy,
    TruncationStrategy,
    apply_compaction,
)

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_agent_framework import (
    from_agent_framework,
    to_agent_framework,
)
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.request import ModelRequest, Turn

FRACTIONS = (0.25, 0.5, 0.75)
HISTORY_SOURCE = "in_memory"


def _tokens(messages: Messages) -> int:
    # The framework's own estimate, summed over the messages as it annotates them.
    tokenizer = CharacterEstimatorTokenizer()
    return sum(
        tokenizer.count_tokens(str(message.to_dict())) for message in to_agent_framework(messages)
    )


class EchoChatClient:
    """A local chat client answering with the last message it is shown (the transcript), or
    with the run's model."""

    additional_properties: dict[str, Any]

    def __init__(self, model: Any = None) -> None:
        self.additional_properties = {}
        self.model = model

    async def get_response(
        self, messages: Sequence[Message], *, stream: bool = False, **_: Any
    ) -> ChatResponse[None]:
        """One answer to a summary request."""
        del stream
        if self.model is None:
            said = messages[-1].text if messages else ""
        else:
            system = "\n".join(m.text for m in messages if m.role == "system")
            turns = tuple(
                Turn(role="assistant" if m.role == "assistant" else "user", text=m.text)
                for m in messages
                if m.role != "system"
            )
            said = self.model.answer(ModelRequest(system=system, turns=turns))
        return ChatResponse(messages=[Message("assistant", [said])])


class _Strategy(MessagesAdapter):
    package = "agent-framework-core"

    def _strategy(self, parameters: Parameters) -> Any:
        raise NotImplementedError

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The messages the framework would send after the strategy ran (its projection)."""
        # A fresh list per call: apply_compaction marks what it is handed in place.
        fresh = to_agent_framework(messages)
        strategy = self._strategy(parameters)
        projected = asyncio.run(apply_compaction(fresh, strategy=strategy))
        return from_agent_framework(projected)


class Truncation(_Strategy):
    """``TruncationStrategy``: oldest whole groups excluded down to ``compact_to``."""

    def parameters(self, messages: Messages) -> Parameters:
        """Metric, target and the first-user flag for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        metric = draw.choice("metric", ("messages", "tokens"))
        total = len(messages) if metric == "messages" else _tokens(messages)
        target = draw.share("compact_to", total, FRACTIONS)
        draw.fixed("max_n", target)
        draw.flag("preserve_first_user_group")
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> Any:
        return TruncationStrategy(
            max_n=cast(int, parameters["max_n"]),
            compact_to=cast(int, parameters["compact_to"]),
            tokenizer=CharacterEstimatorTokenizer() if parameters["metric"] == "tokens" else None,
            preserve_first_user_group=bool(parameters["preserve_first_user_group"]),
        )


class SlidingWindow(_Strategy):
    """``SlidingWindowStrategy``: the last non-system groups, system groups kept."""

    def parameters(self, messages: Messages) -> Parameters:
        """The window for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.share("keep_last_groups", len(messages), FRACTIONS)
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> Any:
        return SlidingWindowStrategy(keep_last_groups=cast(int, parameters["keep_last_groups"]))


class SelectiveToolCall(_Strategy):
    """``SelectiveToolCallCompactionStrategy``: older tool-call groups excluded."""

    def parameters(self, messages: Messages) -> Parameters:
        """How many tool-call groups stay."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.choice("keep_last_tool_call_groups", (1, 0, 2))
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> Any:
        keep = cast(int, parameters["keep_last_tool_call_groups"])
        return SelectiveToolCallCompactionStrategy(keep_last_tool_call_groups=keep)


class ToolResult(SelectiveToolCall):
    """``ToolResultCompactionStrategy``: older tool-call groups collapsed into a summary line."""

    def _strategy(self, parameters: Parameters) -> Any:
        keep = cast(int, parameters["keep_last_tool_call_groups"])
        return ToolResultCompactionStrategy(keep_last_tool_call_groups=keep)


class Summarization(_Strategy):
    """``SummarizationStrategy`` over an echo client: older groups become one summary."""

    def parameters(self, messages: Messages) -> Parameters:
        """Target and threshold for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.share("target_count", len(messages), FRACTIONS)
        draw.integer("threshold", 0, 2)
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> Any:
        return SummarizationStrategy(
            # A structural stand-in for the framework's client protocol (its one method used).
            client=cast(Any, EchoChatClient(self.model)),
            target_count=cast(int, parameters["target_count"]),
            threshold=cast(int, parameters["threshold"]),
        )


class PersistedSummarization(Summarization):
    """``SummarizationStrategy`` as a ``CompactionProvider``'s ``after_strategy``: the stored
    history is compacted after a run, the session is persisted and restored, and the next turn
    loads it through ``InMemoryHistoryProvider(skip_excluded=True)``."""

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """What the next turn would load from the restored session."""

        async def run() -> list[Message]:
            session = AgentSession()
            session.state[HISTORY_SOURCE] = {"messages": to_agent_framework(messages)}
            provider = CompactionProvider(
                after_strategy=self._strategy(parameters), history_source_id=HISTORY_SOURCE
            )
            await provider.after_run(agent=None, session=session, context=None, state={})
            restored = AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))
            history = InMemoryHistoryProvider(HISTORY_SOURCE, skip_excluded=True)
            return await history.get_messages(None, state=restored.state[HISTORY_SOURCE])

        return from_agent_framework(asyncio.run(run()))


class TokenBudget(_Strategy):
    """``TokenBudgetComposedStrategy`` of tool-result compaction, then a sliding window."""

    def parameters(self, messages: Messages) -> Parameters:
        """Budget, window and early stop for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.share("token_budget", _tokens(messages), FRACTIONS)
        draw.share("keep_last_groups", len(messages), FRACTIONS)
        draw.choice("early_stop", (True, False))
        return draw.drawn

    def _strategy(self, parameters: Parameters) -> Any:
        return TokenBudgetComposedStrategy(
            token_budget=cast(int, parameters["token_budget"]),
            tokenizer=CharacterEstimatorTokenizer(),
            strategies=[
                ToolResultCompactionStrategy(keep_last_tool_call_groups=1),
                SlidingWindowStrategy(keep_last_groups=cast(int, parameters["keep_last_groups"])),
            ],
            early_stop=bool(parameters["early_stop"]),
        )


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "agent-framework:truncation": Truncation,
    "agent-framework:sliding-window": SlidingWindow,
    "agent-framework:selective-tool-call": SelectiveToolCall,
    "agent-framework:tool-result": ToolResult,
    "agent-framework:summarization": Summarization,
    "agent-framework:persisted-summarization": PersistedSummarization,
    "agent-framework:token-budget": TokenBudget,
}
