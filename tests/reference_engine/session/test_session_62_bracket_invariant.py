"""Spec 6.2: the bracket grammar C1-C7, on live sessions and on replayed logs, plus strict G/M."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants.session import LogViolationError, check_log, checkpoint_source
from compactcheck.reference_engine.session import Session
from tests.reference_engine.session.session_script import RawLog, user_data


def summary_data(
    cid: str = "k", seqs: tuple[int, ...] = (0,), tokens: int = 5, **extra: Any
) -> dict[str, Any]:
    return {
        "compactionId": cid,
        "summary": [{"type": "text", "text": "s"}],
        "shadowedRange": {"start": seqs[0], "end": seqs[-1]},
        "shadowedSeqs": list(seqs),
        "shadowedTokenCount": tokens,
        "provider": "p",
        "model": "m",
        **extra,
    }


def rule_of(log: RawLog, **kwargs: Any) -> str | None:
    violation = check_log(log.events, **kwargs)
    return None if violation is None else violation.rule


def test_numbered_success_and_failure_lifecycles_are_accepted() -> None:
    log = RawLog()
    seq = log.user()
    log.turn("start", 1)
    log.start(1)
    log.add("compaction/summary", summary_data(seqs=(seq,), tokens=58))
    log.end(1)
    log.start(1, "k2")
    log.end(1, "k2", error="boom")
    log.turn("end", 1)
    # Summary without checkpoint is fine for C rules; the strict G-b rule wants a checkpoint.
    assert rule_of(log) == "G-b"
    session = Session("s", log.events[:4])
    assert session.events[-1].type == "session/end-seed"


def test_standalone_lifecycles_between_turns_are_accepted() -> None:
    log = RawLog()
    log.start(None)
    log.end(None, error="x")
    log.turn("start", 1)
    log.turn("end", 1)
    log.start(None, "k2")
    log.end(None, "k2", error="y")
    assert rule_of(log) is None


def test_end_seed_clears_an_inherited_open_bracket() -> None:
    log = RawLog()
    log.start(None)
    session = Session("s", log.events)
    assert [e.type for e in session.events] == ["compaction/start", "session/end-seed"]
    session.append("compaction/start", {"compactionId": "new", "turn": None})
    session.append("compaction/end", {"compactionId": "new", "turn": None, "error": "x"})


def test_repair_turn_end_after_end_seed_clears_a_numbered_orphan() -> None:
    log = RawLog()
    log.turn("start", 1)
    log.start(1)
    session = Session("s", log.events)
    session.append("turn/end", {"turn": 1, "reason": {"kind": "interrupted"}})
    assert session.events[-1].type == "turn/end"


def test_inherited_turns_before_end_seed_of_a_standalone_orphan_replay() -> None:
    log = RawLog()
    log.start(None)
    log.turn("start", 1)
    log.turn("end", 1)
    log.add("session/end-seed", {})
    session = Session("s", log.events)
    session.append("turn/start", {"turn": 2})
    assert check_log(session.events) is None


def test_closed_standalone_bracket_containing_a_turn_fails_on_replay() -> None:
    log = RawLog()
    log.start(None)
    log.turn("start", 1)
    log.turn("end", 1)
    log.end(None, error="x")
    log.add("session/end-seed", {})
    with pytest.raises(
        LogViolationError, match="turn/start cannot cross an open standalone compaction"
    ):
        Session("s", log.events)
    assert rule_of(log) == "C1"


def test_open_numbered_trace_rebuilt_on_load_can_be_closed() -> None:
    log = RawLog()
    log.turn("start", 1)
    log.start(1)
    session = Session("s", [*log.events])
    # After end-seed the start is stale; a fresh bracket in the same turn may open and close.
    session.append("compaction/start", {"compactionId": "n", "turn": 1})
    session.append("compaction/end", {"compactionId": "n", "turn": 1, "error": "late"})


def test_live_session_tracks_events_from_any_appender() -> None:
    session = Session("s")
    session.append("compaction/start", {"compactionId": "a", "turn": None})
    with pytest.raises(LogViolationError) as caught:
        session.append("compaction/start", {"compactionId": "b", "turn": None})
    assert caught.value.rule == "C2c"
    assert "while standalone compaction is still compacting" in str(caught.value)


def test_numbered_compaction_outside_or_for_another_turn_is_rejected() -> None:
    session = Session("s")
    with pytest.raises(LogViolationError, match="for turn 1 appended outside any open turn"):
        session.append("compaction/start", {"compactionId": "a", "turn": 1})
    session.append("turn/start", {"turn": 1})
    with pytest.raises(LogViolationError, match="names turn 2 but open turn is 1"):
        session.append("compaction/start", {"compactionId": "a", "turn": 2})


def test_standalone_inside_a_turn_is_rejected() -> None:
    session = Session("s")
    session.append("turn/start", {"turn": 1})
    with pytest.raises(LogViolationError, match="is standalone but turn 1 is open") as caught:
        session.append("compaction/start", {"compactionId": "a", "turn": None})
    assert caught.value.rule == "C2d"


def test_nested_start_inside_a_turn_names_the_turn_owner() -> None:
    session = Session("s")
    session.append("turn/start", {"turn": 1})
    session.append("compaction/start", {"compactionId": "a", "turn": 1})
    with pytest.raises(LogViolationError, match="while turn 1 is still compacting"):
        session.append("compaction/start", {"compactionId": "b", "turn": 1})


def test_unenclosed_numbered_event_fails_replay() -> None:
    log = RawLog()
    log.turn("start", 1)
    log.turn("end", 1)
    log.start(1)
    with pytest.raises(LogViolationError) as caught:
        Session("s", log.events)
    assert caught.value.rule == "C2d"


@pytest.mark.parametrize("owner", [None, 1])
def test_turn_boundaries_cannot_cross_a_live_bracket(owner: int | None) -> None:
    session = Session("s")
    if owner is not None:
        session.append("turn/start", {"turn": 1})
    session.append("compaction/start", {"compactionId": "a", "turn": owner})
    kind = "turn/end" if owner else "turn/start"
    data: dict[str, Any] = {"turn": 1, "reason": {"kind": "completed"}} if owner else {"turn": 1}
    with pytest.raises(LogViolationError) as caught:
        session.append(kind, data)
    assert caught.value.rule == "C1"
    session.append("compaction/end", {"compactionId": "a", "turn": owner, "error": "x"})
    session.append(kind, data)


def _checkpoint(
    log: RawLog, cid: str, start: int, end: int, sources: list[int], **source: Any
) -> int:
    data = user_data("cp", "s")
    data["source"] = {**checkpoint_source(cid), **source}
    return log.add(
        "user/message",
        data,
        surfaceOp={"op": "replace", "start": start, "end": end},
        sourceEventSeqs=sources,
    )


def test_checkpoint_for_another_transaction_is_rejected() -> None:
    log = RawLog()
    node = log.user()
    log.start(None, "mine")
    _checkpoint(log, "theirs", node, node, [node])
    assert rule_of(log) == "C5d"


def test_checkpoint_needs_an_open_transaction_and_non_empty_command() -> None:
    log = RawLog()
    node = log.user()
    _checkpoint(log, "k", node, node, [node])
    assert rule_of(log) == "C5c"
    log2 = RawLog()
    node = log2.user()
    log2.start(None)
    _checkpoint(log2, "k", node, node, [node], sourceCommandId="")
    assert rule_of(log2) == "C5b"


def test_checkpoint_before_summary_passes_c5_but_breaks_strict_g_a() -> None:
    session = Session("s")
    node = session.append("user/message", user_data("u", "u" * 300), surface_op="append").seq
    session.append("compaction/start", {"compactionId": "k", "turn": None})
    data = user_data("cp", "s")
    data["source"] = checkpoint_source("k")
    session.append(
        "user/message",
        data,
        surface_op={"op": "replace", "start": node, "end": node},
        source_event_seqs=[node],
    )
    assert check_log(session.events, allow_open_bracket=True).rule == "G-a"  # type: ignore[union-attr]


def _rejects(
    events_before: list[tuple[str, dict[str, Any]]], kind: str, data: dict[str, Any]
) -> str:
    log = RawLog()
    log.user()
    for before_kind, before_data in events_before:
        log.add(before_kind, before_data)
    log.add(kind, data)
    violation = check_log(log.events, allow_open_bracket=True)
    assert violation is not None
    return violation.rule


START = ("compaction/start", {"compactionId": "k", "turn": None})
START_CMD = ("compaction/start", {"compactionId": "k", "turn": None, "sourceCommandId": "c"})
SUMMARY = ("compaction/summary", summary_data(tokens=58))


@pytest.mark.parametrize(
    ("before", "kind", "data", "rule"),
    [
        ([], "compaction/start", {"compactionId": "", "turn": None}, "C2a"),
        ([], "compaction/start", {"compactionId": "k", "turn": None, "sourceCommandId": ""}, "C2b"),
        ([], "compaction/summary", summary_data(), "C3b"),
        ([START], "compaction/start", {"compactionId": "k2", "turn": None}, "C2c"),
        ([START, SUMMARY], "compaction/summary", summary_data(tokens=58), "C3f"),
        ([START], "compaction/summary", summary_data(cid="other"), "C3c"),
        ([START_CMD], "compaction/summary", summary_data(sourceCommandId="d"), "C3d"),
        ([START], "compaction/summary", {**summary_data(), "shadowedSeqs": []}, "C3g"),
        (
            [START],
            "compaction/summary",
            {**summary_data(), "shadowedRange": {"start": 0, "end": 5}},
            "C3h",
        ),
        ([START], "compaction/summary", summary_data(tokens=-1), "C3i"),
        ([], "compaction/end", {"compactionId": "k", "turn": None}, "C4b"),
        ([START], "compaction/end", {"compactionId": "k", "turn": 3, "error": "x"}, "C4e"),
        ([START], "compaction/end", {"compactionId": "z", "turn": None, "error": "x"}, "C4c"),
        ([START_CMD], "compaction/end", {"compactionId": "k", "turn": None, "error": "x"}, "C4d"),
        (
            [START_CMD],
            "compaction/end",
            {"compactionId": "k", "turn": None, "sourceCommandId": "", "error": "x"},
            "C4a",
        ),
        ([START], "compaction/end", {"compactionId": "k", "turn": None}, "C4g"),
    ],
)
def test_each_bracket_rule_is_named(
    before: list[tuple[str, dict[str, Any]]], kind: str, data: dict[str, Any], rule: str
) -> None:
    assert _rejects(before, kind, data) == rule


def _compacted(
    log: RawLog, *, tokens: int = 58, sources: list[int] | None = None, gap: bool = False
) -> tuple[int, int]:
    node = 0
    start = log.start(None)
    summary = log.add("compaction/summary", summary_data(seqs=(node,), tokens=tokens))
    if gap:
        log.add("command/run", {"commandId": "c"})
    checkpoint = _checkpoint(log, "k", node, node, sources or [start, summary, node])
    return summary, checkpoint


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"tokens": 57}, "G-e"),
        ({"sources": [0]}, "G-f"),
        ({"gap": True}, "G-c"),
    ],
)
def test_strict_checkpoint_rules(options: dict[str, Any], rule: str) -> None:
    log = RawLog()
    log.user()
    _compacted(log, **options)
    log.end(None)
    assert rule_of(log) == rule


def test_strict_shrink_rule_rejects_a_checkpoint_as_big_as_its_span() -> None:
    log = RawLog()
    log.user("u")  # priced 4 + 1 + 4 = 9; any framed checkpoint is larger
    start = log.start(None)
    summary = log.add("compaction/summary", summary_data(seqs=(0,), tokens=9))
    _checkpoint(log, "k", 0, 0, [start, summary, 0])
    log.end(None)
    assert rule_of(log) == "G-g"


def test_a_clean_strict_transaction_passes_and_a_live_lock_is_reported_at_the_end() -> None:
    log = RawLog()
    log.user()
    _compacted(log)
    assert rule_of(log) == "G-k"
    assert rule_of(log, allow_open_bracket=True) is None
    log.end(None)
    assert rule_of(log) is None


def test_prune_must_be_followed_by_its_rewrite() -> None:
    log = RawLog()
    log.user()
    log.add(
        "compaction/prune",
        {"shadowedRange": {"start": 0, "end": 0}, "shadowedSeqs": [0], "shadowedTokenCount": 1},
    )
    log.user()
    assert rule_of(log) == "G-i"


def test_a_replace_right_after_a_shadow_price_claim_must_match_it() -> None:
    log = RawLog()
    log.user()
    log.user()
    log.start(None)
    log.add("compaction/summary", summary_data(seqs=(0,), tokens=58))
    log.add(
        "user/message",
        user_data("rival", "r"),
        surfaceOp={"op": "replace", "start": 1, "end": 1},
        sourceEventSeqs=[1],
    )
    assert rule_of(log, allow_open_bracket=True) == "M2"
