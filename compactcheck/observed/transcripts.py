"""Recorded transcripts as seeds: import them, hand each over whole, then explore around them.

``compactcheck run TARGET --transcripts PATH`` reads a file or a folder of transcripts. Each is
read into chat completions messages by the first importer that recognises it:

- ``openai-chat``: a JSON list of chat messages, or ``{"messages": [...]}`` (also JSON Lines,
  one message per line);
- ``anthropic``, ``openai-responses``, ``gemini``: a provider request (or its bare history
  list), read as the messages laws read that format;
- ``langchain``: a LangChain message dump, either ``messages_to_dict`` (``{"type": "human",
  "data": {...}}``) or ``dumpd`` (``{"lc": 1, "type": "constructor", "id": [...,
  "HumanMessage"], "kwargs": {...}}``);
- ``claude-code``: a Claude Code session log (JSON Lines under ``~/.claude/projects``; one
  entry per line, ``user`` and ``assistant`` entries carry an Anthropic ``message``; other
  entries such as summaries, hooks and side chains are skipped, and the streamed pieces of one
  assistant message are joined).

A run on transcripts draws pieces of them instead of generated scenarios: a window of whole
turns (a turn starts at a user message that is not a tool result; the leading system messages
are kept), cut into up to ``--rounds`` rounds at turn boundaries, with tool outputs optionally
repeated to be larger. Each whole transcript is also handed over as an explicit example, one
round, as it was recorded. Shrinking narrows the window toward one turn at the start of the
transcript, with one round and tool outputs as recorded, so a failure is reported on the
smallest piece of the transcript that still shows it. The facts each round is judged by are
inferred from its input (``compactcheck.invariants.inference``), and the report says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from pydantic import ValidationError

from compactcheck.base.errors import CompactcheckError, one_line
from compactcheck.base.files import json_files
from compactcheck.harness.messages import MessagesDriver
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import (
    Budget,
    ChatMessage,
    Facts,
    SystemMessage,
    ToolMessage,
    UserMessage,
    View,
    dump_messages,
    parse_messages,
)
from compactcheck.invariants.formats import (
    CHAT,
    Format,
    as_request,
    detect_format,
    parse_request,
    read,
)
from compactcheck.invariants.inference import infer_facts

IMPORTERS = (
    "openai-chat",
    "anthropic",
    "openai-responses",
    "gemini",
    "langchain",
    "claude-code",
)
"""The transcript formats ``load_transcripts`` reads."""

# Sizes tool outputs are repeated to, drawn per piece (1: as recorded; shrinks toward it).
GROWTH = (1, 2, 4, 8)

_LANGCHAIN_ROLES = {
    "human": "user",
    "HumanMessage": "user",
    "ai": "assistant",
    "AIMessage": "assistant",
    "system": "system",
    "SystemMessage": "system",
    "tool": "tool",
    "ToolMessage": "tool",
}


class TranscriptError(CompactcheckError, ValueError):
    """A transcript path or file that cannot be read as a transcript."""


@dataclass(frozen=True)
class Transcript:
    """One recorded history, read into chat messages; ``starts`` are its turns' first indices."""

    name: str
    source: str
    messages: tuple[ChatMessage, ...]
    head: int = 0
    starts: tuple[int, ...] = field(default=())

    @property
    def turns(self) -> int:
        """How many whole turns it holds."""
        return len(self.starts)


def _turns(messages: Sequence[ChatMessage]) -> tuple[int, tuple[int, ...]]:
    """The end of the leading system messages, and where each turn after them starts.

    A turn starts at a user message (tool results are tool messages in the chat reading); the
    first message after the system head starts the first turn whatever it is.
    """
    head = 0
    while head < len(messages) and isinstance(messages[head], SystemMessage):
        head += 1
    if head == len(messages):
        return head, ()
    later = (i for i in range(head + 1, len(messages)) if isinstance(messages[i], UserMessage))
    return head, (head, *later)


def _transcript(name: str, source: str, messages: tuple[ChatMessage, ...]) -> Transcript:
    if not messages:
        raise TranscriptError(f"{name}: the transcript holds no message")
    head, starts = _turns(messages)
    if not starts:
        raise TranscriptError(f"{name}: the transcript holds only system messages")
    return Transcript(name, source, messages, head, starts)


