"""The instrumentations the recordings run under, and where their spans and logs are written.

Instrumentations: the official OpenTelemetry OpenAI one (``openai_v2``), OpenInference's OpenAI
and LangChain ones, OpenLLMetry's OpenAI one in a release that writes ``gen_ai.prompt.N.*``
attributes, and ``conventions_v1_27``: no package we install still writes the
``gen_ai.content.prompt`` span events of the v1.26/v1.27 GenAI conventions, so it writes them
itself around the client's call, as those conventions document them (a span per call, the
prompt and the completion as JSON in the OpenAI messages format).

Sinks, each with the SDK's own batch processors: OTLP JSON Lines (the JSON file exporter),
length-prefixed OTLP protobuf (each export request encoded by the OTLP exporters' own encoder
and preceded by its 4-byte big-endian length, as the Collector's file exporter writes
``format: proto``), one OTLP/HTTP request body (the real OTLP/HTTP exporter posting to a
loopback server that saves what it receives), and OTLP/HTTP to a server (Phoenix).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

Instrument = Callable[[Any, Any], Callable[[], None]]
"""Instruments with (tracer provider, logger provider); returns what undoes it."""

V130 = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}
LATEST_SPANS = {
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY",
}
LATEST_EVENTS = {
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "EVENT_ONLY",
}
NO_CONTENT = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "false"}


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` set in the environment for the block."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def recorded(
    sink: Any, instrument: Instrument, resource: dict[str, str] | None = None
) -> Iterator[list[int]]:
    """Tracer and logger providers exporting to ``sink``, ``instrument`` on, for the block.

    Yields a one-item list: the number of spans ended so far.
    """
    from opentelemetry import trace
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    ended = [0]

    class Counting(SpanProcessor):
        def on_end(self, span: Any) -> None:
            ended[0] += 1

    with sink as (spans, logs):
        made = Resource.create({"service.name": "coding-agent", **(resource or {})})
        tracer = TracerProvider(resource=made)
        tracer.add_span_processor(Counting())
        # One export at the end at most sizes: the one-request sink needs a single batch.
        tracer.add_span_processor(
            BatchSpanProcessor(
                spans,
                max_queue_size=100_000,
                max_export_batch_size=100_000,
                schedule_delay_millis=3_600_000,
            )
        )
        logger = LoggerProvider(resource=made)
        if logs is not None:
            logger.add_log_record_processor(BatchLogRecordProcessor(logs))
        # Each fixture is recorded in a process of its own, so the global provider is set once.
        trace.set_tracer_provider(tracer)
        undo = instrument(tracer, logger)
        try:
            yield ended
        finally:
            undo()
            tracer.force_flush()
            logger.force_flush()
            tracer.shutdown()
            logger.shutdown()


# --------------------------------------------------------------------------------------------
# Sinks


@contextmanager
def json_lines(path: Path) -> Iterator[tuple[Any, Any]]:
    """OTLP JSON Lines: the JSON file exporters, spans and logs in one file."""
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter

    with path.open("w", encoding="utf-8") as handle:
        yield FileSpanExporter(stream=handle), FileLogExporter(stream=handle)


def _framed_exporters(handle: IO[bytes]) -> tuple[Any, Any]:
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    lock = threading.Lock()

    def write(request: Any) -> None:
        data = request.SerializeToString()
        with lock:
            handle.write(len(data).to_bytes(4, "big") + data)
            handle.flush()

    class Spans(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            write(encode_spans(spans))
            return SpanExportResult.SUCCESS

    class Logs(LogRecordExporter):
        def export(self, batch: Sequence[Any]) -> LogRecordExportResult:
            write(encode_logs(batch))
            return LogRecordExportResult.SUCCESS

        def shutdown(self) -> None:
            return None

        def force_flush(self, timeout_millis: int = 30_000) -> bool:
            del timeout_millis
            return True

    return Spans(), Logs()


@contextmanager
def framed_protobuf(path: Path) -> Iterator[tuple[Any, Any]]:
    """Length-prefixed OTLP protobuf requests, traces and logs in one file."""
    with path.open("wb") as handle:
        yield _framed_exporters(handle)


class _Capture(BaseHTTPRequestHandler):
    bodies: list[bytes]

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length", "0"))
        self.bodies.append(self.rfile.read(size))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@contextmanager
def request_body(path: Path) -> Iterator[tuple[Any, None]]:
    """The one request the OTLP/HTTP span exporter posts, saved to ``path`` as it arrived."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    bodies: list[bytes] = []
    handler = type("Capture", (_Capture,), {"bodies": bodies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    try:
        yield OTLPSpanExporter(endpoint=endpoint), None
    finally:
        server.shutdown()
        server.server_close()
    if len(bodies) != 1:
        raise RuntimeError(f"expected one OTLP/HTTP request, the exporter sent {len(bodies)}")
    path.write_bytes(bodies[0])


@contextmanager
def otlp_http(endpoint: str) -> Iterator[tuple[Any, None]]:
    """OTLP/HTTP (protobuf) to a server: ``endpoint`` is its ``/v1/traces``."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    yield OTLPSpanExporter(endpoint=endpoint), None


# --------------------------------------------------------------------------------------------
# Instrumentations


def openai_v2(tracer: Any, logger: Any) -> Callable[[], None]:
    """The official OpenTelemetry OpenAI instrumentation."""
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    instrumentor: Any = OpenAIInstrumentor()  # type: ignore[no-untyped-call]
    instrumentor.instrument(tracer_provider=tracer, logger_provider=logger)
    undo: Callable[[], None] = instrumentor.uninstrument
    return undo


def openinference_openai(tracer: Any, logger: Any) -> Callable[[], None]:
    """OpenInference's OpenAI instrumentation."""
    del logger
    from openinference.instrumentation.openai import OpenAIInstrumentor

    instrumentor: Any = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer)
    undo: Callable[[], None] = instrumentor.uninstrument
    return undo


def openinference_langchain(tracer: Any, logger: Any) -> Callable[[], None]:
    """OpenInference's LangChain instrumentation."""
    del logger
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor: Any = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=tracer)
    undo: Callable[[], None] = instrumentor.uninstrument
    return undo


