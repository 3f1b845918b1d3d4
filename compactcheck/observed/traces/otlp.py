"""OTLP files, read one request at a time: JSON Lines and protobuf, traces and logs.

What the real writers write:

- JSON Lines: one ``ExportTraceServiceRequest`` (``{"resourceSpans": ...}``) or
  ``ExportLogsServiceRequest`` (``{"resourceLogs": ...}``) per line, as the Collector's file
  exporter (``format: json``) and OpenTelemetry Python's ``FileSpanExporter`` /
  ``FileLogExporter`` (``opentelemetry-exporter-otlp-json-file``) write them. Ids are hex, as
  OTLP/JSON says; base64 ids (protobuf's own JSON mapping) are read too.
- protobuf: the Collector's file exporter (``format: proto``) writes each request preceded by
  its length as a 4-byte big-endian integer; an OTLP/HTTP body saved to a file is one request
  alone. Both are read, traces or logs, with ``opentelemetry-proto`` (the ``traces`` extra).

Only one request is held at a time; a file that ends in the middle of one is an error naming
the line or byte where it was cut.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from compactcheck.base.errors import one_line
from compactcheck.observed.traces.records import LogEvent, Record, Span, SpanEvent, TraceError

_ID_LENGTHS = {16: 32, 8: 16}


def hex_id(value: Any) -> str:
    """A trace or span id as lowercase hex, from OTLP/JSON hex or protobuf-JSON base64."""
    if not isinstance(value, str) or not value:
        return ""
    if len(value) in (32, 16) and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except ValueError:
        return value
    return raw.hex() if len(raw) in _ID_LENGTHS else value


def any_value(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as plain data (kvlists become dicts, arrays lists)."""
    if not isinstance(value, dict) or not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "arrayValue" in value:
        return [any_value(item) for item in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes(pairs: Any) -> dict[str, Any]:
    """A list of OTLP/JSON ``KeyValue`` as a dict."""
    if not isinstance(pairs, list):
        return {}
    return {
        str(pair.get("key")): any_value(pair.get("value"))
        for pair in pairs
        if isinstance(pair, dict)
    }


def _nanos(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _event(data: Mapping[str, Any]) -> SpanEvent:
    return SpanEvent(
        name=str(data.get("name", "")),
        time_ns=_nanos(data.get("timeUnixNano")),
        attributes=attributes(data.get("attributes")),
    )


def request_records(request: Mapping[str, Any]) -> Iterator[Record]:
    """The spans and span-tied log events of one OTLP/JSON export request."""
    for resource_spans in request.get("resourceSpans") or ():
        resource = attributes((resource_spans.get("resource") or {}).get("attributes"))
        service = str(resource.get("service.name", ""))
        for scope in resource_spans.get("scopeSpans") or ():
            for span in scope.get("spans") or ():
                yield Span(
                    trace_id=hex_id(span.get("traceId")),
                    span_id=hex_id(span.get("spanId")),
                    parent_id=hex_id(span.get("parentSpanId")),
                    name=str(span.get("name", "")),
                    start_ns=_nanos(span.get("startTimeUnixNano")),
                    end_ns=_nanos(span.get("endTimeUnixNano")),
                    attributes=attributes(span.get("attributes")),
                    events=tuple(_event(e) for e in span.get("events") or ()),
                    service=service,
                )
    for resource_logs in request.get("resourceLogs") or ():
        for scope in resource_logs.get("scopeLogs") or ():
            for record in scope.get("logRecords") or ():
                found = attributes(record.get("attributes"))
                # The event's name: the record's own field (OTLP 1.5), else the older attribute.
                name = record.get("eventName") or found.get("event.name") or ""
                trace_id = hex_id(record.get("traceId"))
                if not name or not trace_id:
                    continue
                time = _nanos(record.get("timeUnixNano")) or _nanos(
                    record.get("observedTimeUnixNano")
                )
                yield LogEvent(
                    trace_id,
                    hex_id(record.get("spanId")),
                    SpanEvent(str(name), time, found, any_value(record.get("body"))),
                )


def json_lines(path: Path) -> Iterator[Record]:
    """Every record of an OTLP JSON Lines file, one line (one request) at a time."""
    try:
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    request = json.loads(line)
                except ValueError as error:
                    cut = not line.endswith(b"\n")
                    what = (
                        "the file ends in the middle of a request (truncated: was it copied "
                        "while the exporter was still writing?)"
                        if cut
                        else f"not JSON ({one_line(error)})"
                    )
                    raise TraceError(f"{path}:{number}: {what}") from None
                if not isinstance(request, dict) or not (
                    "resourceSpans" in request or "resourceLogs" in request
                ):
                    if isinstance(request, dict) and "resourceMetrics" in request:
                        continue
                    raise TraceError(
                        f"{path}:{number}: not an OTLP export request (expected an object with "
                        '"resourceSpans" or "resourceLogs")'
                    )
                yield from request_records(request)
    except OSError as error:
        raise TraceError(f"{path}: cannot read it: {one_line(error)}") from None


# --------------------------------------------------------------------------------------------
# protobuf


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
    for kind in (traces, logs):
        request = kind()
        try:
            request.ParseFromString(data)
        except DecodeError:
            continue
        if len(getattr(request, "resource_spans", getattr(request, "resource_logs", ()))):
            return request
    raise TraceError(f"{where}: not an OTLP traces or logs request in protobuf (or cut short)")


def _framed(data: bytes) -> list[tuple[int, int]] | None:
    """The (start, end) of every length-prefixed request, if the file is framed that way."""
    frames: list[tuple[int, int]] = []
    at = 0
    while at < len(data):
        if at + 4 > len(data):
            return None
        size = int.from_bytes(data[at : at + 4], "big")
        if size == 0 or at + 4 + size > len(data):
            return None
        frames.append((at + 4, at + 4 + size))
        at += 4 + size
    return frames or None


def protobuf(path: Path) -> Iterator[Record]:
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
                return False
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


__all__ = ["any_value", "attributes", "hex_id", "json_lines", "protobuf", "request_records"]
