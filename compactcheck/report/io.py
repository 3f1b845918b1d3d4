"""Reading and writing the JSON report: atomic writes, and loads that fail in one clear line."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import InputFileError, one_line
from compactcheck.report.model import SCHEMA_VERSION, Report

# Far above any real report (a campaign with thousands of witnesses stays in the tens of MB), and
# low enough that a wrong file handed over by mistake cannot exhaust memory.
MAX_REPORT_BYTES = 200 * 1024 * 1024

_EXPECTED = f"expected a compactcheck JSON report (schema_version {SCHEMA_VERSION})"


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a text file atomically: a reader or a kill never sees it half written."""
    write_text_atomically(Path(path), text)


def report_json(report: Report) -> str:
    """The report as the JSON text `write_report` writes."""
    try:
        # pydantic writes non-finite floats as null, as JSON requires.
        return report.model_dump_json(indent=2) + "\n"
    except PydanticSerializationError:
        # Only unpaired surrogates from a backend get here: UTF-8 cannot hold them.
        data = _portable(report.model_dump(mode="json"))
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _portable(value: Any) -> Any:
    """JSON data with unpaired surrogates replaced by U+FFFD and non-finite floats by null."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_portable(item) for item in value]
    if isinstance(value, dict):
        return {_portable(key): _portable(item) for key, item in value.items()}
    return value


def write_report(report: Report, path: str | os.PathLike[str]) -> None:
    """Write the JSON report to `path` atomically."""
    write_text(path, report_json(report))


def _fail(path: str | os.PathLike[str], found: str) -> NoReturn:
    # One line whatever the file name or the parser said.
    message = one_line(f"{os.fspath(path)!s}: {found}; {_EXPECTED}")
    raise InputFileError(message[:600])


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def load_report(path: str | os.PathLike[str], *, max_bytes: int = MAX_REPORT_BYTES) -> Report:
    """Read and validate a JSON report; any problem is one InputFileError line naming the file."""
    try:
        with open(path, "rb") as handle:
            # Read one byte past the cap so an over-long file (or /dev/zero) is caught cheaply.
            raw = handle.read(max_bytes + 1)
    except OSError as error:
        _fail(path, f"cannot be read ({error.strerror or type(error).__name__})")
    if len(raw) > max_bytes:
        _fail(path, f"is larger than {max_bytes} bytes")
    if not raw.strip():
        _fail(path, "is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        _fail(path, f"is not UTF-8 text (byte {error.start}), perhaps a binary file")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        _fail(path, f"is not valid JSON ({error.msg} at {where}; truncated?)")
    except ValueError as error:
        _fail(path, f"is not valid JSON ({error})")
    except RecursionError:
        _fail(path, "is nested too deeply to be a report")
    if not isinstance(data, dict):
        _fail(path, f"holds a JSON {type(data).__name__}, not an object")
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        _fail(path, f"has schema_version {json.dumps(version)[:40]}")
    try:
        # Strict, so that what loads is exactly what the shipped JSON Schema accepts.
        return Report.model_validate(data, strict=True)
    except ValidationError as error:
        _fail(path, f"breaks the report schema at {one_line(error)}")
    except RecursionError:
        _fail(path, "is nested too deeply to be a report")
