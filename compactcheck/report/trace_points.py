"""The compaction points an audit of traces found: one result each, and what was read."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PointViolation(_Model):
    """One law a compaction point broke, and why."""

    invariant: str
    because: str


class TracePoint(_Model):
    """One compaction point: where it is in the traces, what it did, and the laws' verdicts."""

    number: int = Field(description="1 for the first point found")
    trace_id: str
    span_id: str = Field(description="the span of the call that sent the compacted history")
    previous_span_id: str = Field(description="the span of the call before it, of the same agent")
    previous_trace_id: str = ""
    time: str = Field(description="when the call that sent the compacted history started (UTC)")
    conversation: str = Field(description="the conversation id the spans name, or 'trace ID'")
    agent: str = Field(default="", description="the agent or graph node the spans name, or ''")
    format: str
    source: str = Field(description="the convention the messages were read by")
    verdict: str = Field(description="violation, pass, or unknown (no law could break here)")
    violations: list[PointViolation] = Field(default_factory=list)
    laws: dict[str, str] = Field(
        default_factory=dict, description="each law's verdict at this point (as check gives it)"
    )
    kept: int
    rewritten: int
    summarised: int
    dropped: int
    inserted: int = Field(description="messages of the compacted history not handed in (summaries)")
    messages_before: int
    messages_after: int
    head_changed: bool = Field(
        default=False, description="the system prompt or instructions outside the history changed"
    )
    output_recorded: bool = Field(
        default=True,
        description="false when the previous call's answer was not recorded: the history handed "
        "in is then rebuilt without it",
    )
    before: JsonValue = Field(
        default=None,
        description="the history handed to the compactor (rebuilt), as check takes it; absent "
        "past the report's limit of kept conversations",
    )
    after: JsonValue = Field(default=None, description="the history the next call sent")


class TraceReading(_Model):
    """What an audit of traces read, and what it could not judge."""

    sources: list[str] = Field(default_factory=list, description="files or servers read")
    spans: int = 0
    log_events: int = 0
    model_calls: int = 0
    conversations: int = 0
    lineages: int = Field(default=0, description="agents' call sequences within conversations")
    pairs: int = Field(default=0, description="consecutive calls of one agent compared")
    continuations: int = 0
    compactions: int = 0
    skipped: dict[str, int] = Field(
        default_factory=dict, description="calls not judged, by reason (with the setting to change)"
    )
    conversations_kept: int = Field(
        default=0, description="points whose before and after histories the report keeps"
    )
    points: list[TracePoint] = Field(default_factory=list)
    points_left_out: int = Field(
        default=0,
        description="compaction points judged but not held past the report's limit "
        "(--keep-points; violations are held first); their verdicts count in the laws' results",
    )


__all__ = ["PointViolation", "TracePoint", "TraceReading"]
