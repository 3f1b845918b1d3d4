"""crewAI's ``summarize_messages`` as run on context overflow, as ``crewai:summarize-messages``.

When a provider rejects a request as too long, a crewAI agent executor calls
``handle_context_length`` (``respect_context_window=True``, the default), which runs the LLM's
``summarize_messages``: the system messages stay, and everything else is packed into chunks that
fit the model's context window, each summarised, the summaries joined into one user message. The
adapter calls ``handle_context_length`` as the executor does (``verbose=False``).

The LLM is a ``BaseLLM`` whose answer repeats the conversation crewAI's summary prompt shows it,
wrapped in the ``<summary>`` tags the prompt asks for (or the run's model, ``--model``, answering
crewAI's own prompt). Its token count is crewAI's own fallback (characters / 4) and its context
window is drawn, so the chunking is crewAI's.

crewAI cannot share an environment with the frameworks extra (its pins conflict with those of
openai-agents, inspect-ai and google-adk): install it alone, ``./dev crewai-env``
(``.venv-crewai``).

Parameter range, drawn per history (see ``compactcheck.adapters.parameters``):

- ``context_window``: 50 %, 100 % or 200 % of crewAI's estimate of a summary request holding the
  whole history, never below what the summary prompt alone needs plus 64 tokens (below that
  crewAI refuses to summarise at all).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from crewai.llms.base_llm import BaseLLM
from crewai.utilities.agent_utils import handle_context_length
from crewai.utilities.message_utils import build_summary_prompt
from crewai.utilities.printer import Printer

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_crewai import from_crewai, to_crewai
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models import MeteredModel
from compactcheck.models.request import ModelRequest, Turn

_CONVERSATION = re.compile(r"<conversation>\n?(.*?)\n?</conversation>", re.DOTALL)
_TAGS = re.compile(r"</?summary>")
# Room for some conversation beside the summary prompt, in crewAI's estimated tokens.
_ROOM = 64
ECHO = "compactcheck-echo"


class EchoLLM(BaseLLM):  # type: ignore[misc]
    """A crewAI LLM that answers a summary request with the conversation it was shown."""

    context_window: int = 8192
    slot: Any = None

    def get_context_window_size(self) -> int:
        """The drawn window."""
        return self.context_window

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        """The summary: the conversation of the prompt's last message, or the run's model's."""
        prompt = [messages] if isinstance(messages, str) else list(messages)
        texts = [m if isinstance(m, str) else str(m.get("content") or "") for m in prompt]
        if isinstance(self.slot, MeteredModel):
            request = ModelRequest(
                system="\n".join(t for m, t in zip(prompt, texts, strict=True) if _system(m)),
                turns=tuple(
                    Turn(role="user", text=t)
                    for m, t in zip(prompt, texts, strict=True)
                    if not _system(m)
                ),
            )
            return self.slot.answer(request)
        found = _CONVERSATION.search(texts[-1])
        shown = found.group(1) if found else texts[-1]
        # A model writes the tags once, around its own summary; an earlier summary in the
        # conversation is repeated without its tags, which crewAI's non-greedy parse of the
        # answer would otherwise take for the end of this one.
        return f"<summary>\n{_TAGS.sub('', shown)}\n</summary>"

    async def acall(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        """As ``call``."""
        return self.call(messages)


def _system(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


@contextmanager
def _quiet() -> Iterator[None]:
    # crewAI warns on every count that it estimates tokens (our drawn setting, not news).
    noisy = logging.getLogger("crewai.llms.base_llm")
    before = noisy.disabled
    noisy.disabled = True
    try:
        yield
    finally:
        noisy.disabled = before


class SummarizeMessages(MessagesAdapter):
    """``handle_context_length`` on the history with a drawn context window."""

    package = "crewai"

    def parameters(self, messages: Messages) -> Parameters:
        """The context window for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        llm = EchoLLM(model=ECHO)
        with _quiet():
            floor = llm.get_input_tokens_count(build_summary_prompt([])) + _ROOM
            whole = llm.get_input_tokens_count(build_summary_prompt(to_crewai(messages)))
        draw.share("context_window", whole, (0.5, 1.0, 2.0), floor=floor)
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Summarise as crewAI does when the provider reports a context overflow."""
        window = parameters["context_window"]
        assert isinstance(window, int)
        llm = EchoLLM(model=ECHO, context_window=window, slot=self.model)
        history = to_crewai(messages)
        with _quiet():
            handle_context_length(
                respect_context_window=True,
                printer=Printer(),
                messages=history,
                llm=llm,
                callbacks=[],
                verbose=False,
            )
        return from_crewai(history)


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {"crewai:summarize-messages": SummarizeMessages}
