"""Haystack's compactors (haystack-ai, ``haystack.hooks.compaction``) as the targets
``haystack:sliding-window``, ``haystack:summarization``, ``haystack:tool-result-pruning`` and
``haystack:tool-result-offload``.

Each call runs the compactor's own ``compact(messages, target_tokens, token_counter)``, the step a
``CompactionHook`` takes once the context passes its threshold, on the history as Haystack chat
messages (``convert_haystack``). A compactor that answers None declines: the history comes back
unchanged. Haystack marks these classes experimental; their ExperimentalWarning is silenced here
(the adapter pins haystack-ai 3.4.1, whose behaviour the published report records).

Offline throughout: sizes are Haystack's own ``ApproximateTokenCounter`` (rendered text / 4), or
the budget law's own arithmetic under a declared ``--budget``; the summariser is a local fake
generator (``ExtractiveSummarizer``) that repeats the conversation it is handed, everything but
the bodies of long tool results, so that its summary is shorter than what it replaces, as
Haystack requires (a summary that does not shrink the conversation is refused), unless the run
names a model (``--model``): Haystack's prompt then goes to that model (``ModelSummarizer``),
metered and recorded; a fake that repeats its prompt (echo, paraphrase) never shrinks the
conversation, so Haystack refuses every such summary and no round is compacted; the offload store
is Haystack's ``FileSystemToolResultStore`` in a temporary folder that each call removes.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- every compactor: ``target_tokens`` 25 %, 50 % or 75 % of the history's approximate tokens,
  never below what the leading system messages and the newest message need (a target that
  nothing fits would make the component's floor the only answer); a declared budget's limit.
- sliding window: ``min_keep_steps`` 1 (the default), 0 or 2; ``omission_note`` the default note
  or none (removed silently).
- summarization: ``min_keep_steps`` 1, 0 or 2; ``approximate_summary_tokens`` 1024 (the
  default) or 256; ``raise_on_failure`` the default, false (a refused summary keeps the last one
  that worked).
- tool-result pruning and offload: ``min_keep_steps`` 1 (the default) or 2 (both refuse 0);
  ``min_tokens`` 200 (the default) or 50; offload only: ``preview_chars`` 200 (the default) or 40.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from abc import abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any, cast

# Haystack reads this when it is first imported: a fuzzing run sends no telemetry.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack.dataclasses import ChatMessage
from haystack.hooks.compaction import (
    SlidingWindowCompactor,
    SummarizationCompactor,
    ToolResultOffloadCompactor,
    ToolResultPruningCompactor,
)
from haystack.hooks.compaction.types import Compactor
from haystack.hooks.tool_result_offloading import FileSystemToolResultStore
from haystack.token_counters import ApproximateTokenCounter, TokenCounter
from haystack.tools import ToolsType
from haystack.utils.experimental import ExperimentalWarning

from compactcheck.adapters.adapter import (
    Messages,
    MessagesAdapter,
    Parameters,
    budget_measure,
)
from compactcheck.adapters.convert_haystack import from_haystack, to_haystack
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.meter import MeteredModel
from compactcheck.models.request import ModelRequest, Role, Turn

FRACTIONS = (0.25, 0.5, 0.75)

# How much of a tool result's first line the summariser repeats.
TOOL_PREVIEW = 200

# The openings of a transcript entry that is not a tool result (haystack.token_counters.utils
# renders "[role] text", "[assistant -> tool_call id=...] name(args)", "[tool:name id=...] ...";
# earlier summaries come as "[conversation_summary]").
_OTHER_ENTRIES = ("[system]", "[user]", "[assistant]", "[assistant -> ", "[conversation_summary]")


def extractive_summary(transcript: str) -> str:
    """Every line of a Haystack summary transcript, with each tool result cut to its first line."""
    kept: list[str] = []
    in_result = False
    for line in transcript.splitlines():
        if line.startswith("[tool:"):
            in_result = True
            clipped = line[:TOOL_PREVIEW]
            kept.append(clipped + (" [...]" if len(line) > TOOL_PREVIEW else ""))
        elif line.startswith(_OTHER_ENTRIES):
            in_result = False
            kept.append(line)
        elif not in_result:
            kept.append(line)
    return "\n".join(kept)


class ExtractiveSummarizer:
    """A local stand-in for Haystack's summarising chat generator: no model, no network.

    Haystack hands it an instruction and ``<conversation_to_summarize>`` with the transcript of
    the messages it chose to replace; the summary is that transcript, with the bodies of tool
    results left out: every system, user and assistant text, every call with its id, name and
    arguments, and each result's tool, call id and first line stay word for word.
    """

    def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
        """Haystack's ChatGenerator protocol: the summary as the one reply."""
        prompt = messages[-1].text or ""
        opening, closing = "<conversation_to_summarize>\n", "\n</conversation_to_summarize>"
        transcript = prompt.removeprefix(opening).removesuffix(closing)
        return {"replies": [ChatMessage.from_assistant(extractive_summary(transcript))]}


