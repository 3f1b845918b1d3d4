"""Protocol lines on the wire: a request encoded as one line of JSON, an answer line parsed and
checked against the model it must match."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import JsonValue, ValidationError

from compactcheck.backends.protocol import ProtocolError, StartResponse, encode_line
from compactcheck.base.errors import one_line
from compactcheck.invariants import View, WireModel


def compact_request(view: View, seq: JsonValue, payload: dict[str, Any]) -> bytes:
    """The line asking for one compaction.

    The caller's payload is sent as given rather than re-serialised from the model, so that the
    harness sees exactly the JSON the checkers judge. It is not checked against the schema here:
    compactcheck builds its requests valid (the drivers hand over what the strategies generate
    and the laws parse), and the tests check the lines they send against the shipped schema.
    """
    return encode_line({"cmd": "compact", "seq": seq, "view": view, "input": payload})


def decode_line(line: bytes, model: type[WireModel]) -> tuple[dict[str, Any], WireModel]:
    """A harness's answer line as raw JSON and as the model it must match.

    Raises ProtocolError with a one-line message when the line is not JSON, not an object, or
    breaks the model's schema.
    """
    data = parse_line(line)
    return data, validate_answer(data, model)


def parse_line(line: bytes) -> dict[str, Any]:
    """A harness's line as a JSON object; ProtocolError when it is not one (NaN and Infinity,
    which Python's json module writes by default, are not JSON and are refused)."""
    try:
        data = orjson.loads(line)
    except ValueError as error:
        shown = line[:60].decode("utf-8", errors="replace")
        raise ProtocolError(
            f"expected one JSON object per line; found malformed JSON ({error}) in "
            f"{shown!r}; write diagnostics to stderr, never stdout"
        ) from None
    if not isinstance(data, dict):
        raise ProtocolError(f"expected a JSON object; found a {type(data).__name__}")
    return data


def validate_answer(data: dict[str, Any], model: type[WireModel]) -> WireModel:
    """A parsed answer line as the model it must match; ProtocolError when it breaks it."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ProtocolError(
            f"answer breaks the protocol schema ({_schema_name(model)}): {one_line(error)}"
        ) from None
    except RecursionError:
        raise ProtocolError("answer is nested too deeply to validate") from None


def _schema_name(model: type[WireModel]) -> str:
    if issubclass(model, StartResponse):
        return "protocol-start-response"
    return "protocol-compact-response"
