"""Recorded model answers: one JSON file per request, named by the sha256 of its canonical JSON.

A file is written atomically, so a killed run never leaves half an answer. A file that cannot be
read back (not JSON, another shape, or a request other than its name says) is not trusted: the
request is asked again and the file replaced, or, offline, refused with a reason naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from compactcheck.base.atomic import write_text_atomically
from compactcheck.models.request import ModelRequest

CACHE_VERSION: Final = 1
DEFAULT_CACHE_DIR = Path(".compactcheck") / "models"


@dataclass(frozen=True)
class Lookup:
    """What the cache holds for one request: its answer, or why it has none."""

    answer: str | None
    # Set when a file is there but could not be trusted.
    problem: str = ""


class ModelCache:
    """A folder of recorded requests and answers."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, request: ModelRequest) -> Path:
        """The file of one request's answer."""
        return self.directory / f"{request.key()}.json"

    def get(self, request: ModelRequest) -> Lookup:
        """The recorded answer of ``request``, if one is there and sound."""
        path = self.path(request)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Lookup(None)
        except (OSError, UnicodeDecodeError) as error:
            return Lookup(None, f"{path}: cannot read it ({error})")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return Lookup(None, f"{path}: expected a recorded model answer, found invalid JSON")
        if not isinstance(data, dict) or data.get("modelCacheVersion") != CACHE_VERSION:
            return Lookup(
                None, f"{path}: expected a recorded answer with modelCacheVersion {CACHE_VERSION}"
            )
        try:
            recorded = ModelRequest.model_validate(data.get("request"))
        except ValidationError:
            return Lookup(None, f"{path}: its request is not a model request")
        answer = data.get("answer")
        if recorded != request or not isinstance(answer, str):
            return Lookup(None, f"{path}: holds another request, or no text answer")
        return Lookup(answer)

    def put(self, request: ModelRequest, answer: str) -> Path:
        """Record an answer (atomically); its path."""
        path = self.path(request)
        record = {
            "modelCacheVersion": CACHE_VERSION,
            "request": request.model_dump(mode="json"),
            "answer": answer,
        }
        write_text_atomically(path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        return path
