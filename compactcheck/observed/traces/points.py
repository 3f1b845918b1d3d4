"""Where an agent compacted: two consecutive calls, and what became of each message between them.

The next call continues the previous one when its history starts with the previous history
(item by item, compared by their keys: see ``history``) and the request's other fields the laws
read (a system prompt, instructions) are unchanged; whatever it appends (the answer, tool
results, the user's next turn) is the conversation going on. Anything else is a compaction
point.

At a compaction point the history the compactor was handed is rebuilt as the previous call's
history, its answer (when recorded) and the new turns the next call carries: the results of the
tool calls that answer made, or, when it made none, the user's next message. Each message of
that history is then ``kept`` (in the next call as it was), ``rewritten`` (in its place, changed:
a tool result cleared, a message shortened), ``summarised`` (gone, where new messages stand in
its stead) or ``dropped`` (gone, nothing in its stead); the next call's messages that are not in
it are ``inserted`` (a summary).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.traces.conversations import Held, Step
from compactcheck.observed.traces.history import key_of


@dataclass(frozen=True)
class Point:
    """One compaction point: the pair ``check`` judges, and the fate of every message."""

    step: Step
    before: Any
    after: Any
    kept: tuple[int, ...]
    rewritten: tuple[int, ...]
    summarised: tuple[int, ...]
    dropped: tuple[int, ...]
    inserted: tuple[int, ...]
    head_changed: bool
    output_recorded: bool

    @property
    def format(self) -> Format:
        """The pair's format."""
        return self.step.current.format


def continues(previous: Held, current: Held) -> bool:
    """Whether ``current`` only appends to ``previous`` (see the module docstring)."""
    if previous.format != current.format or _head(previous) != _head(current):
        return False
    before, after = previous.history.keys, current.history.keys
    return len(after) >= len(before) and after[: len(before)] == before


def _head(held: Held) -> str:
    return key_of(held.head, held.format)


def _role(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    role = item.get("role")
    if isinstance(role, str):
        return "assistant" if role == "model" else role
    kind = item.get("type")
    return {"function_call_output": "tool", "function_call": "assistant"}.get(str(kind), "")


def _calls_made(format: Format, output: Sequence[Any]) -> set[str]:
    """The ids of the tool calls an answer made (Gemini's calls may carry none: their names)."""
    ids: set[str] = set()
    for item in output:
        if not isinstance(item, dict):
            continue
        if format == "openai-chat":
            ids.update(
                str(c.get("id")) for c in item.get("tool_calls") or () if isinstance(c, dict)
            )
        elif format == "anthropic" and isinstance(item.get("content"), list):
            ids.update(
                str(b.get("id"))
                for b in item["content"]
                if isinstance(b, dict) and b.get("type") == "tool_use"
            )
        elif format == "openai-responses" and item.get("type") in (
            "function_call",
            "custom_tool_call",
        ):
            ids.add(str(item.get("call_id")))
        elif format == "gemini":
            for part in item.get("parts") or ():
                call = part.get("functionCall") if isinstance(part, dict) else None
                if isinstance(call, dict):
                    ids.add(str(call.get("id") or call.get("name")))
    return ids


def _answers(format: Format, item: Any, ids: set[str]) -> bool:
    """Whether ``item`` carries the result of one of the calls ``ids``."""
    if not isinstance(item, dict):
        return False
    if format == "openai-chat":
        return item.get("role") == "tool" and str(item.get("tool_call_id")) in ids
    if format == "anthropic":
        content = item.get("content")
        return isinstance(content, list) and any(
            isinstance(b, dict)
            and b.get("type") == "tool_result"
            and str(b.get("tool_use_id")) in ids
            for b in content
        )
    if format == "openai-responses":
        return (
            str(item.get("type", "")).endswith("_call_output") and str(item.get("call_id")) in ids
        )
    for part in item.get("parts") or ():
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and str(response.get("id") or response.get("name")) in ids:
            return True
    return False


def _new_turns(previous: Held, current: Held, after: list[Any], seen: set[str]) -> list[int]:
    """The indices of the next call's items that are new turns (see the module docstring)."""
    output = previous.output.items() if previous.output is not None else []
    made = _calls_made(current.format, output)
    keys = current.history.keys
    if made:
        return [
            at
            for at, item in enumerate(after)
            if keys[at] not in seen and _answers(current.format, item, made)
        ]
    # No call made (or the answer not recorded): the user's next message, if it is new.
    last = len(after) - 1
    if last >= 0 and keys[last] not in seen and _role(after[last]) in ("user", "tool"):
        start = last
        # Tool results of an unrecorded answer come in a run.
        while (
            previous.output is None
            and start > 0
            and _role(after[start - 1]) == "tool"
            and (keys[start - 1] not in seen)
        ):
            start -= 1
        return list(range(start, last + 1))
    return []


def _same_place(a: Any, b: Any) -> bool:
    """Whether two items are one message edited: same role, same tool call or result ids."""
    if _role(a) != _role(b):
        return False
    for field in ("tool_call_id", "call_id"):
        if isinstance(a, dict) and isinstance(b, dict) and (field in a or field in b):
            return a.get(field) == b.get(field)
    return True


def locate(step: Step) -> Point | None:
    """The compaction point between a step's two calls; None when the second continues."""
    previous, current = step.previous, step.current
    if continues(previous, current):
        return None
    after = current.history.items()
    own = [*previous.history.items(), *(previous.output.items() if previous.output else [])]
    own_keys = [*previous.history.keys, *(previous.output.keys if previous.output else ())]
    fresh = _new_turns(previous, current, after, set(own_keys))
    before = own + [after[at] for at in fresh]
    before_keys = own_keys + [current.history.keys[at] for at in fresh]
    matcher = difflib.SequenceMatcher(None, before_keys, list(current.history.keys), autojunk=False)
    kept: list[int] = []
    rewritten: list[int] = []
    summarised: list[int] = []
    dropped: list[int] = []
    inserted: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            kept.extend(range(i1, i2))
            continue
        olds, news = list(range(i1, i2)), list(range(j1, j2))
        edited: list[tuple[int, int]] = []
        if len(olds) == len(news) and all(
            _same_place(before[i], after[j]) for i, j in zip(olds, news, strict=True)
        ):
            edited = list(zip(olds, news, strict=True))
        rewritten.extend(i for i, _ in edited)
        left = [i for i in olds if i not in {i for i, _ in edited}]
        stand_in = [j for j in news if j not in {j for _, j in edited}]
        inserted.extend(stand_in)
        (summarised if stand_in else dropped).extend(left)
    return Point(
        step=step,
        before=previous_request(previous, before),
        after=current_request(current, after),
        kept=tuple(kept),
        rewritten=tuple(rewritten),
        summarised=tuple(summarised),
        dropped=tuple(dropped),
        inserted=tuple(inserted),
        head_changed=_head(previous) != _head(current),
        output_recorded=previous.output is not None,
    )


def previous_request(held: Held, history: list[Any]) -> Any:
    """The history handed to the compactor, as a request of its format."""
    return _request(held, history)


def current_request(held: Held, history: list[Any]) -> Any:
    """The history the next call sent, as a request of its format."""
    return _request(held, history)


def _request(held: Held, history: list[Any]) -> Any:
    from compactcheck.invariants.formats import HISTORY_FIELD

    if held.format == "openai-chat":
        return history
    return json.loads(json.dumps({**held.head, HISTORY_FIELD[held.format]: history}))


__all__ = ["Point", "continues", "locate"]
