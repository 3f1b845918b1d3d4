"""Typed views of the event kinds that matter to compaction (the log keeps their raw JSON)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from compactcheck.invariants.session.messages import (
    AssistantMessage,
    ContentBlock,
    OpenWireModel,
    ToolResultMessage,
)
from compactcheck.invariants.wire import WireModel

TurnEndKind = Literal["completed", "aborted", "blocked", "error", "max-tokens", "interrupted"]


class TurnStart(WireModel):
    """turn/start: turns count 1, 2, 3..."""

    turn: int = Field(ge=1)


class TurnEndReason(OpenWireModel):
    """Why a turn ended; interrupted is written only by crash repair."""

    kind: TurnEndKind


class TurnEnd(WireModel):
    """turn/end."""

    turn: int = Field(ge=1)
    reason: TurnEndReason


class StepMark(WireModel):
    """step/start and step/end: steps restart at 1 in each turn."""

    turn: int = Field(ge=1)
    step: int = Field(ge=1)


class ToolCall(WireModel):
    """tool/call: the call as the model made it, arguments raw."""

    turn: int
    step: int
    call_id: str
    name: str
    arguments: str


class ToolError(OpenWireModel):
    """The classified error of a tool result."""

    name: str
    code: str


class ToolResult(WireModel):
    """tool/result: the message the model sees plus optional error and metadata."""

    turn: int
    step: int
    message: ToolResultMessage
    error: ToolError | None = None
    meta: Any = None


class AssistantTurnMessage(WireModel):
    """assistant/message: a model reply inside a step."""

    turn: int
    step: int
    message: AssistantMessage
    usage: dict[str, int] | None = None
    interrupted: Literal[True] | None = None


class RequestConfig(OpenWireModel):
    """The routed target of a request."""

    provider: str
    model: str


class RequestEnvelope(WireModel):
    """What a request carries besides the messages."""

    config: RequestConfig
    adapter_defaults: Any = None
    system: str | None = None
    tools: list[Any] | None = None


class RequestHeader(WireModel):
    """request/header: the latest one is the routed target and envelope."""

    header: RequestEnvelope
    reason: Literal["initial", "resume", "change"]


class PositionRange(WireModel):
    """A surface range by positions: start may be numerically larger than end."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class CompactionMark(WireModel):
    """compaction/start and compaction/end (end may carry the rendered error chain)."""

    compaction_id: str = Field(min_length=1)
    source_command_id: str | None = Field(default=None, min_length=1)
    turn: int | None
    error: str | None = None


class CompactionSummary(WireModel):
    """compaction/summary: the unframed summary and the exact price of what it shadows."""

    compaction_id: str = Field(min_length=1)
    source_command_id: str | None = Field(default=None, min_length=1)
    summary: tuple[ContentBlock, ...]
    shadowed_range: PositionRange
    shadowed_seqs: tuple[int, ...] = Field(min_length=1)
    shadowed_token_count: int = Field(ge=0)
    provider: str
    model: str
    max_tokens: int | None = None
    usage: dict[str, int] | None = None
    raw_output: tuple[ContentBlock, ...] | None = None
    llm_stream_call: Literal[True] | None = None


class CompactionPrune(WireModel):
    """compaction/prune: the metering event before one pruned tool-result rewrite."""

    shadowed_range: PositionRange
    shadowed_seqs: tuple[int, ...] = Field(min_length=1, max_length=1)
    shadowed_token_count: int = Field(ge=0)
