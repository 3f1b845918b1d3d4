"""A chat history as Gemini ``systemInstruction`` and ``contents``, with the format's own parts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from compactcheck.invariants import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.formats.projection.chat import call_input, call_names, texts
from compactcheck.invariants.formats.projection.features import Features, opaque


def to_gemini(
    messages: Sequence[ChatMessage],
    features: Features,
    errors: Collection[str] = (),
    offset: int = 0,
) -> dict[str, Any]:
    """The history as Gemini ``systemInstruction`` and ``contents``.

    Consecutive assistant messages become one model turn (a model turn that calls functions
    must follow a user turn or a function response turn), and the results of one call turn
    become one user turn of function responses. Features: a thinking model (the first function
    call of each model turn carries a thought signature, some turns open with a thought
    summary), and calls and responses without ids.
    """
    thinking = features.flag(0)
    # Calls carry ids unless a digit says otherwise (Vertex AI may leave them unset).
    with_ids = not features.flag(1, 1, 3)
    request: dict[str, Any] = {}
    contents: list[dict[str, Any]] = []
    names = call_names(messages)

    def turn(role: str) -> list[dict[str, Any]]:
        if contents and contents[-1]["role"] == role and role == "model":
            parts: list[dict[str, Any]] = contents[-1]["parts"]
            return parts
        contents.append({"role": role, "parts": []})
        fresh: list[dict[str, Any]] = contents[-1]["parts"]
        return fresh

    previous_was_response = False
    for index, message in enumerate(messages, start=offset):
        text = content_text(message.content) if message.content is not None else ""
        if isinstance(message, SystemMessage):
            request["systemInstruction"] = {"parts": [{"text": text}]}
            continue
        if isinstance(message, ToolMessage):
            if not previous_was_response:
                contents.append({"role": "user", "parts": []})
            key = "error" if message.tool_call_id in errors else "output"
            response: dict[str, Any] = {
                "name": names.get(message.tool_call_id, "tool"),
                "response": {key: text},
            }
            if with_ids:
                response["id"] = message.tool_call_id
            contents[-1]["parts"].append({"functionResponse": response})
            previous_was_response = True
            continue
        previous_was_response = False
        if isinstance(message, UserMessage):
            contents.append({"role": "user", "parts": [{"text": text}]})
            continue
        assert isinstance(message, AssistantMessage)
        parts = turn("model")
        calls = message.tool_calls or ()
        if thinking and not parts and features.sometimes(f"thought{index}", 1, 2):
            parts.append(
                {
                    "text": "Thinking about the next step.",
                    "thought": True,
                    "thoughtSignature": opaque("thought", f"{features.value}:{index}"),
                }
            )
        parts += [{"text": said} for said in texts(message)]
        for position, call in enumerate(calls):
            function: dict[str, Any] = {
                "name": call.function.name,
                "args": call_input(call.function.arguments),
            }
            if with_ids:
                function["id"] = call.id
            part: dict[str, Any] = {"functionCall": function}
            if thinking and position == 0:
                part["thoughtSignature"] = opaque("signature", f"{features.value}:{call.id}")
            parts.append(part)
    request["contents"] = contents
    return request