def transcript_files(path: Path) -> list[Path]:
    """The transcript files of ``path``: itself, or the JSON and JSON Lines files of a folder."""
    return json_files(path, "transcript", TranscriptError)


def load_transcripts(path: Path) -> list[Transcript]:
    """Every transcript of ``path``, each read by the importer that recognises it."""
    return [load_transcript(file) for file in transcript_files(path)]


def load_transcript(file: Path) -> Transcript:
    """One transcript file; TranscriptError naming the file when no importer reads it."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TranscriptError(f"{file}: cannot read it: {one_line(error)}") from None
    data = _json_or_lines(file, text)
    try:
        source, messages = _import(data)
    except (ValidationError, ValueError, TypeError, KeyError) as error:
        raise TranscriptError(
            f"{file}: not a transcript compactcheck reads: {one_line(error)}"
        ) from None
    return _transcript(str(file), source, messages)


def _json_or_lines(file: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines: list[Any] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            lines.append(json.loads(line))
        except ValueError as error:
            raise TranscriptError(f"{file}:{number}: not JSON: {one_line(error)}") from None
    return lines


def _import(data: Any) -> tuple[str, tuple[ChatMessage, ...]]:
    """The importer that reads ``data``, and the messages it read."""
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        if any("sessionId" in item or "parentUuid" in item for item in data):
            return "claude-code", _claude_code(data)
        if any(_is_langchain(item) for item in data):
            return "langchain", _langchain(data)
    format = detect_format(data)
    if format is None:
        raise ValueError(
            "not chat completions, an Anthropic, Responses or Gemini request, a LangChain "
            "message dump or a Claude Code session log"
        )
    if format == CHAT:
        listed = data["messages"] if isinstance(data, dict) else data
        return format, parse_messages(listed)
    return format, read(parse_request(format, as_request(format, data)))


def _is_langchain(item: dict[str, Any]) -> bool:
    if item.get("lc") == 1 and item.get("type") == "constructor":
        return True
    return item.get("type") in _LANGCHAIN_ROLES and isinstance(item.get("data"), dict)


def _langchain(items: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    chat: list[dict[str, Any]] = []
    for item in items:
        if item.get("lc") == 1:
            kind = str(item["id"][-1])
            fields: dict[str, Any] = item.get("kwargs", {})
        else:
            kind = str(item["type"])
            fields = item["data"]
        role = _LANGCHAIN_ROLES.get(kind)
        if role is None:
            raise ValueError(f"LangChain message kind {kind!r} is not one compactcheck reads")
        content = fields.get("content", "")
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant" and fields.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": json.dumps(call.get("args", {})),
                    },
                }
                for call in fields["tool_calls"]
            ]
            if not content:
                message["content"] = None
        if role == "tool":
            message["tool_call_id"] = fields["tool_call_id"]
        chat.append(message)
    return parse_messages(chat)


def _claude_code(entries: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    messages: list[dict[str, Any]] = []
    for entry in entries:
        if entry.get("type") not in ("user", "assistant") or entry.get("isSidechain"):
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        role = message.get("role", entry["type"])
        content = message.get("content", "")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        blocks = [b for b in blocks if not (b.get("type") == "text" and not b.get("text"))]
        if not blocks:
            continue
        # One entry per streamed block of an assistant message, and tool results in entries of
        # their own: consecutive entries of one role are one message of the Messages API.
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    return read(parse_request("anthropic", {"messages": messages}))


# --------------------------------------------------------------------------------------------
# Pieces of transcripts as cases


@dataclass(frozen=True)
class TranscriptCase:
    """A piece of a transcript: turns ``[start, start + length)``, cut into rounds."""

    transcript: Transcript
    start: int
    length: int
    # The turn (counted in the piece) at which each round but the last ends.
    cuts: tuple[int, ...] = ()
    growth: int = 1
    knobs: tuple[int, ...] = ()

    def rounds(self) -> list[tuple[ChatMessage, ...]]:
        """The messages each round adds (the first with the leading system messages)."""
        t = self.transcript
        bounds = (*t.starts, len(t.messages))
        pieces: list[tuple[ChatMessage, ...]] = []
        previous = 0
        for end in (*self.cuts, self.length):
            chunk = t.messages[bounds[self.start + previous] : bounds[self.start + end]]
            if previous == 0:
                chunk = (*t.messages[: t.head], *chunk)
            pieces.append(tuple(self._grown(message) for message in chunk))
            previous = end
        return pieces

    def _grown(self, message: ChatMessage) -> ChatMessage:
        if self.growth == 1 or not isinstance(message, ToolMessage):
            return message
        text = message.content if isinstance(message.content, str) else None
        if text is None:
            return message
        return message.model_copy(update={"content": "\n".join([text] * self.growth)})

    def describe(self) -> str:
        """Where the piece comes from, for a report's note."""
        return (
            f"{self.transcript.name}: turns {self.start + 1}..{self.start + self.length} of "
            f"{self.transcript.turns}, {len(self.cuts) + 1} round(s), tool outputs x{self.growth}"
        )


