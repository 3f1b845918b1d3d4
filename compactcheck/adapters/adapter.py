"""The shape every built-in adapter shares: parameters from the history, then one compaction.

An adapter speaks one wire format of the messages view: chat completions (a list of chat dicts,
``MessagesAdapter``) or a provider's own request (``RequestAdapter``, e.g. Gemini's
``systemInstruction`` and ``contents``), the format its framework's provider path really uses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import JsonValue

from compactcheck.backends.inprocess import CallableBackend
from compactcheck.base.backend import Answer
from compactcheck.invariants import Budget, View, parse_messages
from compactcheck.invariants.facts import Counter
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.invariants.laws.messages import message_size

if TYPE_CHECKING:
    from compactcheck.models import MeteredModel

Messages = list[dict[str, Any]]
"""OpenAI chat dicts, as the messages view carries them."""

Request = dict[str, Any]
"""A provider request of a format other than chat completions, as JSON data."""

History = TypeVar("History", Messages, Request)

Parameters = dict[str, JsonValue]
"""The settings one compaction ran with, as shown in its answer and its witness."""


def package_version(package: str) -> str:
    """The installed version of a distribution, or '' when it is not installed."""
    try:
        return version(package)
    except PackageNotFoundError:
        return ""


def chat_size(messages: Messages, counter: Counter) -> int:
    """The size of chat dicts under a budget counter, measured by the budget law's own function."""
    return message_size(parse_messages(messages), counter)


def budget_measure(budget: Budget) -> Callable[[Messages], int]:
    """The size of chat dicts under a declared budget's counter."""
    return partial(chat_size, counter=budget.counter)


class Adapter(ABC, Generic[History]):
    """One third-party compactor behind the messages view, with its parameters drawn per history."""

    package: ClassVar[str]
    """The distribution whose version the target reports."""

    format: ClassVar[Format]
    """The wire format it is handed and answers in."""

    def __init__(
        self, name: str, budget: Budget | None = None, model: MeteredModel | None = None
    ) -> None:
        self.name = name
        self.budget = budget
        # The run's model slot; None: the adapter's own echo, exactly as before slots existed.
        self.model = model
        # Hypothesis's draws for this compaction's settings (see ParameterDraw).
        self.knobs: tuple[int, ...] = ()

    @abstractmethod
    def parameters(self, history: History) -> Parameters:
        """The settings this history is compacted with (a function of the history alone)."""

    @abstractmethod
    def apply(self, history: History, parameters: Parameters) -> History:
        """Run the component on the history with those settings; its format in and out."""

    def __call__(self, history: History) -> dict[str, Any]:
        """One compaction, answered with the parameters it used."""
        chosen = self.parameters(history)
        return {_envelope(self.format): self.apply(history, chosen), "parameters": chosen}


class MessagesAdapter(Adapter[Messages]):
    """An adapter handed OpenAI chat dicts and answering them."""

    format: ClassVar[Format] = CHAT


class RequestAdapter(Adapter[Request]):
    """An adapter handed a provider request of its ``format`` and answering the compacted one."""


def _envelope(format: Format) -> str:
    # The messages view carries chat dicts as "messages" and any other format's request as
    # "request" (compactcheck.harness.messages).
    return "messages" if format == CHAT else "request"


class AdapterBackend(CallableBackend):
    """An adapter as a backend; each result carries the parameters next to the history."""

    def __init__(
        self,
        adapter: Adapter[Any],
        *,
        timeout: float | None,
        waivers: dict[str, str] | None = None,
    ) -> None:
        views: tuple[View, ...] = ("messages",)
        super().__init__(
            adapter,
            name=adapter.name,
            views=views,
            version=f"{adapter.package} {package_version(adapter.package)}".strip(),
            timeout=timeout,
        )
        # The one format it speaks, so that the registry drives it in that one (a plain
        # callable takes whichever the run names).
        self._implementation = self._implementation.model_copy(
            update={"formats": [adapter.format], "waivers": dict(waivers or {})}
        )
        self.adapter = adapter

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """The adapter's answer, unwrapped from the callable backend's envelope of its format."""
        knobs = payload.get("knobs", ())
        self.adapter.knobs = (
            tuple(k for k in knobs if isinstance(k, int)) if isinstance(knobs, list) else ()
        )
        model = self.adapter.model
        if model is not None:
            model.refusal = ""
        answer = super().compact(view, payload)
        if model is not None and model.refusal:
            # Whatever the component made of the refusal (raised, or swallowed into a summary
            # it never wrote), the round was not compacted as it would be: not judged.
            return Answer.skip(f"{model.name}: {model.refusal}")
        if answer.kind != "result" or answer.result is None:
            return answer
        if self.adapter.format == CHAT:
            # A chat answer is taken whole ({"messages": [...], "parameters": ...}).
            return answer
        inner = answer.result[_envelope(self.adapter.format)]
        return Answer.ok(dict(inner))
