"""The chat messages of a run as its client writes them: each kind of message in its shapes.

Each builder is kept for the values it was built from (all immutable): every round of a case
projects the run from its start again, so the same words, calls and results come back, and a
validated message costs more than a cache lookup.
"""

from __future__ import annotations

from functools import lru_cache

from compactcheck.invariants import (
    AssistantMessage,
    FunctionCall,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from compactcheck.invariants.messages import Content, ImagePart, ImageUrl, Part, RefusalPart
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.shapes import Shapes
from compactcheck.strategies.turns import ToolBatch


def _parts(texts: tuple[str, ...]) -> tuple[Part, ...]:
    return tuple(TextPart(text=text) for text in texts)


@lru_cache(maxsize=256)
def system(prompt: str, constraints: str, shapes: Shapes) -> SystemMessage:
    """The system prompt: its instructions and its constraints, as one text or two parts."""
    if shapes.system_parts and constraints:
        return SystemMessage(content=_parts((prompt, constraints)))
    return SystemMessage(content=f"{prompt}\n{constraints}" if constraints else prompt)


@lru_cache(maxsize=4096)
def user(paragraphs: tuple[str, ...], shapes: Shapes, image: str | None = None) -> UserMessage:
    """A user message of paragraphs: one text, or one text part each (an image after the first).

    An image makes the content a list whatever the shapes say: an image is a part.
    """
    content: Content
    if shapes.user_parts or image is not None:
        listed = list(_parts(paragraphs))
        if image is not None:
            listed.insert(1, ImagePart(image_url=ImageUrl(url=image)))
        content = tuple(listed)
    else:
        content = "\n\n".join(paragraphs)
    return UserMessage(content=content, name=words.USER_NAMES[0] if shapes.names else None)


@lru_cache(maxsize=4096)
def said(text: str, shapes: Shapes) -> AssistantMessage:
    """An assistant message of text: a string, or one text part."""
    return AssistantMessage(content=_parts((text,)) if shapes.assistant_parts else text)


@lru_cache(maxsize=16)
def refused(text: str) -> AssistantMessage:
    """An assistant message that is one refusal part (chat completions allows nothing beside it)."""
    return AssistantMessage(content=(RefusalPart(refusal=text),))


@lru_cache(maxsize=4096)
def calls(batch: ToolBatch, words_before: str | None, shapes: Shapes) -> AssistantMessage:
    """An assistant message making a batch's calls, with the words said before it, if any.

    Without words the content is left out, or an explicit null where the client sends one.
    """
    made = tuple(
        ToolCall(id=call.call_id, function=FunctionCall(name=call.name, arguments=call.arguments))
        for call in batch.calls
    )
    if words_before is not None:
        content = _parts((words_before,)) if shapes.assistant_parts else words_before
        return AssistantMessage(content=content, tool_calls=made)
    if shapes.null_content:
        return AssistantMessage(content=None, tool_calls=made)
    return AssistantMessage(tool_calls=made)


@lru_cache(maxsize=8192)
def answer(call_id: str, output: str, shapes: Shapes) -> ToolMessage:
    """The result message of a tool call: a string, or one text part (an empty one stays "")."""
    content = _parts((output,)) if shapes.tool_parts and output else output
    return ToolMessage(tool_call_id=call_id, content=content)
