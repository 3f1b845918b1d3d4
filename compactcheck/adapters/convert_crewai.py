"""OpenAI chat dicts to crewAI's ``LLMMessage`` dicts and back, losslessly.

crewAI keeps an agent's history as OpenAI-shaped dicts (``crewai.utilities.types.LLMMessage``:
role, content, ``name``, ``tool_call_id``, ``tool_calls``), so a message travels as a deep copy;
a key crewAI's type does not hold is refused rather than carried where crewAI would not look.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

_ROLES = ("system", "user", "assistant", "tool")
_KEYS = frozenset({"role", "content", "name", "tool_call_id", "tool_calls"})


def to_crewai(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """crewAI messages for OpenAI chat dicts."""
    for index, message in enumerate(messages):
        if message.get("role") not in _ROLES:
            raise ValueError(f"message {index}: crewAI has no role {message.get('role')!r}")
        unknown = set(message) - _KEYS
        if unknown:
            raise ValueError(f"message {index}: crewAI's LLMMessage has no {sorted(unknown)}")
    return copy.deepcopy(list(messages))


def from_crewai(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for crewAI messages (crewAI's own keys, such as ``files``, dropped)."""
    return [{k: copy.deepcopy(v) for k, v in m.items() if k in _KEYS} for m in messages]