def openllmetry(tracer: Any, logger: Any) -> Callable[[], None]:
    """OpenLLMetry's OpenAI instrumentation (``gen_ai.prompt.N.*`` span attributes)."""
    del logger
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    instrumentor: Any = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer)
    undo: Callable[[], None] = instrumentor.uninstrument
    return undo


def conventions_v1_27(tracer: Any, logger: Any) -> Callable[[], None]:
    """The v1.27 GenAI conventions' span and content events around each chat completions call.

    As documented: a ``chat {model}`` client span with ``gen_ai.operation.name``,
    ``gen_ai.system`` and ``gen_ai.request.model``; a ``gen_ai.content.prompt`` event whose
    ``gen_ai.prompt`` is the request's messages as JSON, and a ``gen_ai.content.completion``
    event whose ``gen_ai.completion`` is the answer's messages as JSON.
    """
    del logger
    from openai.resources.chat.completions import Completions
    from opentelemetry.trace import SpanKind

    original = Completions.create
    spans = tracer.get_tracer("conventions-v1.27")

    def create(self: Any, *args: Any, **kwargs: Any) -> Any:
        model = kwargs.get("model", "")
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "openai",
            "gen_ai.request.model": model,
        }
        with spans.start_as_current_span(
            f"chat {model}", kind=SpanKind.CLIENT, attributes=attributes
        ) as span:
            span.add_event(
                "gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(kwargs.get("messages"))}
            )
            response = original(self, *args, **kwargs)
            said = [c.message.model_dump(exclude_none=True) for c in response.choices]
            span.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(said)})
            span.set_attribute("gen_ai.response.model", response.model)
            return response

    Completions.create = create  # type: ignore[method-assign]

    def undo() -> None:
        Completions.create = original  # type: ignore[method-assign]

    return undo


__all__ = [
    "LATEST_EVENTS",
    "LATEST_SPANS",
    "NO_CONTENT",
    "V130",
    "Instrument",
    "conventions_v1_27",
    "environment",
    "framed_protobuf",
    "json_lines",
    "openai_v2",
    "openinference_langchain",
    "openinference_openai",
    "openllmetry",
    "otlp_http",
    "recorded",
    "request_body",
]
