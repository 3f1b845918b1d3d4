"""How fast a trace file is read and its compactions judged, and how much memory that takes.

Run: benchmarks/run --only traces

The files are built at run time in a temporary folder from the recorded OTLP JSON fixtures
(tests/data/traces/: openai-v2 in its three conventions, OpenInference's OpenAI and LangChain
instrumentations, trimming and summarising agents): each conversation is a copy of one of them,
in turn, under fresh trace and span ids, its export requests written one a line as the exporter
wrote them, until the file holds the spans asked for. Each file is then audited in a fresh
process (``audit_traces``, every law), which reports its wall time and its peak resident memory
(``ru_maxrss``) before and after: the audit streams, holding only the traces and conversations
seen within its window of records, so its memory is bounded by the window, not the file.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = (
    "otel-latest-spans-trim.jsonl",
    "otel-v1.30-events-trim.jsonl",
    "otel-latest-events-trim.jsonl",
    "openinference-openai-trim.jsonl",
    "openinference-langchain-summary.jsonl",
    "otel-langchain-summary.jsonl",
)
_ID_KEYS = ("traceId", "spanId", "parentSpanId")
# Streaming: 10x the spans past the window may grow the memory by at most this much.
_MAX_GROWTH = 1.5


def _requests(name: str) -> list[dict[str, Any]]:
    path = ROOT / "tests" / "data" / "traces" / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _spans_of(requests: list[dict[str, Any]]) -> int:
    return sum(
        len(scope.get("spans") or ())
        for request in requests
        for resource_spans in request.get("resourceSpans") or ()
        for scope in resource_spans.get("scopeSpans") or ()
    )


def _renamed(value: Any, ids: dict[str, str], rng: random.Random) -> Any:
    """``value`` with every trace and span id replaced by a fresh one (the same one each time)."""
    if isinstance(value, list):
        return [_renamed(item, ids, rng) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in _ID_KEYS and isinstance(item, str) and item:
            if item not in ids:
                ids[item] = f"{rng.getrandbits(len(item) * 4):0{len(item)}x}"
            out[key] = ids[item]
        else:
            out[key] = _renamed(item, ids, rng)
    return out


def write_traces(path: Path, spans: int, seed: int = 0) -> dict[str, int]:
    """Write an OTLP JSON Lines file of at least ``spans`` spans; what it holds."""
    rng = random.Random(seed)
    recorded = [(requests, _spans_of(requests)) for requests in map(_requests, FIXTURES)]
    written = conversations = lines = 0
    with path.open("w", encoding="utf-8") as handle:
        while written < spans:
            requests, count = recorded[conversations % len(recorded)]
            ids: dict[str, str] = {}
            for request in requests:
                handle.write(json.dumps(_renamed(request, ids, rng), separators=(",", ":")) + "\n")
                lines += 1
            written += count
            conversations += 1
    return {"spans": written, "conversations": conversations, "lines": lines}


def _peak_mb() -> float:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(path: Path, window: int) -> dict[str, float]:
    """Audit ``path`` in this process: seconds, what was read, and the peak memory."""
    from compactcheck.observed.traces import audit_traces

    before = _peak_mb()
    started = time.perf_counter()
    report = audit_traces([path], window=window, toolkit_version="bench")
    seconds = time.perf_counter() - started
    reading = report.targets[0].traces
    assert reading is not None
    return {
        "seconds": seconds,
        "spans": reading.spans,
        "records": reading.spans + reading.log_events,
        "model_calls": reading.model_calls,
        "points": reading.compactions,
        "before_mb": before,
        "peak_mb": _peak_mb(),
    }


def measured(path: Path, window: int) -> dict[str, float]:
    """``measure`` in a fresh process (its peak memory is its own)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.trace_audit", str(path), str(window)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def trace_audit(sizes: list[int], windows: list[int]) -> None:
    """Print spans per second and peak memory of audits of trace files of ``sizes`` spans."""
    from compactcheck.observed.traces.conversations import DEFAULT_WINDOW

    print(
        f"\n## Traces: OTLP JSON Lines files of {', '.join(f'{s:,}' for s in sizes)} spans read "
        "and every compaction point judged (audit_traces, every law; a fresh process each)"
    )
    print(
        f"{'spans':>8} {'MB':>6} {'window':>7} {'records':>8} {'calls':>7} {'points':>7} "
        f"{'seconds':>8} {'spans/s':>8} {'points/s':>8} {'peak MB':>8} {'grown MB':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        files = {size: Path(folder) / f"{size}.jsonl" for size in sizes}
        for size, path in files.items():
            write_traces(path, size)
        for window in windows:
            grown: list[float] = []
            records: list[float] = []
            for path in files.values():
                row = measured(path, window)
                grown.append(row["peak_mb"] - row["before_mb"])
                records.append(row["records"])
                print(
                    f"{row['spans']:>8.0f} {path.stat().st_size / 1e6:>6.0f} {window:>7} "
                    f"{row['records']:>8.0f} {row['model_calls']:>7.0f} {row['points']:>7.0f} "
                    f"{row['seconds']:>8.1f} {row['spans'] / row['seconds']:>8.0f} "
                    f"{row['points'] / row['seconds']:>8.0f} {row['peak_mb']:>8.1f} "
                    f"{grown[-1]:>8.1f}"
                )
            ratio = grown[-1] / grown[0]
            times = sizes[-1] // sizes[0]
            said = f"window {window}: {times}x the spans, {ratio:.2f}x the memory grown"
            if records[0] <= window:
                # The smaller file fits in the window: it measures the window, not the file.
                print(f"{said} (the smaller file's {records[0]:.0f} records fit in the window)")
            else:
                met = "met" if ratio <= _MAX_GROWTH else "NOT MET"
                print(f"{said}; target: at most {_MAX_GROWTH}x (streaming): {met}")
    print(
        f"(window: records read before a quiet trace is closed, {DEFAULT_WINDOW} by default; "
        "records: spans and log events; peak MB: the process's peak resident memory; grown MB: "
        "above its peak before the audit, with compactcheck imported; the report holds at most "
        "1000 point results, the rest counted)"
    )


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]), int(sys.argv[2]))))