class ModelSummarizer:
    """Haystack's chat generator protocol answered by the run's model (``--model``).

    Haystack builds its own summary prompt; the prompt's messages become a model request (the
    system messages its system text, every other message a turn), so that the call is metered,
    recorded and replayed like any other. A refused call raises: Haystack stops at its last
    summary, and the adapter makes the round inconclusive.
    """

    def __init__(self, model: MeteredModel) -> None:
        self.model = model

    def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
        """One reply: the model's answer to Haystack's prompt."""
        system = "\n".join(m.text or "" for m in messages if m.role.value == "system")
        turns = tuple(
            Turn(role=_ROLES.get(m.role.value, "user"), text=m.text or "")
            for m in messages
            if m.role.value != "system"
        )
        text = self.model.answer(ModelRequest(system=system, turns=turns))
        return {"replies": [ChatMessage.from_assistant(text)]}


_ROLES: dict[str, Role] = {"assistant": "assistant", "tool": "tool"}


class BudgetCounter(TokenCounter):
    """A Haystack token counter that measures as the budget law does."""

    def __init__(self, measure: Callable[[Messages], int]) -> None:
        self.measure = measure

    def count(self, messages: list[ChatMessage], tools: ToolsType | None = None) -> int:
        """The size of Haystack messages under the declared budget's counter."""
        del tools
        return self.measure(from_haystack(messages))

    def to_dict(self) -> dict[str, Any]:
        """Not serialisable: it lives for one call."""
        raise NotImplementedError("the budget counter of a compactcheck run is not serialised")


class ContentAddressedStore(FileSystemToolResultStore):
    """Haystack's file store, naming each entry by its content's hash, relative to its root.

    Haystack's own key carries a random uuid and the store answers an absolute path, so the
    pointer left in the conversation would differ on every call and no witness could be replayed;
    a relative reference is one this store reads back all the same.
    """

    def write(self, *, key: str, content: str | bytes) -> str:
        """Write under ``<sha256 of the content><key's extension>``; the reference to read it by."""
        data = content.encode() if isinstance(content, str) else content
        name = hashlib.sha256(data).hexdigest()[:16] + PurePath(key).suffix
        written = Path(super().write(key=name, content=content))
        return str(written.relative_to(self.root.resolve()))


