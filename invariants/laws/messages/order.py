"""The messages laws on what is kept: the tail, the order, the content, whole tool results.

A compactor keeps some input messages, drops others and writes new ones in their place
(summaries, notes, placeholders). ``alignment`` reads which output message is which input
message once; four laws judge it, each a promise a compactor can make or waive on its own: the
last message stays last, kept messages keep their order (and each new message stands where
messages were dropped), a kept message keeps its content, and a kept tool result keeps its
text rather than a shorter placeholder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.alignment import (
    Alignment,
    Moved,
    alignment,
    identity_of,
)
from compactcheck.invariants.laws.messages.reading import Messages, call_ids, label, message_key
from compactcheck.invariants.messages import ChatMessage, SystemMessage, ToolMessage, content_text
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness


@invariant(
    "messages",
    "recent_tail_preserved",
    "the last input message is the last output message, verbatim (a pending tool call may go)",
)
def recent_tail_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The most recent message survives, in last place."""
    del facts
    if not before:
        return Finding("recent_tail_preserved", False)
    last = before[-1]
    key = message_key(last)
    if after and message_key(after[-1]) == key:
        return Finding("recent_tail_preserved", True)
    at = next((j for j, m in enumerate(after) if message_key(m) == key), None)
    # The input ends on calls whose results have not arrived; dropping them whole is allowed
    # (pairing judges what happens to them), keeping them anywhere but last is not.
    pending = bool(call_ids(last))
    if pending and at is None:
        return Finding("recent_tail_preserved", False)
    where = f"it is at output index {at}" if at is not None else "it is not in the output"
    tail = after[-1] if after else None
    violation = Violation(
        "recent_tail_preserved",
        f"the last input message ({label(last)}, input index {len(before) - 1}) is not the "
        f"last output message; {where}",
        witness(last, tail),
        value_diff(last.to_json_data(), tail.to_json_data() if tail is not None else None),
    )
    return Finding("recent_tail_preserved", True, (violation,))


@invariant(
    "messages",
    "order_preserved",
    "kept messages keep their relative order, and each new message (a summary, a note) stands "
    "where input messages were dropped; any number of summaries, a summary merged into the "
    "system message, and repeated texts are allowed",
)
def order_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Kept messages are in their input order; every summary stands in place of what it replaces."""
    del facts
    aligned = alignment(before, after)
    found = [
        _moved(after, moved) for moved in aligned.moved if not _rewritten(before, aligned, moved)
    ]
    if not found and len(aligned.kept) < len(before):
        # Something was dropped: each new message must stand in a gap that lost a message. (With
        # nothing dropped a new message replaces nothing: a note added, which this law allows.)
        found.extend(_misplaced(before, after, aligned))
    exercised = len(aligned.kept) >= 2 or (bool(aligned.new) and bool(aligned.kept))
    return Finding("order_preserved", exercised, tuple(found))


def _gap(before: Messages, aligned: Alignment, out_index: int) -> tuple[int, int]:
    """The widest span of input positions an output message not kept in order can stand for.

    The earlier kept message around it as early as it can be, the later one as late.
    """
    earlier = [kept for kept in aligned.kept if kept < out_index]
    later = [kept for kept in aligned.kept if kept > out_index]
    low = aligned.kept[max(earlier)] if earlier else -1
    high = aligned.latest[min(later)] if later else len(before)
    return low, high


def _rewritten(before: Messages, aligned: Alignment, moved: Moved) -> bool:
    """Whether a plain text out of input order reads as a new message that repeats an old one.

    Agent Framework collapses a tool group into a "[Tool results: ...]" line; a later round can
    write a line word for word the same as one an earlier round left in the input, in the span
    it drops. Text alone cannot tell that new line from the old one moved, so a message with no
    tool call id (nothing ties it to one input message) that stands where input messages were
    dropped is read as new, as any summary there is. One with a call id, or one beside a kept
    message with nothing dropped between them, is still a kept message out of order.
    """
    if identity_of(message_key(before[moved.original])) is not None:
        return False
    low, high = _gap(before, aligned, moved.out_index)
    return high - low > 1


def _moved(after: Messages, moved: Moved) -> Violation:
    """A kept message that cannot sit where it does without reordering or repeating the input."""
    message = after[moved.out_index]
    bound_out = moved.bound_out
    beside = (
        f", on the wrong side of the {label(after[bound_out])} at output index {bound_out} "
        f"(input index {moved.bound})"
        if 0 <= bound_out < len(after) and bound_out != moved.out_index
        else ""
    )
    return Violation(
        "order_preserved",
        f"the {label(message)} at output index {moved.out_index} is out of its input order or "
        f"repeated; it was at input index {moved.original}{beside}",
        witness(message, after[bound_out] if beside else None),
    )


def _misplaced(before: Messages, after: Messages, aligned: Alignment) -> list[Violation]:
    """The new messages that stand where no input message was dropped, each once."""
    found: list[Violation] = []
    ordered = sorted(aligned.kept)
    at = 0
    for out_index in aligned.new:
        while at < len(ordered) and ordered[at] < out_index:
            at += 1
        previous = ordered[at - 1] if at > 0 else None
        following = ordered[at] if at < len(ordered) else None
        # The widest gap any matching leaves: the earlier kept message as early as it can be,
        # the later one as late.
        low = aligned.kept[previous] if previous is not None else -1
        high = aligned.latest[following] if following is not None else len(before)
        if high - low > 1:
            continue
        message = after[out_index]
        what = (
            "a further copy of an input message"
            if out_index in aligned.copies
            else "not in the input (a summary or a note)"
        )
        where = (
            f"between input messages {low} and {high}, which are adjacent"
            if low >= 0 and high < len(before)
            else "before the first input message, where nothing was dropped"
            if low < 0
            else "after the last input message, where nothing was dropped"
        )
        neighbour = after[previous] if previous is not None else None
        following_message = after[following] if following is not None else None
        found.append(
            Violation(
                "order_preserved",
                f"the {label(message)} at output index {out_index} is {what}, but stands "
                f"where no input message was dropped: {where}",
                witness(neighbour, message, following_message),
            )
        )
    return found


@invariant(
    "messages",
    "kept_messages_verbatim",
    "a message the output keeps (tied to the input by its tool call ids) keeps its content: "
    "call names and arguments, texts (a tool result shortened to a placeholder is judged by "
    "tool_results_unpruned)",
)
def kept_messages_verbatim(before: Messages, after: Messages, facts: Facts) -> Finding:
    """A kept call or result is the input's, not an edited copy of it."""
    del facts
    aligned = alignment(before, after)
    found = [
        Violation(
            "kept_messages_verbatim",
            f"the {label(after[out_index])} at output index {out_index} changed its content "
            f"from input index {in_index}",
            witness(before[in_index], after[out_index]),
            value_diff(before[in_index].to_json_data(), after[out_index].to_json_data()),
        )
        for out_index, in_index in aligned.changed
        if _pruned(before[in_index], after[out_index]) is None
    ]
    # Every kept message was read for its content (a changed one is tied to its input by a
    # call id; any other is kept only verbatim), as order reads them for their order.
    exercised = any(not isinstance(after[o], SystemMessage) for o in aligned.kept)
    return Finding("kept_messages_verbatim", exercised, tuple(found))


