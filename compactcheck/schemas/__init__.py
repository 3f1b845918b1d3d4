"""JSON Schema files generated from the wire models and shipped inside the package."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from compactcheck.backends.protocol import (
    ANY_COMPACT_REQUEST,
    AnyCompactResponse,
    StartRequest,
    StartResponse,
    StopRequest,
)
from compactcheck.corpus.entry import CorpusEntry
from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    CompactorInput,
    ContextSource,
    ContextUsage,
    SnapshotDraft,
)
from compactcheck.invariants.formats import AnthropicRequest, GeminiRequest, ResponsesInput
from compactcheck.invariants.messages import CHAT_MESSAGES
from compactcheck.models.judge import JudgeAnswer, JudgeRequest
from compactcheck.report.model import Report

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Every schema the package ships, by file stem. Add a model here and run
# `python -m compactcheck.schemas` to write its file; a test fails while a file drifts.
MODELS: dict[str, type[BaseModel] | TypeAdapter[Any]] = {
    "agent-event": AgentEvent,
    "agent-state": AgentState,
    "compactor-input": CompactorInput,
    "snapshot-draft": SnapshotDraft,
    "compaction-snapshot": CompactionSnapshot,
    "context-usage": ContextUsage,
    "context-source": ContextSource,
    "chat-messages": CHAT_MESSAGES,
    "anthropic-request": AnthropicRequest,
    "responses-input": ResponsesInput,
    "gemini-request": GeminiRequest,
    "report": Report,
    "corpus-entry": CorpusEntry,
    "protocol-start-request": StartRequest,
    "protocol-start-response": StartResponse,
    "protocol-compact-request": ANY_COMPACT_REQUEST,
    "protocol-compact-response": AnyCompactResponse,
    "protocol-stop-request": StopRequest,
    "judge-request": JudgeRequest,
    "judge-answer": JudgeAnswer,
}


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema of one registered model, as generated from the model now."""
    model = MODELS[name]
    if isinstance(model, TypeAdapter):
        schema = model.json_schema(by_alias=True)
    else:
        schema = model.model_json_schema(by_alias=True)
    return {"$schema": SCHEMA_DIALECT, "$id": f"compactcheck:{name}", **schema}


def render(schema: dict[str, Any]) -> str:
    """The file text of a schema: sorted keys, two-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def shipped(name: str) -> dict[str, Any]:
    """The schema file shipped in the package for one model."""
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def write_all(directory: Path) -> list[Path]:
    """Write every registered schema into a directory; returns the files written."""
    written = []
    for name in MODELS:
        path = directory / f"{name}.json"
        path.write_text(render(generate(name)), encoding="utf-8")
        written.append(path)
    return written