def whole(transcript: Transcript) -> TranscriptCase:
    """The transcript as recorded: every turn, one round."""
    return TranscriptCase(transcript, 0, transcript.turns)


def transcript_cases(
    transcripts: Sequence[Transcript], rounds: int, knobs: int = 8
) -> st.SearchStrategy[TranscriptCase]:
    """Pieces of the transcripts (see the module docstring); shrink toward one early turn."""

    @st.composite
    def piece(draw: st.DrawFn) -> TranscriptCase:
        index = draw(st.integers(0, len(transcripts) - 1), label="transcript")
        chosen = transcripts[index]
        length = draw(st.integers(1, chosen.turns), label="turns")
        start = draw(st.integers(0, chosen.turns - length), label="first turn")
        most = min(rounds, length)
        count = draw(st.integers(1, most), label="rounds")
        cuts = (
            tuple(
                sorted(
                    draw(
                        st.sets(st.integers(1, length - 1), min_size=count - 1, max_size=count - 1)
                    )
                )
            )
            if count > 1
            else ()
        )
        growth = draw(st.sampled_from(GROWTH), label="tool output growth")
        drawn = tuple(draw(st.lists(st.integers(0, 7), min_size=knobs, max_size=knobs)))
        return TranscriptCase(chosen, start, length, cuts, growth, drawn)

    return piece()


class TranscriptDriver:
    """The messages view on pieces of transcripts: the answer plus the next turns, per round."""

    view: View = "messages"

    def __init__(self, inner: MessagesDriver, budget: Budget | None, format: Format = CHAT) -> None:
        # The messages driver of the target: it talks to the backend and judges answers.
        self.inner = inner
        self.budget = budget
        self.format = format

    def run(self, case: Any) -> list[RoundOutcome]:
        """Compact after each round's turns; feed the answer forward, as the messages view."""
        assert isinstance(case, TranscriptCase)
        outcomes: list[RoundOutcome] = []
        carried: tuple[ChatMessage, ...] = ()
        opening: Facts | None = None
        for index, fresh in enumerate(case.rounds()):
            before = (*carried, *fresh)
            facts = infer_facts(before, {"budget": self.budget} if self.budget else None)
            # The goal is the task's, inferred once: a later round's first user message is that
            # round's own ("Go on. ..."), the task being in the summary carried forward.
            if opening is None:
                opening = facts
            else:
                goal = [i for i in opening.inferences if i.field == "goal"]
                rest = [i for i in facts.inferences if i.field != "goal"]
                facts = facts.model_copy(
                    update={"goal": opening.goal, "inferences": (*goal, *rest)}
                )
            if self.format == CHAT:
                outcome = self.inner.one(
                    index + 1, dump_messages(before), facts, case.knobs, before
                )
            else:
                from compactcheck.invariants.formats.conversion import convert

                request = convert(dump_messages(before), CHAT, self.format)
                outcome = self.inner.native(index + 1, request, facts, case.knobs)
            outcomes.append(outcome)
            if not outcome.answered:
                break
            carried = tuple(outcome.after)
        return outcomes

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run a recorded round (the messages view's own replay)."""
        result: RoundOutcome = self.inner.replay(entry)
        return result


def iter_descriptions(transcripts: Sequence[Transcript]) -> Iterator[str]:
    """One line per transcript: its name, importer, messages and turns."""
    for t in transcripts:
        yield f"{t.name} ({t.source}): {len(t.messages)} messages, {t.turns} turns"


__all__ = [
    "IMPORTERS",
    "Transcript",
    "TranscriptCase",
    "TranscriptDriver",
    "TranscriptError",
    "iter_descriptions",
    "load_transcript",
    "load_transcripts",
    "transcript_cases",
    "transcript_files",
    "whole",
]
