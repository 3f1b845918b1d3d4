"""OTLP protobuf files, read one request at a time, traces and logs.

The Collector's file exporter (``format: proto``) writes each export request preceded by its
length as a 4-byte big-endian unsigned integer, traces and logs requests in one file when both
pipelines share it; an OTLP/HTTP request body saved to a file is one request alone. Both are
read with ``opentelemetry-proto`` (the ``traces`` extra). Only one request is held at a time; a
file that ends in the middle of one is an error naming the request and byte where it was cut.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from compactcheck.base.errors import one_line
from compactcheck.observed.traces.records import LogEvent, Record, Span, SpanEvent, TraceError


def _proto_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_proto_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return _proto_attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return getattr(value, kind)


def _proto_attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _proto_value(pair.value) for pair in pairs}


def _proto_records(request: Any) -> Iterator[Record]:
    for resource_spans in getattr(request, "resource_spans", ()):
        service = str(_proto_attributes(resource_spans.resource.attributes).get("service.name", ""))
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                yield Span(
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_id=span.parent_span_id.hex(),
                    name=span.name,
                    start_ns=span.start_time_unix_nano,
                    end_ns=span.end_time_unix_nano,
                    attributes=_proto_attributes(span.attributes),
                    events=tuple(
                        SpanEvent(e.name, e.time_unix_nano, _proto_attributes(e.attributes))
                        for e in span.events
                    ),
                    service=service,
                )
    for resource_logs in getattr(request, "resource_logs", ()):
        for scope in resource_logs.scope_logs:
            for record in scope.log_records:
                found = _proto_attributes(record.attributes)
                name = getattr(record, "event_name", "") or found.get("event.name") or ""
                if not name or not record.trace_id:
                    continue
                body = _proto_value(record.body) if record.HasField("body") else None
                time = record.time_unix_nano or record.observed_time_unix_nano
                yield LogEvent(
                    record.trace_id.hex(),
                    record.span_id.hex(),
                    SpanEvent(str(name), time, found, body),
                )


def _proto_classes() -> tuple[Any, Any]:
    try:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceRequest,
        )
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise TraceError(
            "reading OTLP protobuf needs opentelemetry-proto: pip install 'compactcheck[traces]' "
            "(or write the traces as OTLP JSON Lines)"
        ) from None
    return ExportTraceServiceRequest, ExportLogsServiceRequest


def _parsed(data: bytes, where: str) -> Any:
    """One request of traces or logs (whichever holds something), from its bytes."""
    from google.protobuf.message import DecodeError

    traces, logs = _proto_classes()
    for kind, check in ((traces, _spans_whole), (logs, _logs_whole)):
        request = kind()
        try:
            request.ParseFromString(data)
        except DecodeError:
            continue
        if check(request):
            return request
    raise TraceError(f"{where}: not an OTLP traces or logs request in protobuf (or cut short)")


def _spans_whole(request: Any) -> bool:
    """Whether a request parsed as traces holds spans with whole ids.

    A logs request parses as a traces request too (both hold their resources in field 1), into
    spans without ids: that tells the two apart when one file holds both.
    """
    spans = [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    return bool(spans) and all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)


def _logs_whole(request: Any) -> bool:
    """Whether a request parsed as logs holds records whose ids (when set) are whole."""
    records = [r for rl in request.resource_logs for sl in rl.scope_logs for r in sl.log_records]
    return bool(records) and all(len(r.trace_id) in (0, 16) for r in records)


def read(path: Path) -> Iterator[Record]:
    """Every record of an OTLP protobuf file: length-prefixed requests, or one request."""
    _proto_classes()
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(4)
            first = int.from_bytes(head, "big") if len(head) == 4 else 0
            if 0 < first <= size - 4 and _looks_framed(path, size):
                handle.seek(0)
                yield from _frames(handle, path, size)
                return
            handle.seek(0)
            data = handle.read()
    except OSError as error:
        raise TraceError(f"{path}: cannot read it: {one_line(error)}") from None
    yield from _proto_records(_parsed(data, str(path)))


def _looks_framed(path: Path, size: int) -> bool:
    """Whether the 4-byte lengths chain exactly to the end of the file (read, not parsed)."""
    with path.open("rb") as handle:
        at = 0
        while at < size:
            head = handle.read(4)
            if len(head) < 4:
                return at > 0
            length = int.from_bytes(head, "big")
            if length == 0 or at + 4 + length > size:
                # A cut last frame still counts as framed when earlier ones chained: the reader
                # then names the cut.
                return at > 0
            handle.seek(length, 1)
            at += 4 + length
    return True


def _frames(handle: Any, path: Path, size: int) -> Iterator[Record]:
    at = 0
    number = 0
    while at < size:
        number += 1
        head = handle.read(4)
        length = int.from_bytes(head, "big") if len(head) == 4 else -1
        data = handle.read(length) if length > 0 else b""
        if length <= 0 or len(data) < length:
            raise TraceError(
                f"{path}: request {number} (byte {at}) is cut short: the file ends in the middle "
                "of it (truncated: was it copied while the exporter was still writing?)"
            )
        yield from _proto_records(_parsed(data, f"{path}: request {number}"))
        at += 4 + length


__all__ = ["read"]
