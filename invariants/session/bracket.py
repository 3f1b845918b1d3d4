"""The compaction bracket grammar (rules C1-C7): start, summary, checkpoint, end, and owner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.errors import LogViolationError
from compactcheck.invariants.session.messages import is_compact_checkpoint_source


class _Absent:
    def __repr__(self) -> str:
        return "absent"


ABSENT: Any = _Absent()

COMPACTION_MARKERS = frozenset({"compaction/start", "compaction/summary", "compaction/end"})
# The kinds ``BracketTracker.apply`` commits anything for (keep in step with it; a checkpoint is
# a user/message): a caller that commits many events may skip it for the others.
BRACKETING_TYPES = frozenset(
    {"turn/start", "turn/end", "session/end-seed", "user/message", *COMPACTION_MARKERS}
)


@dataclass
class OpenBracket:
    """A compaction/start that has not been matched by its compaction/end yet."""

    compaction_id: str
    source_command_id: Any
    start_seq: int
    turn: int | None
    summarized: bool = False
    summary_seq: int | None = None
    checkpoint_seq: int | None = None
    # C7: a turn crossing is only judged once we know whether the bracket closes in this lifecycle.
    deferred_crossing: LogViolationError | None = None


def _owner_text(turn: int | None) -> str:
    return "standalone compaction" if turn is None else f"compaction for turn {turn}"


def is_checkpoint(event: SessionEvent) -> bool:
    """Whether an event is a compaction checkpoint: a replacing user/message from plugin compact."""
    return (
        event.type == "user/message"
        and event.is_replacement
        and isinstance(event.data, dict)
        and is_compact_checkpoint_source(event.data.get("source"))
    )


class BracketTracker:
    """Per-log state of the compaction invariant: the open turn and the open bracket."""

    def __init__(self, defer_crossings: bool = False) -> None:
        self.open_turn: int | None = None
        self.open: OpenBracket | None = None
        # Replay mode (C7): crossings are held until the bracket closes or an end-seed orphans it.
        self.defer_crossings = defer_crossings

    def check(self, event: SessionEvent) -> None:
        """Raise the first C rule the event breaks; change nothing."""
        kind = event.type
        if kind in ("turn/start", "turn/end"):
            if self.open is not None and self.open.deferred_crossing is None:
                violation = LogViolationError(
                    "C1",
                    event.seq,
                    f"{kind} cannot cross an open {_owner_text(self.open.turn)}; close the "
                    "compaction (compaction/end) before the turn boundary",
                )
                if not self.defer_crossings:
                    raise violation
        elif kind == "compaction/start":
            self._check_start(event)
        elif kind == "compaction/summary":
            self._check_summary(event)
        elif kind == "compaction/end":
            self._check_end(event)
            if self.open is not None and self.open.deferred_crossing is not None:
                raise self.open.deferred_crossing
        elif is_checkpoint(event):
            self._check_checkpoint(event)

    def apply(self, event: SessionEvent) -> None:
        """Commit an event that check() accepted."""
        kind, data = event.type, event.data
        if kind in ("turn/start", "turn/end"):
            if self.open is not None and self.open.deferred_crossing is None:
                self.open.deferred_crossing = LogViolationError(
                    "C1",
                    event.seq,
                    f"{kind} cannot cross an open {_owner_text(self.open.turn)}; the bracket was "
                    "closed later, so it was not a stale orphan",
                )
            turn = data.get("turn") if isinstance(data, dict) else None
            self.open_turn = turn if kind == "turn/start" and type(turn) is int else None
        elif kind == "compaction/start":
            self.open = OpenBracket(
                compaction_id=data["compactionId"],
                source_command_id=data.get("sourceCommandId", ABSENT),
                start_seq=event.seq,
                turn=data.get("turn"),
            )
        elif kind == "compaction/summary" and self.open is not None:
            self.open.summarized = True
            self.open.summary_seq = event.seq
        elif kind == "compaction/end" or kind == "session/end-seed":
            self.open = None
        elif is_checkpoint(event) and self.open is not None:
            self.open.checkpoint_seq = event.seq

    def _ids(self, event: SessionEvent, data: dict[str, Any], id_key: str = "compactionId") -> None:
        compaction_id = data.get(id_key, ABSENT)
        if not isinstance(compaction_id, str) or not compaction_id:
            raise LogViolationError(
                _rule(event.type, "a"),
                event.seq,
                f"{_subject(event)} compactionId must be a non-empty string; found "
                f"{compaction_id!r}",
            )
        command = data.get("sourceCommandId", ABSENT)
        if command is not ABSENT and (not isinstance(command, str) or not command):
            raise LogViolationError(
                _rule(
                    event.type, "b" if event.type in ("compaction/start", "user/message") else "a"
                ),
                event.seq,
                f"{_subject(event)} sourceCommandId must be a non-empty string when present; "
                f"found {command!r}",
            )

    def _owner_rule(self, event: SessionEvent, rule: str, owner: Any) -> None:
        subject = _subject(event)
        if owner is None:
            if self.open_turn is not None:
                raise LogViolationError(
                    rule,
                    event.seq,
                    f"{subject} is standalone but turn {self.open_turn} is open; "
                    "standalone compaction runs only between turns",
                )
            return
        if type(owner) is not int:
            raise LogViolationError(
                rule, event.seq, f"{subject} turn must be an integer or null; found {owner!r}"
            )
        if self.open_turn is None:
            raise LogViolationError(
                rule,
                event.seq,
                f"{subject} for turn {owner} appended outside any open turn; "
                "numbered compaction must sit inside its turn",
            )
        if self.open_turn != owner:
            raise LogViolationError(
                rule, event.seq, f"{subject} names turn {owner} but open turn is {self.open_turn}"
            )

    def _require_open(self, event: SessionEvent, rule: str) -> OpenBracket:
        if self.open is None:
            raise LogViolationError(
                rule,
                event.seq,
                f"{_subject(event)} has no matching compaction/start; start a compaction first",
            )
        return self.open

    def _match(
        self, event: SessionEvent, data: dict[str, Any], id_rule: str, cmd_rule: str
    ) -> None:
        assert self.open is not None
        compaction_id = data.get("compactionId")
        if compaction_id != self.open.compaction_id:
            raise LogViolationError(
                id_rule,
                event.seq,
                f"{_subject(event)} id {compaction_id} does not match compaction/start id "
                f"{self.open.compaction_id}",
            )
        command = data.get("sourceCommandId", ABSENT)
        if command != self.open.source_command_id:
            raise LogViolationError(
                cmd_rule,
                event.seq,
                f"{_subject(event)} sourceCommandId {command!r} does not match compaction/start "
                f"sourceCommandId {self.open.source_command_id!r}",
            )

    def _check_start(self, event: SessionEvent) -> None:
        data = _data(event)
        self._ids(event, data)
        if self.open is not None:
            owner = "standalone compaction" if self.open.turn is None else f"turn {self.open.turn}"
            raise LogViolationError(
                "C2c",
                event.seq,
                f"compaction/start while {owner} is still compacting; end it before starting "
                "another",
            )
        self._owner_rule(event, "C2d", data.get("turn", ABSENT))

    def _check_summary(self, event: SessionEvent) -> None:
        data = _data(event)
        self._ids(event, data)
        bracket = self._require_open(event, "C3b")
        self._match(event, data, "C3c", "C3d")
        self._owner_rule(event, "C3e", bracket.turn)
        if bracket.summarized:
            raise LogViolationError(
                "C3f", event.seq, "compaction/summary repeated within one compaction"
            )
        seqs = data.get("shadowedSeqs")
        if not isinstance(seqs, list) or not seqs:
            raise LogViolationError(
                "C3g", event.seq, f"shadowedSeqs must be a non-empty list; found {seqs!r}"
            )
        shadow_range = data.get("shadowedRange")
        if (
            not isinstance(shadow_range, dict)
            or shadow_range.get("start") != seqs[0]
            or shadow_range.get("end") != seqs[-1]
        ):
            raise LogViolationError(
                "C3h",
                event.seq,
                f"shadowedRange must match the first and last shadowedSeqs; found range "
                f"{shadow_range!r} for seqs {seqs[0]}..{seqs[-1]}",
            )
        count = data.get("shadowedTokenCount")
        if type(count) is not int or count < 0:
            raise LogViolationError(
                "C3i",
                event.seq,
                f"shadowedTokenCount must be a non-negative integer; found {count!r}",
            )

    def _check_end(self, event: SessionEvent) -> None:
        data = _data(event)
        self._ids(event, data)
        bracket = self._require_open(event, "C4b")
        self._match(event, data, "C4c", "C4d")
        turn = data.get("turn", ABSENT)
        if turn != bracket.turn or (turn is not None and type(turn) is not int):
            raise LogViolationError(
                "C4e",
                event.seq,
                f"compaction/end owner {turn!r} does not match compaction/start owner "
                f"{bracket.turn!r}",
            )
        self._owner_rule(event, "C4f", bracket.turn)
        if "error" not in data and not bracket.summarized:
            raise LogViolationError(
                "C4g",
                event.seq,
                "successful compaction/end requires one compaction/summary; add the summary or "
                "close with an error",
            )

    def _check_checkpoint(self, event: SessionEvent) -> None:
        source = _data(event)["source"]
        self._ids(event, source)
        self._require_open(event, "C5c")
        self._match(event, source, "C5d", "C5e")


def _data(event: SessionEvent) -> dict[str, Any]:
    if not isinstance(event.data, dict):
        raise LogViolationError(
            "E2", event.seq, f"{event.type} data must be an object; found {event.data!r}"
        )
    return event.data


def _subject(event: SessionEvent) -> str:
    return "compaction checkpoint" if event.type == "user/message" else event.type


def _rule(kind: str, letter: str) -> str:
    number = {
        "compaction/start": "C2",
        "compaction/summary": "C3",
        "compaction/end": "C4",
        "user/message": "C5",
    }[kind]
    return f"{number}{letter}"
