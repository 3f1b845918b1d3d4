"""The messages laws on order: kept messages in place and unchanged, one summary for one span."""

from __future__ import annotations

from collections import Counter as Tally

from invariants.facts import Facts
from invariants.law import invariant
from invariants.laws.messages.reading import (
    MessageKey,
    Messages,
    call_ids,
    label,
    message_key,
)
from invariants.verdict import Finding, Violation, value_diff, witness


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


@invariant(
    "messages",
    "order_preserved",
    "kept messages keep their order and content; one summary replaces one contiguous span",
)
def order_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Kept messages are unchanged and in order; at most one summary, in place of one span."""
    del facts
    positions: dict[object, list[int]] = {}
    before_keys = [message_key(message) for message in before]
    for index, key in enumerate(before_keys):
        positions.setdefault(key, []).append(index)
    keys = [message_key(message) for message in after]
    # The input's identities (a key is a tuple, an identity a string: they never collide) are
    # read only when an output message that is no input message has one: usually none has.
    if any(key not in positions and _identity_of(key) is not None for key in keys):
        for index, key in enumerate(before_keys):
            identity = _identity_of(key)
            if identity is not None:
                positions.setdefault(identity, []).append(index)
    found: list[Violation] = []
    # An output holding more copies of a text than the input did wrote the extra ones itself
    # (a compactor's "Skipped 30 messages." placeholder can repeat an earlier one word for word):
    # the last copies are new messages, not kept ones moved out of order.
    extra = Tally(key for key in keys if key in positions)
    for key in extra:
        extra[key] -= len(positions[key])
    written: set[int] = set()
    from_end: Tally[object] = Tally()
    for out_index in range(len(after) - 1, -1, -1):
        key = keys[out_index]
        if extra[key] > 0 and from_end[key] < extra[key]:
            written.add(out_index)
        from_end[key] += 1
    slots: list[object | None] = []
    summaries: list[int] = []
    for out_index, message in enumerate(after):
        key = keys[out_index]
        if out_index in written:
            slots.append(None)
            summaries.append(out_index)
        elif key in positions:
            slots.append(key)
        elif (identity := _identity_of(key)) is not None and identity in positions:
            original = positions[identity][0]
            found.append(
                Violation(
                    "order_preserved",
                    f"the {label(message)} at output index {out_index} changed its content "
                    f"from input index {original}",
                    witness(before[original], message),
                    value_diff(before[original].to_json_data(), message.to_json_data()),
                )
            )
            slots.append(identity)
        else:
            slots.append(None)
            summaries.append(out_index)
    if len(summaries) > 1:
        found.append(
            Violation(
                "order_preserved",
                f"{len(summaries)} output messages (indices "
                f"{', '.join(str(i) for i in summaries)}) are not in the input; a summary must "
                "replace one span with one message",
                witness(*(after[i] for i in summaries)),
            )
        )
    split = summaries[0] if summaries else len(after)
    matcher = _Matcher(positions)
    matched: dict[int, int] = {}
    # Messages before the summary match leftmost, those after it rightmost, so that repeated
    # texts ("Done.") leave the widest span to the summary.
    lowest, lowest_out = -1, -1
    for out_index in range(split):
        slot = slots[out_index]
        assert slot is not None
        chosen = matcher.first_above(slot, lowest)
        if chosen is None:
            found.append(_moved(before, after, out_index, slot, positions, lowest_out, lowest))
            continue
        matched[out_index] = lowest = chosen
        lowest_out = out_index
    highest, highest_out = len(before), -1
    for out_index in range(len(after) - 1, split, -1):
        slot = slots[out_index]
        if slot is None:
            continue
        chosen = matcher.last_below(slot, highest)
        if chosen is None or chosen <= lowest:
            bound_out, bound = (highest_out, highest) if chosen is None else (lowest_out, lowest)
            found.append(_moved(before, after, out_index, slot, positions, bound_out, bound))
            continue
        matched[out_index] = highest = chosen
        highest_out = out_index
    if len(summaries) == 1 and not found:
        found.extend(_span_violations(before, after, split, matched, lowest, highest))
    exercised = len(matched) >= 2 or (bool(summaries) and bool(matched))
    return Finding("order_preserved", exercised, tuple(found))


def _moved(
    before: Messages,
    after: Messages,
    out_index: int,
    slot: object,
    positions: dict[object, list[int]],
    bound_out: int,
    bound: int,
) -> Violation:
    """A kept message that cannot sit where it does without reordering or repeating the input."""
    message = after[out_index]
    original = positions[slot][0]
    beside = (
        f", on the wrong side of the {label(after[bound_out])} at output index {bound_out} "
        f"(input index {bound})"
        if 0 <= bound_out < len(after) and bound_out != out_index
        else ""
    )
    return Violation(
        "order_preserved",
        f"the {label(message)} at output index {out_index} is out of its input order or "
        f"repeated; it was at input index {original}{beside}",
        witness(message, after[bound_out] if beside else None),
    )


def _span_violations(
    before: Messages,
    after: Messages,
    summary: int,
    matched: dict[int, int],
    lowest: int,
    highest: int,
) -> list[Violation]:
    """Whether the single summary replaces one contiguous span, in that span's place."""
    kept = set(matched.values())
    dropped = [index for index in range(len(before)) if index not in kept]
    if not dropped:
        return []
    start, end = dropped[0], dropped[-1]
    if end - start + 1 == len(dropped) and lowest < start and highest > end:
        return []
    inside = next(((o, i) for o, i in matched.items() if start < i < end), None)
    if inside is not None:
        out_index, in_index = inside
        because = (
            f"the summary at output index {summary} replaces input messages {start}..{end}, "
            f"which are not contiguous: the {label(after[out_index])} at input index {in_index} "
            f"inside them is kept at output index {out_index}"
        )
        return [
            Violation(
                "order_preserved",
                because,
                witness(before[start], after[out_index], after[summary], before[end]),
            )
        ]
    because = (
        f"the summary at output index {summary} does not sit where the input messages "
        f"{start}..{end} it replaces were"
    )
    return [Violation("order_preserved", because, witness(before[start], after[summary]))]
