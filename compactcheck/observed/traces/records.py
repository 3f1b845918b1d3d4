"""What a trace reader yields: spans and span-tied log events, model calls, and skipped calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from compactcheck.base.errors import CompactcheckError
from compactcheck.invariants.formats import Format


class TraceError(CompactcheckError, ValueError):
    """A trace file or source that cannot be read: truncated, of no known format, unreachable."""


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """One event recorded on a span (or a log record tied to one): its name, time and data."""

    name: str
    time_ns: int
    attributes: Mapping[str, Any]
    body: Any = None


@dataclass(frozen=True, slots=True)
class Span:
    """One span as any OpenTelemetry source holds it, its attribute values decoded."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any]
    events: tuple[SpanEvent, ...] = ()
    service: str = ""


@dataclass(frozen=True, slots=True)
class LogEvent:
    """A log record tied to a span: how GenAI instrumentations emit message events."""

    trace_id: str
    span_id: str
    event: SpanEvent


@dataclass(frozen=True, slots=True)
class Call:
    """One model call read from a trace: the history it sent, in its format, and its answer.

    ``history`` is the request's history list (chat messages, Anthropic messages, Responses
    items or Gemini contents) and ``head`` the request's other fields that the laws read (the
    system prompt of Anthropic or Gemini, the instructions of Responses); ``output`` is what the
    answer adds to the history, as items of the same format, or None when it was not recorded.
    """

    trace_id: str
    span_id: str
    start_ns: int
    format: Format
    history: tuple[Any, ...]
    head: Mapping[str, Any] = field(default_factory=dict)
    output: tuple[Any, ...] | None = None
    conversation: str = ""
    agent: str = ""
    parent_id: str = ""
    source: str = ""
    """The convention it was read by ("gen_ai.input.messages", "openinference", ...)."""

    def request(self, history: tuple[Any, ...] | list[Any] | None = None) -> Any:
        """The request as ``check`` takes it: the chat list, or the native request object."""
        items = list(self.history if history is None else history)
        if self.format == "openai-chat":
            return items
        from compactcheck.invariants.formats import HISTORY_FIELD

        return {**self.head, HISTORY_FIELD[self.format]: items}


@dataclass(frozen=True, slots=True)
class Skip:
    """A call, span or record that was read but not judged, and why (one line, with the fix)."""

    trace_id: str
    span_id: str
    reason: str


Record = Span | LogEvent | Call | Skip
"""What a source yields, in the order it reads them."""

__all__ = ["Call", "LogEvent", "Record", "Skip", "Span", "SpanEvent", "TraceError"]
