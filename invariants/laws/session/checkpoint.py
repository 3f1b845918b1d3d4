"""The session laws on the checkpoint: a clean summary, framed, marked and citing its sources."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.session.attempts import Attempt, group
from compactcheck.invariants.laws.session.reading import event_data, label, witness
from compactcheck.invariants.session.bracket import ABSENT
from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore
from compactcheck.invariants.session.messages import is_compact_checkpoint_source
from compactcheck.invariants.verdict import Finding, Violation, value_diff

OPEN_TAG = "<compacted-summary>"
CLOSE_TAG = "</compacted-summary>"


def _blocks(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _kinds(blocks: Iterable[Any]) -> list[str]:
    return sorted(
        {str(block.get("type")) if isinstance(block, dict) else "?" for block in blocks} - {"text"}
    )


def _text(block: Any) -> str | None:
    if isinstance(block, dict) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else None
    return None


def _framing_problem(content: list[Any], summary: list[Any] | None) -> str | None:
    if len(content) < 3:
        return f"has {len(content)} block(s); a framed checkpoint has preamble, summary, close"
    head, tail = _text(content[0]), _text(content[-1])
    suffix = f"\n\n{OPEN_TAG}"
    if head is None or not head.endswith(suffix) or not head[: -len(suffix)].strip():
        return f"does not open with the preamble, a blank line and {OPEN_TAG}"
    if tail != CLOSE_TAG:
        return f"does not close with a {CLOSE_TAG} block"
    if summary is not None and content[1:-1] != summary:
        return "frames blocks that differ from its compaction/summary's summary"
    return None


@invariant(
    "session",
    "summary_hygiene",
    "the summary is non-blank text only, and the checkpoint frames exactly that text between "
    "the preamble and the compacted-summary tags, with no tool calls, reasoning or images",
)
def summary_hygiene(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Summary hygiene (spec 4.7, 7.1, 8.1.9)."""
    del before, facts
    found: list[Violation] = []
    grouped = group(after.appended)
    exercised = False
    for attempt in grouped.attempts:
        summary_blocks: list[Any] | None = None
        if attempt.summary is not None:
            exercised = True
            summary_blocks = _blocks(event_data(attempt.summary).get("summary"))
            bad = _kinds(summary_blocks)
            if bad:
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"{label(attempt.summary)} carries {', '.join(bad)} block(s); a "
                        "summary is text only",
                        witness(attempt.summary),
                    )
                )
            elif not any((_text(block) or "").strip() for block in summary_blocks):
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"{label(attempt.summary)} has no non-blank text",
                        witness(attempt.summary),
                    )
                )
        for checkpoint in attempt.checkpoints:
            exercised = True
            content = _blocks(event_data(checkpoint).get("content"))
            bad = _kinds(content)
            problem = (
                f"carries {', '.join(bad)} block(s); a checkpoint is text only"
                if bad
                else _framing_problem(content, summary_blocks)
            )
            if problem is not None:
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"checkpoint {label(checkpoint)} {problem}",
                        witness(attempt.summary, checkpoint),
                    )
                )
    return Finding("summary_hygiene", exercised, tuple(found))


def _identity_problem(attempt: Attempt, checkpoint: SessionEvent) -> str | None:
    source = event_data(checkpoint).get("source")
    if not is_compact_checkpoint_source(source):
        return (
            f"replaces surface nodes inside compaction {attempt.name} but its source {source!r} "
            "lacks the checkpoint marker {kind: plugin, plugin: compact}"
        )
    assert isinstance(source, dict)
    start = event_data(attempt.start)
    if source.get("compactionId") != start.get("compactionId"):
        return (
            f"names compactionId {source.get('compactionId')!r}; its bracket is "
            f"{start.get('compactionId')!r}"
        )
    if source.get("sourceCommandId", ABSENT) != start.get("sourceCommandId", ABSENT):
        return (
            f"names sourceCommandId {source.get('sourceCommandId', ABSENT)!r}; its bracket has "
            f"{start.get('sourceCommandId', ABSENT)!r}"
        )
    return None


@invariant(
    "session",
    "checkpoint_identifiable",
    "every committed compaction appends one checkpoint with the compact marker and its "
    "compaction's ids, replacing the summary's range and citing [start, summary, ...shadowed]",
)
def checkpoint_identifiable(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Checkpoint identity and provenance (spec 2.1, 2.2 step 4, G-c, G-f)."""
    del before, facts
    grouped = group(after.appended)
    found: list[Violation] = []
    exercised = bool(grouped.loose_rewrites)
    for attempt in grouped.attempts:
        if attempt.succeeded or attempt.checkpoints:
            exercised = True
        if attempt.succeeded and not attempt.checkpoints:
            found.append(
                Violation(
                    "checkpoint_identifiable",
                    f"compaction {attempt.name} ended without error ({label(attempt.end)}) but "
                    "no checkpoint was appended inside its bracket",
                    witness(attempt.start, attempt.summary, attempt.end),
                )
            )
        for checkpoint in attempt.checkpoints:
            problem = _identity_problem(attempt, checkpoint)
            if problem is not None:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"{label(checkpoint)} {problem}",
                        witness(attempt.start, checkpoint),
                    )
                )
                continue
            seqs = attempt.shadowed_seqs()
            if attempt.start is None or attempt.summary is None or seqs is None:
                continue
            cited = [attempt.start.seq, attempt.summary.seq, *seqs]
            shadow = event_data(attempt.summary).get("shadowedRange")
            op = {"op": "replace", **shadow} if isinstance(shadow, dict) else None
            if checkpoint.source_event_seqs != cited:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"checkpoint {label(checkpoint)} cites {checkpoint.source_event_seqs}; "
                        f"it must cite [start, summary, ...shadowedSeqs] = {cited}",
                        witness(attempt.summary, checkpoint),
                        value_diff(cited, checkpoint.source_event_seqs),
                    )
                )
            elif checkpoint.surface_op != op:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"checkpoint {label(checkpoint)} replaces {checkpoint.surface_op}; its "
                        f"summary's shadowedRange is {shadow}",
                        witness(attempt.summary, checkpoint),
                        value_diff(op, checkpoint.surface_op),
                    )
                )
    for rewrite in grouped.loose_rewrites:
        marked = is_compact_checkpoint_source(event_data(rewrite).get("source"))
        found.append(
            Violation(
                "checkpoint_identifiable",
                f"{label(rewrite)} rewrites the surface outside any compaction bracket"
                + ("" if marked else " and without the checkpoint marker"),
                witness(rewrite),
            )
        )
    return Finding("checkpoint_identifiable", exercised, tuple(found))
