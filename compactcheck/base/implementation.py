"""What a target says about itself: the protocol handshake's answer, kept in every report."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Implementation(BaseModel):
    """What a target says about itself (from the protocol handshake, or built in)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str = ""
    language: str = "python"
    views: list[str] = Field(default_factory=list)
    formats: list[str] = Field(
        default_factory=lambda: ["openai-chat"],
        description="the wire formats of the messages view it speaks (chat completions unless "
        "it declares others)",
    )
    waivers: dict[str, str] = Field(
        default_factory=dict,
        description="laws the compactor does not promise, each with its reason (e.g. a sliding "
        "window keeps no content by design); judged and shown, never counted as violations or "
        "toward the level; a law of level 1 cannot be waived",
    )
