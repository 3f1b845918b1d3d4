"""The spans of a project on a running Phoenix server, read page by page over its REST API.

``GET {url}/v1/projects/{project}/spans/otlpv1?limit=1000&cursor=...`` answers
``{"data": [...], "next_cursor": ...}``: OTLP spans with the proto field names (``trace_id``,
``parent_span_id``, ``start_time_unix_nano``, attribute values as ``{"string_value": ...}``),
newest first, their attributes flattened as they were sent (``llm.input_messages.0.message.role``).
Each page is read into records as it arrives and let go; the conversations are put back in
order when they close. Phoenix keeps spans only, not OTLP logs: a GenAI instrumentation must
put the messages on the spans (OpenInference does; OpenTelemetry's with
``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`` and content capture
``SPAN_ONLY``). The standard library's HTTP client only; ``PHOENIX_API_KEY`` is sent as a bearer
token when set (a server with authentication on).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import quote, urlencode, urlsplit
from urllib.request import Request, urlopen

from compactcheck.base.errors import one_line
from compactcheck.observed.traces.otlp import span_record
from compactcheck.observed.traces.records import Record, TraceError

PAGE = 1000
"""Spans asked for per page (the most the endpoint gives)."""

_VERSION_HEADER = "x-phoenix-server-version"


class _NotFoundError(TraceError):
    """Phoenix itself answered 404."""


_TIMEOUT = 60.0


def _get(url: str, timeout: float) -> tuple[Any, dict[str, str]]:
    """The JSON of a GET and its headers; TraceError (one line) for anything else."""
    headers = {"Accept": "application/json"}
    key = os.environ.get("PHOENIX_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        with urlopen(Request(url, headers=headers), timeout=timeout) as answer:
            body = answer.read()
            found = {k.lower(): v for k, v in answer.headers.items()}
    except HTTPError as error:
        found = {k.lower(): v for k, v in (error.headers or {}).items()}
        raise _refused(url, error.code, error.read(), found) from None
    except (URLError, OSError) as error:
        reason = error.reason if isinstance(error, URLError) else error
        server = "{0.scheme}://{0.netloc}".format(urlsplit(url))
        raise TraceError(f"{server}: cannot reach a Phoenix server: {one_line(reason)}") from None
    if _VERSION_HEADER not in found:
        raise TraceError(f"{url}: the server that answered is not Phoenix (no {_VERSION_HEADER})")
    try:
        return json.loads(body), found
    except ValueError:
        raise TraceError(f"{url}: Phoenix answered with something that is not JSON") from None


def _refused(url: str, status: int, body: bytes, headers: dict[str, str]) -> TraceError:
    if _VERSION_HEADER not in headers:
        return TraceError(
            f"{url}: the server that answered (HTTP {status}) is not Phoenix "
            f"(no {_VERSION_HEADER} header)"
        )
    if status in (401, 403):
        return TraceError(
            f"{url}: Phoenix refused the request (HTTP {status}): set PHOENIX_API_KEY to an API "
            "key of that server"
        )
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        detail = None
    said = detail if isinstance(detail, str) else body.decode("utf-8", "replace")[:200]
    if status == 404:
        return _NotFoundError(f"{url}: Phoenix answered HTTP 404: {one_line(said)}")
    return TraceError(f"{url}: Phoenix answered HTTP {status}: {one_line(said)}")


def _base(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TraceError(
            f"--phoenix {url!r}: not an http(s) URL; give the server's address, such as "
            "http://localhost:6006"
        )
    return url.rstrip("/")


def _projects(base: str, timeout: float) -> list[str]:
    """The names of the server's projects (the first page of them), for an error message."""
    try:
        data, _ = _get(f"{base}/v1/projects?limit=100", timeout)
    except TraceError:
        return []
    listed = data.get("data") if isinstance(data, dict) else None
    return [str(p.get("name")) for p in listed or () if isinstance(p, dict)]


def _page(base: str, project: str, cursor: str | None, timeout: float) -> tuple[list[Any], Any]:
    query = {"limit": str(PAGE)} | ({"cursor": cursor} if cursor else {})
    url = f"{base}/v1/projects/{quote(project, safe='')}/spans/otlpv1?{urlencode(query)}"
    try:
        data, _ = _get(url, timeout)
    except _NotFoundError:
        if cursor is None:
            known = _projects(base, timeout)
            raise TraceError(
                f"{base}: Phoenix has no project {project!r}"
                + (f" (its projects: {', '.join(known)})" if known else "")
                + "; name one with --project"
            ) from None
        raise
    spans = data.get("data") if isinstance(data, dict) else None
    if not isinstance(spans, list):
        raise TraceError(f'{url}: Phoenix answered without a list of spans ("data")')
    return spans, data.get("next_cursor")


def _records(
    base: str, project: str, first: tuple[list[Any], Any], timeout: float
) -> Iterator[Record]:
    spans, cursor = first
    while True:
        for span in spans:
            if isinstance(span, dict):
                yield span_record(span, project)
        if not cursor:
            return
        spans, cursor = _page(base, project, str(cursor), timeout)


def pull(url: str, project: str, timeout: float = _TIMEOUT) -> Iterator[Record]:
    """The spans of ``project`` on the Phoenix server at ``url``, streamed page by page.

    The server and the project are checked before this returns (the first page is read):
    TraceError, one line, when the server cannot be reached, is not Phoenix, refuses the
    request or has no such project.
    """
    base = _base(url)
    return _records(base, project, _page(base, project, None, timeout), timeout)


__all__ = ["PAGE", "pull"]
