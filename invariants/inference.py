"""Facts read from a recorded history, for a compaction whose caller declared none.

A generated history carries its ground truth; a history from a team's logs does not. The
messages laws need three things from it, and each can be read off the history itself:

- ``goal``: the text of the first user message (the task as the user stated it), up to a label
  that opens the rules given with it ("Constraints:"), which are read as constraints;
- ``constraints``: each list item (``- x``, ``* x``, ``1. x``, ``1) x``) of a system or developer
  message, without its marker or a leading ``[tag]``: the rules an agent prompt enumerates; and,
  in a user message, the items under a heading that names them ("Constraints:", "New rules:",
  "Requirements:") or the sentences after such a label on its line ("Fix the bug. Constraints:
  Do not touch the public API. Never push to main."), as users give rules mid-conversation; and
  the rules people state in prose: a sentence that opens as a rule does ("Never ...", "Please
  don't ...", "Make sure to ...", "You must not ..."), what follows "Also:", and the items of a
  numbered list. Each is read with its certainty (``Inference``): unsure where the reading
  guesses ("Also: the tests live in tests/", a numbered item that states no rule), and a law
  leaves a loss of an unsure one for review;
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
from dataclasses import dataclass
from typing import Any, Literal

from compactcheck.invariants.facts import Facts, Inference
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


# Sentences that state a rule the way people do: "Never ...", "Please don't ...", "Make sure to
# ...", "You must not ...", "Always ...". What follows "Also:" is a rule only as surely as this.
_RULE_OPENING = re.compile(
    r"^(?:please\s+)?(?:never|always|don['\u2019]t|do\s+not|make\s+sure|be\s+sure|ensure"
    r"|you\s+(?:must|should|may)\s+(?:not|never)|you\s+must|must\s+not)\b",
    re.IGNORECASE,
)
_ALSO = re.compile(r"^(?:also|and|plus|oh,?\s+and|one\s+more\s+thing)\s*[:,-]\s*", re.IGNORECASE)
_NUMBERED = re.compile(r"^\s*\d{1,3}[.)]\s+(?:\[[^\]\s]{1,24}\]\s*)?(?P<text>\S.*?)\s*$")
_PLAIN_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=\S)")


def infer_facts(
    messages: Iterable[ChatMessage], declared: Facts | Mapping[str, Any] | None
) -> Facts:
    """``declared`` completed with what the history shows; ``inferred`` names what was read,
    ``inferences`` each fact read, where and how surely.

    A ``Facts`` object counts as fully declared (nothing is inferred); a mapping declares the
    fields it holds, and the inferable ones it lacks are read from ``messages``.
    """
    if isinstance(declared, Facts):
        return declared
    given = dict(declared or {})
    history = tuple(messages)
    read = {"goal": _goal, "constraints": _constraints, "must_keep": _must_keep}
    inferred: list[str] = []
    inferences: list[Inference] = []
    for field in INFERABLE:
        if field in given:
            continue
        found = read[field](history)
        inferences += found
        texts = tuple(dict.fromkeys(item.text for item in found))
        # A history with no goal stated has the empty goal, which no law asks to be kept.
        given[field] = (texts[0] if texts else "") if field == "goal" else texts
        inferred.append(field)
    if "constraints" in inferred:
        rules, replaced = _replacements([i for i in inferences if i.field == "constraints"])
        current = [i for i in rules if i.text not in replaced]
        inferences = [i for i in inferences if i.field != "constraints"] + current
        given["constraints"] = tuple(dict.fromkeys(i.text for i in current))
        if "superseded_constraints" not in given:
            given["superseded_constraints"] = tuple(replaced)
    given.setdefault("inferred", tuple(inferred))
    given.setdefault("inferences", tuple(inferences))
    return Facts.model_validate(given)


# A rule that names the one it replaces: "Use Python 3.12 (replaces Use Python 3.11)", "(this
# replaces [c1] ...)", "(supersedes: ...)", "(in place of ...)".
_REPLACES = re.compile(
    r"^(?P<rule>.+?)\s*\((?:this\s+)?(?:replaces|supersedes|replacing|in\s+place\s+of|instead\s+of)"
    r"\s*(?:\[[\w-]+\]\s*)?:?\s*(?P<old>[^()]*)\)\s*\.?$",
    re.IGNORECASE,
)


def _replacements(rules: list[Inference]) -> tuple[list[Inference], list[str]]:
    """The rules with their replacement notes taken off, and the rules those notes retire."""
    kept: list[Inference] = []
    replaced: list[str] = []
    for rule in rules:
        match = _REPLACES.match(rule.text)
        if match is None:
            kept.append(rule)
            continue
        old = match["old"].strip()
        source = f"{rule.source}, replacing {old!r}" if old else rule.source
        kept.append(rule.model_copy(update={"text": match["rule"].strip(), "source": source}))
        if old:
            replaced.append(old)
    return kept, replaced


def inferred_rules(history: Iterable[ChatMessage]) -> tuple[Inference, ...]:
    """Every goal and rule the history states, each with where it was read and how surely."""
    messages = tuple(history)
    return (*_goal(messages), *_constraints(messages))


def _goal(history: tuple[ChatMessage, ...]) -> list[Inference]:
    first = next(((i, m) for i, m in enumerate(history) if isinstance(m, UserMessage)), None)
    if first is None:
        return []
    at, message = first
    text = content_text(message.content).strip()
    # The rules the user gave with the task are constraints, read as such: the goal is the task.
    cut = len(text)
    label = _RULES_LABEL.search(text)
    if label is not None:
        cut = label.start()
    for rule in _user_rules(text):
        if rule.at < cut:
            cut = rule.at
    task = text[:cut].strip()
    return [Inference(field="goal", text=task or text, message=at, source=f"user message {at}")]


def _constraints(history: tuple[ChatMessage, ...]) -> list[Inference]:
    found: dict[str, Inference] = {}
    for at, message in enumerate(history):
        if isinstance(message, SystemMessage):
            for line in content_text(message.content).splitlines():
                match = _ITEM.match(line)
                if match is not None and len(match["text"]) >= 3:
                    text = match["text"]
                    found.setdefault(
                        text,
                        Inference(
                            field="constraints",
                            text=text,
                            message=at,
                            source=f"system message {at}, a list item",
                        ),
                    )
        elif isinstance(message, UserMessage):
            for rule in _user_rules(content_text(message.content)):
                found.setdefault(
                    rule.text,
                    Inference(
                        field="constraints",
                        text=rule.text,
                        certainty=rule.certainty,
                        message=at,
                        source=f"user message {at}, {rule.how}",
                    ),
                )
    return list(found.values())


@dataclass(frozen=True)
class _Rule:
    """A rule read in a user message: its text, where it starts, how it was read, how surely."""

    text: str
    at: int
    how: str
    certainty: Literal["certain", "unsure"]


def _user_rules(text: str) -> Iterator[_Rule]:
    """The rules a user message gives: under a label ("Constraints:"), after "Also:", as a
    sentence that states a rule ("Please never ..."), or as a numbered list of requirements."""
    listing = False
    offset = 0
    lines = text.splitlines(keepends=True)
    numbered = sum(1 for line in lines if _NUMBERED.match(line))
    for raw in lines:
        start, line = offset, raw.rstrip("\r\n")
        offset += len(raw)
        label = _RULES_LABEL.search(line)
        if label is not None:
            listing = True
            rest = label["rest"].strip()
            base = start + line.find(rest) if rest else start
            for sentence, at in _sentences(rest, base):
                rule = sentence.rstrip(".;")
                if len(rule) >= 3:
                    yield _Rule(rule, at, "under a rules label", "certain")
            continue
        item = _ITEM.match(line)
        if listing and item is not None:
            if len(item["text"]) >= 3:
                yield _Rule(item["text"], start, "a list item under a rules label", "certain")
            continue
        # The list ends at the first line that is not one of its items.
        listing = False
        listed = _NUMBERED.match(line)
        if listed is not None and numbered >= 2:
            rule = listed["text"].rstrip(".;")
            sure: Literal["certain", "unsure"] = (
                "certain" if _RULE_OPENING.match(rule) else "unsure"
            )
            yield _Rule(rule, start, "an item of a numbered list", sure)
            continue
        yield from _plain_rules(line, start)


def _plain_rules(line: str, start: int) -> Iterator[_Rule]:
    """The rules a line of prose states: "Also: ...", "Never ...", "Make sure to ..."."""
    for sentence, at in _sentences(line.strip(), start + len(line) - len(line.lstrip())):
        also = _ALSO.match(sentence)
        said = sentence[also.end() :] if also is not None else sentence
        said = said.strip().rstrip(".;!")
        if len(said.split()) < 2:
            continue
        if _RULE_OPENING.match(said):
            how = "after 'Also:'" if also is not None else "a sentence stating a rule"
            yield _Rule(said, at, how, "certain")
        elif also is not None:
            yield _Rule(said, at, "after 'Also:'", "unsure")


def _sentences(text: str, base: int) -> Iterator[tuple[str, int]]:
    """The sentences of ``text`` with where each starts, ``base`` being where ``text`` does."""
    at = 0
    for piece in _PLAIN_SENTENCE.split(text):
        found = text.find(piece, at)
        at = found + len(piece)
        if piece.strip():
            yield piece.strip(), base + found


def _must_keep(history: tuple[ChatMessage, ...]) -> list[Inference]:
    found: dict[str, Inference] = {}
    answered = {m.tool_call_id for m in history if isinstance(m, ToolMessage)}
    for at, message in enumerate(history):
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        for call in message.tool_calls:
            arguments = _arguments(call.function.arguments)
            writes = bool(_WRITES.search(call.function.name))
            for key, value in _leaves(arguments):
                changed = writes and key in _PATH_KEYS and _looks_like_path(value)
                if changed or (key in _ID_KEYS and value):
                    how = "a file it changed" if changed else f"the {key} of a tool call"
                    found.setdefault(value, _kept(value, at, how))
            if call.id not in answered:
                found.setdefault(call.id, _kept(call.id, at, "a call still waiting"))
    return list(found.values())


def _kept(text: str, at: int, how: str) -> Inference:
    return Inference(field="must_keep", text=text, message=at, source=f"message {at}, {how}")


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


__all__ = ["INFERABLE", "LAW_READS", "infer_facts", "inferred_note", "inferred_rules"]