class _Haystack(MessagesAdapter):
    package = "haystack-ai"

    def _counter(self) -> TokenCounter:
        if self.budget is not None:
            return BudgetCounter(budget_measure(self.budget))
        return ApproximateTokenCounter()

    def parameters(self, messages: Messages) -> Parameters:
        """The target size, then the compactor's own settings."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        if self.budget is not None:
            draw.fixed("token_counter", f"budget:{self.budget.counter}")
            draw.fixed("target_tokens", self.budget.limit)
        else:
            draw.fixed("token_counter", "ApproximateTokenCounter")
            counter = self._counter()
            converted = to_haystack(messages)
            system_end = next(
                (i for i, m in enumerate(converted) if m.role.value != "system"), len(converted)
            )
            needed = [*converted[:system_end], *converted[system_end:][-1:]]
            draw.share(
                "target_tokens",
                counter.count(messages=converted),
                FRACTIONS,
                floor=counter.count(messages=needed),
            )
        self._settings(draw)
        return draw.drawn

    @abstractmethod
    def _settings(self, draw: ParameterDraw) -> None:
        """Draw the compactor's own settings."""

    @abstractmethod
    def _compactor(self, parameters: Parameters, folder: Path) -> Compactor:
        """The compactor with those settings (``folder`` is this call's scratch folder)."""

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """One ``compact``; the history unchanged when the compactor declines."""
        with tempfile.TemporaryDirectory(prefix="compactcheck-haystack-") as folder:
            with warnings.catch_warnings():
                # Haystack warns on every construction of an experimental compactor, that is
                # on every call here.
                warnings.simplefilter("ignore", ExperimentalWarning)
                compactor = self._compactor(parameters, Path(folder))
            compacted = compactor.compact(
                messages=to_haystack(messages),
                target_tokens=cast(int, parameters["target_tokens"]),
                token_counter=self._counter(),
            )
        return list(messages) if compacted is None else from_haystack(compacted)


class SlidingWindow(_Haystack):
    """``SlidingWindowCompactor``: whole turns and agent steps go, oldest first."""

    def _settings(self, draw: ParameterDraw) -> None:
        draw.choice("min_keep_steps", (1, 0, 2))
        draw.choice("omission_note", ("default", None))

    def _compactor(self, parameters: Parameters, folder: Path) -> Compactor:
        del folder
        steps = cast(int, parameters["min_keep_steps"])
        if parameters["omission_note"] is None:
            return SlidingWindowCompactor(min_keep_steps=steps, omission_note=None)
        return SlidingWindowCompactor(min_keep_steps=steps)


class Summarization(_Haystack):
    """``SummarizationCompactor`` with the extractive local summariser, or the run's model."""

    def _settings(self, draw: ParameterDraw) -> None:
        draw.choice("min_keep_steps", (1, 0, 2))
        draw.choice("approximate_summary_tokens", (1024, 256))
        draw.fixed("raise_on_failure", False)

    def _compactor(self, parameters: Parameters, folder: Path) -> Compactor:
        del folder
        return SummarizationCompactor(
            chat_generator=(
                ExtractiveSummarizer() if self.model is None else ModelSummarizer(self.model)
            ),
            min_keep_steps=cast(int, parameters["min_keep_steps"]),
            approximate_summary_tokens=cast(int, parameters["approximate_summary_tokens"]),
            raise_on_failure=bool(parameters["raise_on_failure"]),
        )


class ToolResultPruning(_Haystack):
    """``ToolResultPruningCompactor``: old tool results become a placeholder."""

    def _settings(self, draw: ParameterDraw) -> None:
        draw.choice("min_keep_steps", (1, 2))
        draw.choice("min_tokens", (200, 50))

    def _compactor(self, parameters: Parameters, folder: Path) -> Compactor:
        del folder
        return ToolResultPruningCompactor(
            min_keep_steps=cast(int, parameters["min_keep_steps"]),
            min_tokens=cast(int, parameters["min_tokens"]),
        )


class ToolResultOffload(_Haystack):
    """``ToolResultOffloadCompactor``: old tool results go to a file store, a pointer stays."""

    def _settings(self, draw: ParameterDraw) -> None:
        draw.choice("min_keep_steps", (1, 2))
        draw.choice("min_tokens", (200, 50))
        draw.choice("preview_chars", (200, 40))

    def _compactor(self, parameters: Parameters, folder: Path) -> Compactor:
        return ToolResultOffloadCompactor(
            store=ContentAddressedStore(root=folder),
            min_keep_steps=cast(int, parameters["min_keep_steps"]),
            min_tokens=cast(int, parameters["min_tokens"]),
            preview_chars=cast(int, parameters["preview_chars"]),
        )


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "haystack:sliding-window": SlidingWindow,
    "haystack:summarization": Summarization,
    "haystack:tool-result-pruning": ToolResultPruning,
    "haystack:tool-result-offload": ToolResultOffload,
}
