"""The JSON exports of tracing services, read file by file into model calls.

Each service's reader is a module of its own (``langsmith``, ``langfuse``, ``agents_sdk``);
here a file is read value by value (one JSON document, whose list or ``data`` / ``runs`` list is
read item by item, or JSON Lines) and each item handed to the reader of its kind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from compactcheck.base.errors import one_line
from compactcheck.observed.traces import agents_sdk, langfuse, langsmith
from compactcheck.observed.traces.records import Record, TraceError


def _listed(value: Any) -> list[Any] | None:
    """The records of a page: its ``data`` (Langfuse, the Agents SDK) or ``runs`` (LangSmith)."""
    if not isinstance(value, dict):
        return None
    for key in ("data", "runs"):
        found = value.get(key)
        if isinstance(found, list):
            return found
    return None


def read(path: Path, kind: str) -> Iterator[Record]:
    """Every record of an export file of ``kind`` (langsmith, langfuse or openai-agents)."""
    groups: dict[str, str] = {}
    for number, value in json_items(path):
        listed = _listed(value)
        batch: list[Any] = listed if listed is not None else [value]
        for item in batch:
            if kind == "langsmith":
                found = langsmith.record(number, item)
            elif kind == "langfuse":
                found = langfuse.record(number, item)
            else:
                found = agents_sdk.record(number, item, groups)
            if found is not None:
                yield found


def json_items(path: Path) -> Iterator[tuple[int, Any]]:
    """Each JSON value of a file: one document (a list is read item by item) or JSON Lines."""
    try:
        with path.open("rb") as handle:
            first = handle.read(1)
            while first in (b" ", b"\n", b"\r", b"\t"):
                first = handle.read(1)
            handle.seek(0)
            if first == b"[":
                data = _whole(path, handle.read())
                listed = data if isinstance(data, list) else [data]
                yield from enumerate(listed, start=1)
                return
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield number, json.loads(line)
                except ValueError as error:
                    if not line.endswith(b"\n"):
                        raise TraceError(
                            f"{path}:{number}: the file ends in the middle of a record (truncated?)"
                        ) from None
                    # A pretty-printed single document: read it whole.
                    if number == 1:
                        handle.seek(0)
                        data = _whole(path, handle.read())
                        listed = _listed(data) or [data]
                        yield from enumerate(listed, start=1)
                        return
                    raise TraceError(f"{path}:{number}: not JSON: {one_line(error)}") from None
    except OSError as error:
        raise TraceError(f"{path}: cannot read it: {one_line(error)}") from None


def _whole(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError as error:
        raise TraceError(f"{path}: not whole JSON (truncated?): {one_line(error)}") from None


__all__ = ["json_items", "read"]
