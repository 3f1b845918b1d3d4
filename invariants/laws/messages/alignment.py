"""Which output message is which input message: read once for the laws on what is kept.

A compactor keeps some input messages, drops others and writes new ones in their place
(summaries, notes, placeholders). An output message is the input message it equals (its key); a
changed one is tied to its original by its tool call ids; a rewritten system message stands in
the system prompt's place. Kept messages are matched leftmost and rightmost, in linear time even
when one text repeats many times.
"""

from __future__ import annotations

from collections import Counter as Tally
from dataclasses import dataclass

from compactcheck.invariants.laws.messages.reading import MessageKey, Messages, message_key
from compactcheck.invariants.messages import SystemMessage

# The slot of an output system message that is no input message: a system prompt rewritten to
# hold a summary (rolling-summary memories) still stands in the system prompt's place. Its
# content is ``constraints_preserved``'s to judge. (A key is a tuple, an identity a string: the
# slots never collide.)
_SYSTEM = "system"


def identity_of(key: MessageKey) -> str | None:
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
    if any(key not in positions and identity_of(key) is not None for key in keys):
        for index, key in enumerate(before_keys):
            identity = identity_of(key)
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
        elif (identity := identity_of(key)) is not None and identity in positions:
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
