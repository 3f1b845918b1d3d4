"""Summarisers: the request they get, the checks their output must pass, and the framing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from compactcheck.invariants.session import SessionMessage, TextBlock
from compactcheck.reference_engine.session.errors import SummaryError
from compactcheck.reference_engine.session.signal import AbortSignal

CHECKPOINT_PREAMBLE = (
    "Automatic checkpoint: the span below condenses earlier conversation to free context. "
    "Treat it as settled background and do not restate it; carry on from the messages that "
    "follow without mentioning this checkpoint."
)
OPEN_TAG = "<compacted-summary>"
CLOSE_TAG = "</compacted-summary>"
INSTRUCTION_SECTIONS = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code",
    "Errors and Fixes",
    "Pending Jobs",
    "Current Work",
    "Next Step",
    "Critical Context",
)


@dataclass(frozen=True)
class SummarisationInput:
    """What a summariser sees: the routed envelope and the shadowed messages, verbatim."""

    messages: tuple[SessionMessage, ...]
    system: str | None = None
    tools: tuple[Any, ...] | None = None
    conversation_target: tuple[str, str] | None = None


@dataclass(frozen=True)
class SummaryDraft:
    """A summariser's answer: safe summary text plus provenance for compaction/summary."""

    summary: tuple[dict[str, Any], ...]
    provider: str
    model: str
    raw_output: tuple[dict[str, Any], ...] | None = None
    llm_stream_call: bool = False
    max_tokens: int | None = None
    usage: dict[str, int] | None = None


class Summariser(Protocol):
    """Anything that turns shadowed messages into a summary; the transaction owns the rest."""

    def summarise(self, request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        """Summarise; raise to fail the attempt (the bracket then closes with the error)."""
        ...


def _has_image(blocks: Sequence[Any]) -> bool:
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "image":
            return True
        if block.get("type") == "tool-result" and _has_image(block.get("content") or []):
            return True
    return False


def safe_summary(output: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Keep only text blocks; reject images and whitespace-only output."""
    if _has_image(output):
        raise SummaryError(
            "summary output contains an image; a checkpoint carries text only",
            "UNSUPPORTED_CONTENT",
        )
    text = tuple(block for block in output if block.get("type") == "text")
    if not any(str(block.get("text", "")).strip() for block in text):
        raise SummaryError(
            "summarization returned no text summary content; expected at least one non-blank "
            "text block",
            "EMPTY",
        )
    return text


def frame_summary(summary: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checkpoint content: preamble and open tag, the summary blocks, the close tag."""
    return [
        {"type": "text", "text": f"{CHECKPOINT_PREAMBLE}\n\n{OPEN_TAG}"},
        *[dict(block) for block in summary],
        {"type": "text", "text": CLOSE_TAG},
    ]


def _message_line(message: SessionMessage) -> str:
    pieces: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            pieces.append(block.text)
        elif block.type == "tool-call":
            pieces.append(f"called {getattr(block, 'name', '?')}")
        elif block.type == "tool-result":
            error = " (error)" if getattr(block, "is_error", False) else ""
            pieces.append(f"tool result{error}")
    return " ".join(" ".join(pieces).split())


@dataclass
class TextSummariser:
    """The deterministic text-only summariser: one clipped line per shadowed message."""

    provider: str = "reference"
    model: str = "text-summariser"
    line_chars: int = 80
    max_chars: int = 600
    calls: list[SummarisationInput] = field(default_factory=list)

    def summarise(self, request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        """Summarise by clipping each message to its first words, within max_chars."""
        self.calls.append(request)
        if signal is not None:
            signal.throw_if_aborted()
        lines: list[str] = []
        used = 0
        for message in request.messages:
            line = _message_line(message)
            if not line:
                continue
            if len(line) > self.line_chars:
                line = line[: self.line_chars - 3] + "..."
            entry = f"- {message.role}: {line}"
            if used + len(entry) > self.max_chars:
                lines.append("- (later messages omitted)")
                break
            lines.append(entry)
            used += len(entry) + 1
        text = "\n".join(lines) if lines else "- (no text content)"
        blocks = ({"type": "text", "text": text},)
        return SummaryDraft(
            summary=blocks, provider=self.provider, model=self.model, raw_output=blocks
        )


SummariseFn = Callable[[SummarisationInput, AbortSignal | None], SummaryDraft]


@dataclass
class FunctionSummariser:
    """Adapts a plain function into a Summariser (tests and custom backends)."""

    function: SummariseFn

    def summarise(self, request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        """Delegate to the wrapped function."""
        return self.function(request, signal)
