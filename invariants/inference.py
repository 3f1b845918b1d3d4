"""Facts read from a recorded history, for a compaction whose caller declared none.

A generated history carries its ground truth; a history from a team's logs does not. The
messages laws need three things from it, and each can be read off the history itself:

- ``goal``: the text of the first user message (the task as the user stated it), up to a label
  that opens the rules given with it ("Constraints:"), which are read as constraints;
- ``constraints``: each list item (``- x``, ``* x``, ``1. x``, ``1) x``) of a system or developer
  message, without its marker or a leading ``[tag]``: the rules an agent prompt enumerates; and,
  in a user message, the items under a heading that names them ("Constraints:", "New rules:",
  "Requirements:") or the sentences after such a label on its line ("Fix the bug. Constraints:
  Do not touch the public API. Never push to main."), as users give rules mid-conversation;
- ``must_keep``: the files the agent changed (path arguments of tool calls whose name says they
  write: ``write``, ``edit``, ``patch``, ``create``, ...), the ids of steps, tasks, tickets or
  issues passed to tools (``step_id``, ``ticket``, ...), and the ids of tool calls still waiting
  for their result. Files that were only read and calls already answered are not must-keep: a
  compactor may drop an old read, and the pairing law judges what happens to answered calls.

Inference is a reading, not ground truth: a fact inferred here is labelled as inferred wherever
a judgement or report shows it, and a caller can declare any fact instead (a declared field is
never inferred).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)

INFERABLE = ("goal", "constraints", "must_keep")
"""The facts this module can read off a history, in the order a report lists them."""

LAW_READS: Mapping[str, tuple[str, ...]] = {
    "constraints_preserved": ("constraints",),
    "facts_preserved": ("must_keep",),
}
"""Which facts each messages law judges by (the others read the history alone)."""

_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)])\s+(?:\[[^\]\s]{1,24}\]\s*)?(?P<text>\S.*?)\s*$")
_WRITES = re.compile(
    r"write|edit|patch|create|replace|insert|append|apply|delete|remove|rename|move|save|update"
    r"|modify|str_replace",
    re.IGNORECASE,
)
_PATH_KEYS = frozenset(
    {"path", "paths", "file", "files", "filename", "file_path", "filepath", "target_file",
     "source", "destination", "dest", "new_path", "old_path"}
)  # fmt: skip
_ID_KEYS = frozenset(
    {"step_id", "step", "task_id", "todo_id", "ticket", "ticket_id", "issue", "issue_id"}
)
_PATH = re.compile(r"^[\w.\-~/\\]+$")
# A label that opens a user's list of rules, and what follows it on the same line.
_RULES_LABEL = re.compile(
    r"(?:^|(?<=[.!?])\s)\s*(?:[#*_]+\s*)?(?:(?:new|updated|additional|hard)\s+)?"
    r"(?:constraints?|rules?|requirements?)\s*[*_]*:\s*(?P<rest>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def infer_facts(
    messages: Iterable[ChatMessage], declared: Facts | Mapping[str, Any] | None
) -> Facts:
    """``declared`` completed with what the history shows; ``inferred`` names what was read.

    A ``Facts`` object counts as fully declared (nothing is inferred); a mapping declares the
    fields it holds, and the inferable ones it lacks are read from ``messages``.
    """
    if isinstance(declared, Facts):
        return declared
    given = dict(declared or {})
    history = tuple(messages)
    readers = {"goal": _goal, "constraints": _constraints, "must_keep": _must_keep}
    inferred: list[str] = []
    for field in INFERABLE:
        if field in given:
            continue
        given[field] = readers[field](history)
        inferred.append(field)
    given.setdefault("inferred", tuple(inferred))
    return Facts.model_validate(given)


def _goal(history: tuple[ChatMessage, ...]) -> str:
    first = next((m for m in history if isinstance(m, UserMessage)), None)
    if first is None:
        return ""
    text = content_text(first.content).strip()
    # The rules the user gave with the task are constraints, read as such: the goal is the task.
    label = _RULES_LABEL.search(text)
    task = text[: label.start()].strip() if label is not None else ""
    return task or text


def _constraints(history: tuple[ChatMessage, ...]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for message in history:
        if isinstance(message, SystemMessage):
            for line in content_text(message.content).splitlines():
                match = _ITEM.match(line)
                if match is not None and len(match["text"]) >= 3:
                    found[match["text"]] = None
        elif isinstance(message, UserMessage):
            found.update(dict.fromkeys(_labelled_rules(content_text(message.content))))
    return tuple(found)


def _labelled_rules(text: str) -> Iterator[str]:
    """The rules a user message gives under a label: the list items that follow it, or the
    sentences after it on its line (the label opening the line or a sentence)."""
    listing = False
    for line in text.splitlines():
        label = _RULES_LABEL.search(line)
        if label is not None:
            listing = True
            for sentence in _SENTENCE_END.split(label["rest"].strip()):
                rule = sentence.strip().rstrip(".;")
                if len(rule) >= 3:
                    yield rule
            continue
        item = _ITEM.match(line)
        if listing and item is not None:
            if len(item["text"]) >= 3:
                yield item["text"]
            continue
        # The list ends at the first line that is not one of its items.
        listing = False


def _must_keep(history: tuple[ChatMessage, ...]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    answered = {m.tool_call_id for m in history if isinstance(m, ToolMessage)}
    for message in history:
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        for call in message.tool_calls:
            arguments = _arguments(call.function.arguments)
            writes = bool(_WRITES.search(call.function.name))
            for key, value in _leaves(arguments):
                changed = writes and key in _PATH_KEYS and _looks_like_path(value)
                if changed or (key in _ID_KEYS and value):
                    found[value] = None
            if call.id not in answered:
                found[call.id] = None
    return tuple(found)


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _leaves(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every (key, text) of a JSON value; a list's items take the key of the list."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from _leaves(inner, str(name).lower())
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner, key)
    elif isinstance(value, str):
        yield key, value
    elif isinstance(value, int) and not isinstance(value, bool):
        yield key, str(value)


def _looks_like_path(text: str) -> bool:
    return 0 < len(text) <= 300 and bool(_PATH.match(text)) and ("/" in text or "." in text)


def inferred_note(facts: Facts, invariant: str, because: str) -> str | None:
    """What a violation judged on an inferred fact adds to its ``because``; None otherwise.

    A violation rests on an inferred fact when it names one (a law quotes the constraint or
    identifier it misses); the same law's other violations (a system message that is gone, a
    declared fact) stand on their own.
    """
    used: list[str] = []
    for field in LAW_READS.get(invariant, ()):
        if field not in facts.inferred:
            continue
        values: tuple[str, ...] = getattr(facts, field)
        if any(repr(value) in because for value in values):
            used.append(field)
    if not used:
        return None
    return f"judged on inferred facts ({', '.join(used)} read from the history, not declared)"


__all__ = ["INFERABLE", "LAW_READS", "infer_facts", "inferred_note"]
