"""Gemini ``contents`` (REST JSON) to google-genai ``Content`` and to ADK session events, and back.

Contents travel as google-genai's own models, validated from the camelCase JSON and dumped back
to it (thought signatures are bytes there, standard base64 on the wire); a field genai does not
know is refused rather than dropped. As events, each content is one ``Event`` the way an ADK session
records a run: a user turn of text opens an invocation and is authored by ``"user"``; the model's
turns and the function responses that answer them belong to that invocation and are authored by
the agent, as ADK's runner authors them (a history that opens with a model turn has it in an
invocation of its own). Timestamps strictly increase from 1.0, and event and invocation ids are
positional, so the same contents always make the same session.

A function call without an id (Vertex AI may leave it unset) gets a client id ``adk-...`` as
ADK's flow gives the calls a model returns, and the responses of the next turn take those ids in
order; ADK strips client ids from every request, so they never reach the answer.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from enum import Enum
from typing import Any

from google.adk.events.event import Event
from google.adk.flows.llm_flows.functions import AF_FUNCTION_CALL_ID_PREFIX
from google.genai import types
from pydantic import ValidationError


def to_genai(contents: Sequence[dict[str, Any]]) -> list[types.Content]:
    """google-genai contents for Gemini REST contents; ValueError for what genai cannot hold."""
    converted: list[types.Content] = []
    for index, content in enumerate(contents):
        try:
            converted.append(types.Content.model_validate(content))
        except ValidationError as error:
            raise ValueError(f"contents[{index}]: not a google-genai Content: {error}") from None
    return converted


def _wire(value: Any) -> Any:
    # Bytes in the REST form's standard base64, as the API sends them (pydantic's own JSON mode
    # writes the URL-safe alphabet, which would change every signature).
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_wire(item) for item in value]
    return value


def from_genai(contents: Sequence[types.Content]) -> list[dict[str, Any]]:
    """Gemini REST contents (camelCase JSON) for google-genai contents."""
    return [
        _wire(content.model_dump(mode="python", by_alias=True, exclude_none=True))
        for content in contents
    ]


def _opens_invocation(content: types.Content) -> bool:
    parts = content.parts or []
    return content.role == "user" and not any(part.function_response for part in parts)


def _with_client_ids(contents: Sequence[types.Content]) -> list[types.Content]:
    """The contents with an ``adk-`` id on every call that has none, and on its response."""
    given: list[types.Content] = []
    # The client ids of the last model turn, for the responses of the turn right after it.
    waiting: list[str] = []
    for at, content in enumerate(contents):
        parts = list(content.parts or [])
        answering, waiting = (waiting, []) if content.role != "model" else ([], [])
        for position, part in enumerate(parts):
            call, response = part.function_call, part.function_response
            if call is not None and call.id is None:
                ident = f"{AF_FUNCTION_CALL_ID_PREFIX}compactcheck-{at}-{position}"
                waiting.append(ident)
                parts[position] = part.model_copy(
                    update={"function_call": call.model_copy(update={"id": ident})}
                )
            elif response is not None and response.id is None and answering:
                parts[position] = part.model_copy(
                    update={
                        "function_response": response.model_copy(update={"id": answering.pop(0)})
                    }
                )
        changed = parts != list(content.parts or [])
        given.append(content.model_copy(update={"parts": parts}) if changed else content)
    return given


def to_events(contents: Sequence[types.Content], agent: str) -> list[Event]:
    """The ADK session events that record these contents, for an agent named ``agent``."""
    events: list[Event] = []
    invocation = 0
    for index, content in enumerate(_with_client_ids(contents)):
        opens = _opens_invocation(content)
        if opens and index > 0:
            invocation += 1
        events.append(
            Event(
                id=f"event-{index}",
                invocation_id=f"invocation-{invocation}",
                author="user" if opens else agent,
                content=content,
                timestamp=1.0 + index,
            )
        )
    return events
