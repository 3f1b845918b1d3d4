"""agno's ``Compaction`` as ``agno:compaction``: a fold at a pair-safe boundary, then the view.

As an agno agent does before a model call: when ``should_compact`` finds the history at the
threshold, ``compact`` chooses the boundary (a tool result never starts the kept tail; a batch
whose call would fall before the cut moves into the tail whole), has the summary written, and
``apply_record`` derives what the provider is sent: the leading system messages, the summary as a
user message, the kept tail. No database: nothing is archived, as agno does without one.

The summary model is an agno ``Model`` whose answer repeats the transcript it was handed (agno
renders the folded messages, tool calls and results included, into one user message), or the
run's model (``--model``) through the same ``Model.response`` interface. Token counts are agno's
own local estimate with no tokenizer installed (characters / 4): with tiktoken present agno would
download its ranks, so the adapter makes agno's tokenizer choice find none.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``), sizes in
that estimate of the whole history:

- ``compact_at_tokens``: 25 % or 50 % of the history's size (so that the fold is asked for).
- the kept tail: ``uncompacted_runs`` 1 or 2 (a run opens at a user message; agno's default is 5),
  or ``uncompacted_tokens`` 25 % or 50 % of ``compact_at_tokens``.
- ``enforce_min_fold_ratio``: false (the default) or true (with the default ratio 2.0).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast
from unittest import mock

from agno.compaction import Compaction
from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse
from agno.utils import log as agno_log
from agno.utils import tokens as agno_tokens

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_agno import from_agno, to_agno
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models import MeteredModel
from compactcheck.models.request import ModelRequest, Turn

SESSION = "compactcheck"


class EchoAgnoModel(Model):
    """An agno model whose answer is the text of the last message it was handed."""

    def __init__(self) -> None:
        super().__init__(id="compactcheck-echo", name="compactcheck-echo", provider="compactcheck")

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The echo of the prompt's last message (agno's rendered transcript)."""
        messages = cast(list[Message], kwargs.get("messages", args[0] if args else []))
        return ModelResponse(role="assistant", content=messages[-1].get_content_string())

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """As ``invoke``."""
        return self.invoke(*args, **kwargs)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        """As ``invoke``, in one chunk."""
        yield self.invoke(*args, **kwargs)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        """As ``invoke``, in one chunk."""
        yield self.invoke(*args, **kwargs)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return cast(ModelResponse, response)

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return cast(ModelResponse, response)


class _SlotModel(EchoAgnoModel):
    """The run's model behind agno's ``Model`` interface."""

    def __init__(self, slot: MeteredModel) -> None:
        super().__init__()
        self.slot = slot

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The run's model's answer to agno's summary prompt (system text, then transcript)."""
        messages = cast(list[Message], kwargs.get("messages", args[0] if args else []))
        request = ModelRequest(
            system="\n".join(m.get_content_string() for m in messages if m.role == "system"),
            turns=tuple(
                Turn(role="user", text=m.get_content_string())
                for m in messages
                if m.role != "system"
            ),
        )
        return ModelResponse(role="assistant", content=self.slot.answer(request))


@contextmanager
def _local_estimate() -> Iterator[None]:
    # agno counts with tiktoken when it is importable, and tiktoken downloads its ranks on first
    # use; with no tokenizer agno falls back to its own estimate, which is offline. agno's log
    # lines (each fold, each capped tail) are its own console output, not the component's answer.
    with (
        mock.patch.object(agno_tokens, "_select_tokenizer", return_value=("none", None)),
        mock.patch.object(agno_log.logger, "disabled", True),
    ):
        yield


class AgnoCompaction(MessagesAdapter):
    """``Compaction.should_compact``, ``compact`` and ``apply_record`` on the history."""

    package = "agno"

    def parameters(self, messages: Messages) -> Parameters:
        """Threshold and kept tail for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        with _local_estimate():
            size = agno_tokens.count_tokens(to_agno(messages))
        threshold = draw.share("compact_at_tokens", size, (0.25, 0.5))
        if draw.choice("tail_unit", ("runs", "tokens")) == "runs":
            draw.choice("uncompacted_runs", (1, 2))
        else:
            tail = draw.share("uncompacted_tokens", threshold, (0.25, 0.5))
            if tail >= threshold:
                # agno refuses a tail as large as the threshold; a one-token threshold has none.
                draw.fixed("uncompacted_tokens", None)
                draw.fixed("uncompacted_runs", 1)
        draw.flag("enforce_min_fold_ratio")
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Fold when agno would, and answer the view it would send."""
        settings: dict[str, Any] = {
            "compact_at_tokens": parameters["compact_at_tokens"],
            "enforce_min_fold_ratio": bool(parameters["enforce_min_fold_ratio"]),
            "store_compacted_messages": False,
        }
        if parameters.get("uncompacted_tokens") is not None:
            settings["uncompacted_tokens"] = parameters["uncompacted_tokens"]
        else:
            settings["uncompacted_runs"] = parameters["uncompacted_runs"]
        model: Model = EchoAgnoModel() if self.model is None else _SlotModel(self.model)
        history = to_agno(messages)
        with _local_estimate():
            compaction = Compaction(model=model, **settings)
            if not compaction.should_compact(history):
                return messages
            record = compaction.compact(history, session_id=SESSION)
            if record is None:
                return messages
            return from_agno(compaction.apply_record(history, record))


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {"agno:compaction": AgnoCompaction}
