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
from collections import Counter as Tally
from dataclasses import dataclass

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.reading import (
    MessageKey,
    Messages,
    call_ids,
    label,
    message_key,
)
from compactcheck.invariants.messages import ChatMessage, SystemMessage, ToolMessage, content_text
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness

# The slot of an output system message that is no input message: a system prompt rewritten to
# hold a summary (rolling-summary memories) still stands in the system prompt's place. Its
# content is ``constraints_preserved``'s to judge. (A key is a tuple, an identity a string: the
# slots never collide.)
_SYSTEM = "system"


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


def _identity_of(key: MessageKey) -> str | None:
    """What ties a changed message to its original: its tool call ids, read off its key.

    "result:ID" for the result of call ID, "calls:ID1,ID2" for a message that makes calls, None
    for any other message.
    """
    _, _, _, calls, call_id = key
    if call_id is not None:
        return f"result:{call_id}"
    return f"calls:{','.join(call[0] for call in calls)}" if calls else None


class _Matcher:
    """Matches output messages to input positions, leftmost forward or rightmost backward.

    A bound only moves one way during a pass, so each position list is walked once per pass:
    the matching is linear even when one text ("Go on.") repeats many times.
    """

    def __init__(self, positions: dict[object, list[int]]) -> None:
        self.positions = positions
        self.ahead: dict[object, int] = {}
        self.behind: dict[object, int] = {}

    def first_above(self, slot: object, bound: int) -> int | None:
        """The leftmost input position of ``slot`` above ``bound``."""
        options = self.positions[slot]
        cursor = self.ahead.get(slot, 0)
        while cursor < len(options) and options[cursor] <= bound:
            cursor += 1
        self.ahead[slot] = cursor
        return options[cursor] if cursor < len(options) else None

    def last_below(self, slot: object, bound: int) -> int | None:
        """The rightmost input position of ``slot`` below ``bound``."""
        options = self.positions[slot]
        cursor = self.behind.get(slot, len(options) - 1)
        while cursor >= 0 and options[cursor] >= bound:
            cursor -= 1
        self.behind[slot] = cursor
        return options[cursor] if cursor >= 0 else None


@dataclass(frozen=True)
class Moved:
    """A kept output message that cannot sit where it does without reordering the input."""

    out_index: int
    original: int
    # The kept output message it sits on the wrong side of, and that one's input position.
    bound_out: int
    bound: int


@dataclass(frozen=True)
class Alignment:
    """Which output message is which input message, read once for the laws on what is kept.

    ``kept`` maps each output message kept in order to its input position, matched leftmost;
    ``latest`` maps the same messages to their rightmost possible positions (a text that
    repeats, "Go on.", can be either copy). ``changed`` lists the kept messages tied to their
    original by a tool call id rather than by their content, with that original; ``new`` the
    output messages that are no input message (summaries, notes, placeholders, and the extra
    copies of a text the input held fewer times); ``moved`` the kept ones out of order.
    """

    kept: dict[int, int]
    latest: dict[int, int]
    changed: tuple[tuple[int, int], ...]
    new: tuple[int, ...]
    moved: tuple[Moved, ...]
    copies: frozenset[int]


def _positions(before: Messages, keys: list[MessageKey]) -> dict[object, list[int]]:
    """Each input message's positions by its key, and by its identity where an output needs it."""
    positions: dict[object, list[int]] = {}
    before_keys = [message_key(message) for message in before]
    for index, key in enumerate(before_keys):
        positions.setdefault(key, []).append(index)
    # The input's identities are read only when an output message that is no input message has
    # one: usually none has.
    if any(key not in positions and _identity_of(key) is not None for key in keys):
        for index, key in enumerate(before_keys):
            identity = _identity_of(key)
            if identity is not None:
                positions.setdefault(identity, []).append(index)
    if any(key[0] == "system" and key not in positions for key in keys):
        for index, message in enumerate(before):
            if isinstance(message, SystemMessage):
                positions.setdefault(_SYSTEM, []).append(index)
    return positions


def _extra_copies(keys: list[MessageKey], positions: dict[object, list[int]]) -> set[int]:
    """The output positions of copies of a text beyond those the input held: new messages.

    A compactor's "Skipped 30 messages." note can repeat an earlier one word for word: the last
    copies are new messages, not kept ones moved out of order.
    """
    extra = Tally(key for key in keys if key in positions)
    for key in extra:
        extra[key] -= len(positions[key])
    written: set[int] = set()
    from_end: Tally[object] = Tally()
    for out_index in range(len(keys) - 1, -1, -1):
        key = keys[out_index]
        if extra[key] > 0 and from_end[key] < extra[key]:
            written.add(out_index)
        from_end[key] += 1
    return written


# The alignments of the last few compactions: the laws on what is kept and the pruning measure
# of one compaction read the same pair of lists.
_ALIGNED: list[tuple[Messages, Messages, Alignment]] = []


def alignment(before: Messages, after: Messages) -> Alignment:
    """How the output's messages align with the input's; linear in both lengths.

    Reused for the very same tuples (which cannot change), as ``reassertions`` is.
    """
    for held_before, held_after, found in _ALIGNED:
        if held_before is before and held_after is after:
            return found
    found = _align(before, after)
    if type(before) is tuple and type(after) is tuple:
        _ALIGNED.insert(0, (before, after, found))
        del _ALIGNED[4:]
    return found


def _align(before: Messages, after: Messages) -> Alignment:
    keys = [message_key(message) for message in after]
    positions = _positions(before, keys)
    copies = _extra_copies(keys, positions)
    slots: list[object | None] = []
    for out_index, key in enumerate(keys):
        if out_index in copies:
            slots.append(None)
        elif key in positions:
            slots.append(key)
        elif (identity := _identity_of(key)) is not None and identity in positions:
            slots.append(identity)
        elif key[0] == "system" and _SYSTEM in positions:
            slots.append(_SYSTEM)
        else:
            slots.append(None)
    matcher = _Matcher(positions)
    kept: dict[int, int] = {}
    new: list[int] = []
    moved: list[Moved] = []
    lowest, lowest_out = -1, -1
    for out_index, slot in enumerate(slots):
        if slot is None:
            new.append(out_index)
            continue
        chosen = matcher.first_above(slot, lowest)
        if chosen is not None:
            kept[out_index] = lowest = chosen
            lowest_out = out_index
        elif slot == _SYSTEM:
            # A second rewritten system message, or one below the kept ones: a new message.
            new.append(out_index)
        else:
            moved.append(Moved(out_index, positions[slot][0], lowest_out, lowest))
    latest: dict[int, int] = {}
    highest = len(before)
    for out_index in sorted(kept, reverse=True):
        slot = slots[out_index]
        assert slot is not None
        # Every kept message matched leftmost, so a rightmost match below the next one exists.
        chosen = matcher.last_below(slot, highest)
        assert chosen is not None
        latest[out_index] = highest = chosen
    changed = tuple(
        (out_index, kept[out_index])
        for out_index in sorted(kept)
        if isinstance(slots[out_index], str) and slots[out_index] != _SYSTEM
    )
    return Alignment(kept, latest, changed, tuple(new), tuple(moved), frozenset(copies))


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
    if _identity_of(message_key(before[moved.original])) is not None:
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
