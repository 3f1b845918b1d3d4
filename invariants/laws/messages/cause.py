"""Which output message a loss is owed to: the one the compaction wrote, not one it kept.

A compaction that keeps a system prompt word for word and rewrites the rest into a summary
loses what it loses in the summary: a finding points there, not at the message kept as it was.
"""

from __future__ import annotations

from compactcheck.invariants.laws.messages.reading import Messages, message_key


def written(before: Messages, after: Messages) -> list[int]:
    """The output indices of the messages that are no copy of an input message."""
    kept = {message_key(message) for message in before}
    return [index for index, message in enumerate(after) if message_key(message) not in kept]


def copied(before: Messages, message_index: int, after: Messages) -> bool:
    """Whether the output message at ``message_index`` is a copy of an input message."""
    key = message_key(after[message_index])
    return any(message_key(message) == key for message in before)


def owed_to(before: Messages, after: Messages, index: int | None = None) -> int | None:
    """The output message a loss is owed to: ``index`` unless that one is a copy of an input
    message, else the first message the compaction wrote (None when it wrote none)."""
    if index is not None and not copied(before, index, after):
        return index
    new = written(before, after)
    return new[0] if new else index


__all__ = ["copied", "owed_to", "written"]