# A note longer than this that replaces a result is read as an edit of it, not a placeholder.
_PLACEHOLDER_MAX = 200
_WORD = re.compile(r"\w+")


def _pruned(original: ChatMessage, kept: ChatMessage) -> int | None:
    """The characters a kept tool result lost to a placeholder; None when it did not.

    A placeholder either shortens the result, or replaces it with a short note that shares no
    word with it (``[cleared]`` for ``3 matches``: a short result may be shorter than the note
    that stands for it); a text that rewords the result ("0 matches") is an edit of it.
    """
    if not (isinstance(original, ToolMessage) and isinstance(kept, ToolMessage)):
        return None
    was, now = content_text(original.content), content_text(kept.content)
    if len(now) <= _PLACEHOLDER_MAX and not _words(now) & _words(was):
        return len(was)
    return len(was) - len(now) if len(now) < len(was) else None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


@dataclass(frozen=True)
class Pruning:
    """How much tool result text one compaction replaced by placeholders."""

    # The characters of the input's results that the output still answers by call id, and
    # the characters of those that placeholders took the place of.
    present: int
    pruned: int
    # Each pruned result: its output and input positions.
    results: tuple[tuple[int, int], ...]


def pruning(before: Messages, after: Messages) -> Pruning:
    """The tool result text the output keeps answered by call id, and how much of it is pruned."""
    aligned = alignment(before, after)
    present = pruned = 0
    results: list[tuple[int, int]] = []
    changed = dict(aligned.changed)
    for out_index, in_index in aligned.kept.items():
        original = before[in_index]
        if not isinstance(original, ToolMessage):
            continue
        present += len(content_text(original.content))
        lost = _pruned(original, after[out_index]) if out_index in changed else None
        if lost is not None:
            pruned += lost
            results.append((out_index, in_index))
    return Pruning(present, pruned, tuple(results))


@invariant(
    "messages",
    "tool_results_unpruned",
    "a tool result the output keeps keeps its text: not replaced by a shorter placeholder or "
    "truncated (waive it for a compactor that prunes old results by design)",
)
def tool_results_unpruned(before: Messages, after: Messages, facts: Facts) -> Finding:
    """A kept tool result is whole: the model can read what the call returned."""
    del facts
    pruned = pruning(before, after)
    if not pruned.results:
        # A compactor handed tool results chose whether to keep them whole.
        had_results = any(isinstance(message, ToolMessage) for message in before)
        return Finding("tool_results_unpruned", had_results)
    out_index, in_index = pruned.results[0]
    more = len(pruned.results) - 1
    also = f" ({more} more result(s) pruned too)" if more else ""
    original, kept = before[in_index], after[out_index]
    was, now = len(content_text(original.content)), len(content_text(kept.content))
    how = (
        f"was pruned from {was} to {now} characters"
        if now < was
        else f"was replaced by a placeholder of {now} characters (its {was} were the result)"
    )
    violation = Violation(
        "tool_results_unpruned",
        f"the {label(kept)} at output index {out_index} {how} (input index {in_index}){also}",
        witness(original, kept),
        value_diff(original.to_json_data(), kept.to_json_data()),
    )
    return Finding("tool_results_unpruned", True, (violation,))
