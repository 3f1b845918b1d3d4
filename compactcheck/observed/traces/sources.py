"""Where records come from: a trace file (or a folder of them) of any format read here.

The format of each file is read from its first bytes: OTLP JSON Lines (``resourceSpans`` or
``resourceLogs``), a LangSmith run export (runs with ``run_type``), a Langfuse observation
export (observations with ``type`` and ``traceId``), OpenAI Agents SDK spans (``"object":
"trace.span"``), or else OTLP protobuf.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from compactcheck.base.errors import one_line
from compactcheck.observed.traces import exports, otlp, protobuf
from compactcheck.observed.traces.records import Record, TraceError

KINDS = ("otlp-json", "otlp-proto", "langsmith", "langfuse", "openai-agents")
"""The trace file formats, as ``--trace-format`` names them."""

_SUFFIXES = (".jsonl", ".json", ".ndjson", ".pb", ".binpb", ".proto", ".otlp")


def files(path: Path) -> list[Path]:
    """The trace files of ``path``: itself, or the trace files of a folder, sorted by name."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in _SUFFIXES)
        if not found:
            raise TraceError(f"{path}: the folder holds no trace file ({', '.join(_SUFFIXES)})")
        return found
    if not path.exists():
        raise TraceError(f"{path}: no such file or folder")
    return [path]


def kind_of(path: Path) -> str:
    """The format of one trace file, read from its first bytes (see the module docstring)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError as error:
        raise TraceError(f"{path}: cannot read it: {one_line(error)}") from None
    if not head.strip():
        raise TraceError(f"{path}: the file is empty")
    text = head.lstrip()
    if text[:1] not in (b"{", b"["):
        return "otlp-proto"
    first = text.split(b"\n", 1)[0]
    for marker, kind in (
        (b'"resourceSpans"', "otlp-json"),
        (b'"resourceLogs"', "otlp-json"),
        (b'"trace.span"', "openai-agents"),
        (b'"run_type"', "langsmith"),
    ):
        if marker in first or marker in text:
            return kind
    if b'"traceId"' in text and b'"type"' in text:
        return "langfuse"
    raise TraceError(
        f"{path}: not a trace format compactcheck reads: expected OTLP JSON Lines "
        '("resourceSpans"/"resourceLogs"), OTLP protobuf, a LangSmith run export ("run_type"), '
        'a Langfuse observation export ("traceId", "type") or OpenAI Agents SDK spans '
        '("object": "trace.span"); name it with --trace-format'
    )


def read(path: Path, kind: str | None = None) -> Iterator[Record]:
    """Every record of one trace file, streamed."""
    chosen = kind or kind_of(path)
    if chosen == "otlp-json":
        yield from otlp.json_lines(path)
    elif chosen == "otlp-proto":
        yield from protobuf.read(path)
    elif chosen in ("langsmith", "langfuse", "openai-agents"):
        yield from exports.read(path, chosen)
    else:
        raise TraceError(f"unknown trace format {chosen!r}; expected one of {', '.join(KINDS)}")


def read_all(paths: list[Path], kind: str | None = None) -> Iterator[Record]:
    """Every record of every trace file of ``paths`` (files or folders), in order."""
    for given in paths:
        for file in files(given):
            yield from read(file, kind)


__all__ = ["KINDS", "files", "kind_of", "read", "read_all"]
