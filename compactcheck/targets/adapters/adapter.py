"""The shape every built-in adapter shares: parameters from the history, then one compaction."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar

from pydantic import JsonValue

from compactcheck.targets.backend import Answer
from compactcheck.targets.inprocess import CallableBackend
from invariants import Budget, View, parse_messages
from invariants.facts import Counter
from invariants.laws.messages import message_size

Messages = list[dict[str, Any]]
"""OpenAI chat dicts, as the messages view carries them."""

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


class MessagesAdapter(ABC):
    """One third-party compactor behind the messages view, with its parameters drawn per history."""

    package: ClassVar[str]
    """The distribution whose version the target reports."""

    def __init__(self, name: str, budget: Budget | None = None) -> None:
        self.name = name
        self.budget = budget
        # Hypothesis's draws for this compaction's settings (see ParameterDraw).
        self.knobs: tuple[int, ...] = ()

    @abstractmethod
    def parameters(self, messages: Messages) -> Parameters:
        """The settings this history is compacted with (a function of the history alone)."""

    @abstractmethod
    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Run the component on the history with those settings; chat dicts in and out."""

    def __call__(self, messages: Messages) -> dict[str, Any]:
        """One compaction, answered with the parameters it used."""
        chosen = self.parameters(messages)
        return {"messages": self.apply(messages, chosen), "parameters": chosen}


class AdapterBackend(CallableBackend):
    """An adapter as a backend; each result carries the parameters next to the messages."""

    def __init__(self, adapter: MessagesAdapter, *, timeout: float | None) -> None:
        views: tuple[View, ...] = ("messages",)
        super().__init__(
            adapter,
            name=adapter.name,
            views=views,
            version=f"{adapter.package} {package_version(adapter.package)}".strip(),
            timeout=timeout,
        )
        self.adapter = adapter

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """The adapter's answer, unwrapped from the callable backend's messages envelope."""
        knobs = payload.get("knobs", ())
        self.adapter.knobs = (
            tuple(k for k in knobs if isinstance(k, int)) if isinstance(knobs, list) else ()
        )
        answer = super().compact(view, payload)
        if answer.kind != "result" or answer.result is None:
            return answer
        inner = answer.result["messages"]
        return Answer.ok(dict(inner))
