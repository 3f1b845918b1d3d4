"""Compactions in production traces: read the traces, find where an agent compacted, judge it.

Readers stream: OTLP JSON Lines and protobuf (the GenAI conventions of OpenTelemetry in every
version the instrumentations emit, and OpenInference), LangSmith run exports, Langfuse
observation exports, OpenAI Agents SDK spans, and a running Phoenix server.
"""

from compactcheck.observed.traces.judging import audit_traces, judge_point
from compactcheck.observed.traces.points import Point, locate
from compactcheck.observed.traces.records import Call, Skip, Span, TraceError
from compactcheck.observed.traces.sources import KINDS

__all__ = [
    "KINDS",
    "Call",
    "Point",
    "Skip",
    "Span",
    "TraceError",
    "audit_traces",
    "judge_point",
    "locate",
]
