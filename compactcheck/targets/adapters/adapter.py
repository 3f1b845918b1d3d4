"""The shape every built-in adapter shares: parameters from the history, then one compaction."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar

from pydantic import JsonValue

from compactcheck.targets.backend import Answer
from compactcheck.targets.inprocess import CallableBackend
from invariants import Budget, View

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


def text_size(message: Mapping[str, Any]) -> int:
    """Characters of a chat dict's text and tool call arguments, as the budget law counts them."""
    content = message.get("content")
    if isinstance(content, list):
        size = sum(len(part.get("text", "")) for part in content)
    else:
        size = len(content or "")
    for call in message.get("tool_calls") or []:
        size += len(call["function"]["arguments"])
    return size


def budget_measure(budget: Budget) -> Callable[[Messages], int]:
    """The size of chat dicts under a declared budget's counter (the budget law's arithmetic)."""

    def measure(messages: Messages) -> int:
        if budget.counter == "messages":
            return len(messages)
        chars = sum(text_size(message) for message in messages)
        return chars if budget.counter == "characters" else math.ceil(chars / 4)

    return measure


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
