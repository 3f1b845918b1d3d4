"""OpenAI chat dicts to agno ``Message`` objects and back, losslessly.

agno keeps OpenAI's shapes: a role, content as a string or a list of parts, ``name``,
``tool_call_id`` and ``tool_calls`` as OpenAI dicts; each is carried as it is (copied). Message ids
are positional (``m0``, ``m1``...), as agno's compaction anchors its boundary on an id; they are
dropped on the way back, and so is agno's own bookkeeping (metrics, ``from_history``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from agno.models.message import Message

_ROLES = ("system", "developer", "user", "assistant", "tool")
# The chat fields a Message carries as they are, in the order a chat dict lists them.
_FIELDS = ("content", "name", "tool_call_id", "tool_calls")


def to_agno(messages: Sequence[dict[str, Any]]) -> list[Message]:
    """agno messages for OpenAI chat dicts, with positional ids."""
    converted: list[Message] = []
    for index, message in enumerate(messages):
        if message["role"] not in _ROLES:
            raise ValueError(f"message {index}: unknown role {message['role']!r}")
        unknown = set(message) - {"role", *_FIELDS}
        if unknown:
            raise ValueError(f"message {index}: agno has no field for {sorted(unknown)}")
        fields = {key: copy.deepcopy(message[key]) for key in _FIELDS if key in message}
        converted.append(Message(id=f"m{index}", role=message["role"], **fields))
    return converted


def from_agno(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for agno messages (ids and bookkeeping dropped)."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role}
        for key in _FIELDS:
            value = getattr(message, key)
            if value is not None:
                item[key] = copy.deepcopy(value)
        converted.append(item)
    return converted
