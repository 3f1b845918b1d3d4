"""A provider-neutral model request: system text, turns of role and text, and a few parameters.

Its canonical JSON (RFC 8785) is the same bytes for the same request whichever component built
it, so its sha256 is the key under which the answer is recorded and replayed.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "assistant", "tool"]


class Turn(BaseModel):
    """One message of a request: who speaks and what, as text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    text: str


class ModelRequest(BaseModel):
    """What a summarising component asks its model, in no provider's format."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(default="", description="the model slot that answers, e.g. openai:gpt-4o")
    system: str = Field(default="", description="system instructions, '' when none")
    turns: tuple[Turn, ...] = Field(description="the conversation, oldest first")
    max_tokens: int | None = Field(default=None, description="the most tokens of the answer")
    temperature: float | None = Field(default=None, description="sampling temperature")

    def canonical(self) -> bytes:
        """The request as canonical JSON (RFC 8785): its identity."""
        data: Any = self.model_dump(mode="json")
        return bytes(rfc8785.dumps(data))

    def key(self) -> str:
        """The sha256 of the canonical JSON, hex: where its answer is recorded."""
        return hashlib.sha256(self.canonical()).hexdigest()

    def text(self) -> str:
        """Everything the request says, system text first, one block per turn."""
        blocks = [f"[system] {self.system}"] if self.system else []
        blocks += [f"[{turn.role}] {turn.text}" for turn in self.turns]
        return "\n".join(blocks)

    def for_model(self, name: str) -> ModelRequest:
        """The same request addressed to the slot ``name``."""
        return self.model_copy(update={"model": name})
