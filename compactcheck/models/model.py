"""The model protocol every summariser's model goes through, and its errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from compactcheck.base.errors import CompactcheckError
from compactcheck.models.request import ModelRequest


@runtime_checkable
class Model(Protocol):
    """Anything that answers a model request with text."""

    @property
    def name(self) -> str:
        """What answers, as ``--model`` names it (``paraphrase``, ``openai:gpt-4o``)."""
        ...

    def answer(self, request: ModelRequest) -> str:
        """The model's text for ``request``."""
        ...


@dataclass(frozen=True)
class Reply:
    """A model's answer and the tokens its provider says it took (input and output)."""

    text: str
    # None when the provider reported no usage: the meter then estimates it.
    tokens: int | None = None


@runtime_checkable
class Replying(Protocol):
    """A model that also says what an answer cost: the real clients."""

    def reply(self, request: ModelRequest) -> Reply:
        """The model's text for ``request`` and its provider's count of tokens."""
        ...


class ModelError(CompactcheckError):
    """A model slot that cannot be opened: an unknown name, a missing package or key."""


class ModelRefusedError(CompactcheckError):
    """A call the slot would not make: the cap is reached, or offline and not recorded.

    A component that meets it answers nothing: the adapter turns it into a skipped call, so
    that the round is inconclusive rather than judged on a summary that was never written.
    """


def reply_of(model: Model, request: ModelRequest) -> Reply:
    """``model``'s reply, with its provider's count of tokens where the model reports one."""
    return model.reply(request) if isinstance(model, Replying) else Reply(model.answer(request))
