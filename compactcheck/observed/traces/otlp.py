"""OTLP JSON files, read one request at a time, traces and logs.

One ``ExportTraceServiceRequest`` (``{"resourceSpans": ...}``) or ``ExportLogsServiceRequest``
(``{"resourceLogs": ...}``) per line, as the Collector's file exporter (``format: json``) and
OpenTelemetry Python's ``FileSpanExporter`` / ``FileLogExporter``
(``opentelemetry-exporter-otlp-json-file``) write them. Ids are hex, as OTLP/JSON says; base64
ids (protobuf's own JSON mapping) are read too, and so are the proto field names
(``trace_id``, ``string_value``) beside OTLP/JSON's lowerCamelCase. Only one request is held at
a time; a file that ends in the middle of one is an error naming the line where it was cut.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

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


# Each AnyValue field under both of its JSON names: OTLP/JSON writes lowerCamelCase, and the
# protobuf JSON mapping (which Phoenix's API follows) also reads the proto field names.
_VALUE_KINDS = {
    "stringValue": "string",
    "string_value": "string",
    "intValue": "int",
    "int_value": "int",
    "boolValue": "bool",
    "bool_value": "bool",
    "doubleValue": "double",
    "double_value": "double",
    "arrayValue": "array",
    "array_value": "array",
    "kvlistValue": "kvlist",
    "kvlist_value": "kvlist",
    "bytesValue": "bytes",
    "bytes_value": "bytes",
}


def any_value(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as plain data (kvlists become dicts, arrays lists)."""
    if not isinstance(value, dict):
        return None
    for key, inner in value.items():
        kind = _VALUE_KINDS.get(key)
        if kind is None or inner is None:
            continue
        if kind == "string":
            return inner
        if kind == "int":
            return int(inner)
        if kind == "bool":
            return bool(inner)
        if kind == "double":
            return float(inner)
        if kind == "array":
            return [any_value(item) for item in (inner or {}).get("values") or ()]
        if kind == "kvlist":
            return attributes((inner or {}).get("values"))
        return inner
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


def _field(data: Mapping[str, Any], camel: str, snake: str) -> Any:
    found = data.get(camel)
    return data.get(snake) if found is None else found


def _event(data: Mapping[str, Any]) -> SpanEvent:
    return SpanEvent(
        name=str(data.get("name", "")),
        time_ns=_nanos(_field(data, "timeUnixNano", "time_unix_nano")),
        attributes=attributes(data.get("attributes")),
    )


def span_record(span: Mapping[str, Any], service: str = "") -> Span:
    """One OTLP/JSON span (lowerCamelCase or proto field names) as a record."""
    return Span(
        trace_id=hex_id(_field(span, "traceId", "trace_id")),
        span_id=hex_id(_field(span, "spanId", "span_id")),
        parent_id=hex_id(_field(span, "parentSpanId", "parent_span_id")),
        name=str(span.get("name") or ""),
        start_ns=_nanos(_field(span, "startTimeUnixNano", "start_time_unix_nano")),
        end_ns=_nanos(_field(span, "endTimeUnixNano", "end_time_unix_nano")),
        attributes=attributes(span.get("attributes")),
        events=tuple(_event(e) for e in span.get("events") or () if isinstance(e, dict)),
        service=service,
    )


def request_records(request: Mapping[str, Any]) -> Iterator[Record]:
    """The spans and span-tied log events of one OTLP/JSON export request."""
    for resource_spans in request.get("resourceSpans") or ():
        resource = attributes((resource_spans.get("resource") or {}).get("attributes"))
        service = str(resource.get("service.name", ""))
        for scope in resource_spans.get("scopeSpans") or ():
            for span in scope.get("spans") or ():
                yield span_record(span, service)
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
                    # orjson: a few times the standard library's speed on these long lines.
                    request = orjson.loads(line)
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


__all__ = [
    "any_value",
    "attributes",
    "hex_id",
    "json_lines",
    "request_records",
    "span_record",
]
