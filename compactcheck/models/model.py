"""The model protocol every summariser's model goes through, and its errors."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from compactcheck.errors import CompactcheckError
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


class ModelError(CompactcheckError):
    """A model slot that cannot be opened: an unknown name, a missing package or key."""


class ModelRefusedError(CompactcheckError):
    """A call the slot would not make: the cap is reached, or offline and not recorded.

    A component that meets it answers nothing: the adapter turns it into a skipped call, so
    that the round is inconclusive rather than judged on a summary that was never written.
    """
