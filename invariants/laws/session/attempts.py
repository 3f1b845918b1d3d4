"""The appended events of a session compaction, grouped by compaction bracket."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from compactcheck.invariants.laws.session.reading import event_data, is_rewrite
from compactcheck.invariants.session.envelope import SessionEvent


@dataclass
class Attempt:
    """One compaction bracket among the appended events (start may be missing if malformed)."""

    start: SessionEvent | None
    summary: SessionEvent | None = None
    checkpoints: list[SessionEvent] = field(default_factory=list)
    inside: list[SessionEvent] = field(default_factory=list)
    end: SessionEvent | None = None

    @property
    def name(self) -> str:
        """The bracket's compactionId as it reads in a sentence."""
        for event in (self.start, self.summary, self.end):
            compaction_id = event_data(event).get("compactionId")
            if isinstance(compaction_id, str):
                return repr(compaction_id)
        return "(no id)"

    @property
    def failed(self) -> bool:
        """Whether the bracket ended with an error."""
        return self.end is not None and "error" in event_data(self.end)

    @property
    def succeeded(self) -> bool:
        """Whether the bracket ended without an error."""
        return self.end is not None and "error" not in event_data(self.end)

    def shadowed_seqs(self) -> list[int] | None:
        """The seqs the summary says it shadows; None where it says nothing usable."""
        seqs = event_data(self.summary).get("shadowedSeqs")
        if isinstance(seqs, list) and all(type(seq) is int for seq in seqs):
            return seqs
        return None


@dataclass
class Appended:
    """The appended events grouped by compaction bracket."""

    attempts: list[Attempt]
    loose_rewrites: list[SessionEvent]


def group(appended: Iterable[SessionEvent]) -> Appended:
    """Group appended events by bracket; a summary or end with no start opens one of its own."""
    attempts: list[Attempt] = []
    loose: list[SessionEvent] = []
    current: Attempt | None = None
    for event in appended:
        kind = event.type
        if kind == "compaction/start":
            current = Attempt(event)
            attempts.append(current)
            continue
        if current is None:
            if kind in ("compaction/summary", "compaction/end"):
                current = Attempt(None)
                attempts.append(current)
            else:
                if is_rewrite(event):
                    loose.append(event)
                continue
        if kind == "compaction/summary" and current.summary is None:
            current.summary = event
        elif is_rewrite(event):
            current.checkpoints.append(event)
        elif kind == "compaction/end":
            current.end = event
            current = None
        else:
            current.inside.append(event)
    return Appended(attempts, loose)
