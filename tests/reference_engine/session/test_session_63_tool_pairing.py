"""Spec 6.3: balanced cuts by counting calls, cache reuse/extend/rebuild, corruption errors."""

from __future__ import annotations

import pytest

from compactcheck.invariants.session import PairingError, SessionEvent
from compactcheck.reference_engine.session import Session, ToolPairing
from tests.reference_engine.session.session_script import Script, result_data, user_data


def cuts(pairing: ToolPairing, session: Session, seq: int) -> tuple[bool, bool]:
    return pairing.balanced_before(session, seq), pairing.balanced_after(session, seq)


def test_closed_and_open_single_call_steps() -> None:
    script = Script()
    u = script.user("hi")
    script.begin_turn()
    asked, answered = script.tool_step("c1")
    pairing = ToolPairing()
    session = script.session
    assert cuts(pairing, session, u) == (True, True)
    assert cuts(pairing, session, asked) == (True, False)
    assert cuts(pairing, session, answered) == (False, True)
    open_script = Script()
    open_script.begin_turn()
    open_script.begin_step()
    lone = open_script.assistant("", ["c9"])
    assert ToolPairing().balanced_after(open_script.session, lone) is False


def test_multi_call_message_is_balanced_only_after_its_last_result() -> None:
    script = Script()
    script.begin_turn()
    script.begin_step()
    script.assistant("", ["c1", "c2"])
    first, second = script.result("c1"), script.result("c2")
    pairing = ToolPairing()
    assert pairing.balanced_after(script.session, first) is False
    assert pairing.balanced_after(script.session, second) is True


def test_neutral_node_inside_an_open_pair_is_unbalanced_but_free_nodes_are_balanced() -> None:
    script = Script()
    script.begin_turn()
    script.begin_step()
    script.assistant("", ["c1"])
    inside = script.user("injected")
    script.result("c1")
    assert cuts(ToolPairing(), script.session, inside) == (False, False)
    free = Script()
    alone = free.user("alone")
    assert cuts(ToolPairing(), free.session, alone) == (True, True)


def test_rebuild_after_replace_and_removed_seqs_are_not_found() -> None:
    script = Script()
    script.begin_turn()
    asked, answered = script.tool_step("c1")
    session = script.session
    pairing = ToolPairing()
    assert pairing.balanced_after(session, answered)
    checkpoint = session.append(
        "user/message",
        user_data("cp", "summary"),
        surface_op={"op": "replace", "start": asked, "end": answered},
        source_event_seqs=[asked, answered],
    ).seq
    assert cuts(pairing, session, checkpoint) == (True, True)
    with pytest.raises(PairingError, match=f"surface seq {answered} not found") as caught:
        pairing.balanced_before(session, answered)
    assert caught.value.rule == "TP1"


def test_repeated_queries_are_answered_from_cache() -> None:
    script = Script()
    script.begin_turn()
    asked, _ = script.tool_step("c1")
    pairing = ToolPairing()
    answers = {cuts(pairing, script.session, asked) for _ in range(5)}
    assert answers == {(True, False)}
    assert pairing.event_reads == 2


def test_missing_seqs_including_an_empty_surface_then_a_first_append_works() -> None:
    session = Session("s")
    pairing = ToolPairing()
    with pytest.raises(PairingError, match="surface seq 0 not found"):
        pairing.balanced_before(session, 0)
    seq = session.append("user/message", user_data("a", "a"), surface_op="append").seq
    assert cuts(pairing, session, seq) == (True, True)


def test_cache_reads_only_new_nodes_and_none_after_log_only_growth() -> None:
    script = Script()
    script.user("a")
    script.user("b")
    script.user("c")
    session = script.session
    pairing = ToolPairing()
    pairing.balanced_before(session, 0)
    assert pairing.event_reads == 3
    script.begin_turn()  # log-only growth: nothing new to read
    pairing.balanced_before(session, 0)
    assert pairing.event_reads == 3
    script.user("d")
    pairing.balanced_before(session, 0)
    assert pairing.event_reads == 4
    session.append(
        "user/message",
        user_data("cp", "x"),
        surface_op={"op": "replace", "start": 0, "end": session.surface_nodes[-1]},
        source_event_seqs=list(session.surface_nodes),
    )
    pairing.balanced_before(session, session.surface_nodes[0])
    assert pairing.event_reads == 5
    assert pairing.rebuilds == 2


class ShrinkingSession(Session):
    """A session whose surface shrinks without a new generation (a defensive case)."""

    def shrink(self) -> None:
        self._surface.nodes.pop()
        del self._surface.index[max(self._surface.index)]


def test_same_generation_shrink_triggers_a_rebuild() -> None:
    session = ShrinkingSession("s")
    for index in range(3):
        session.append("user/message", user_data(f"u{index}", "x"), surface_op="append")
    pairing = ToolPairing()
    pairing.balanced_before(session, 0)
    session.shrink()
    assert pairing.balanced_after(session, 1) is True
    assert pairing.rebuilds == 2


def _orphan_events() -> list[SessionEvent]:
    data = result_data(1, 1, "ghost", "boo")
    raw = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
        {"type": "tool/result", "seq": 1, "time": 0, "data": data, "surfaceOp": "append"},
    ]
    return [SessionEvent.from_json_data(event) for event in raw]


class CorruptSession(Session):
    """A session that trusts its events, to observe corruption handling downstream."""

    def corrupt(self, events: list[SessionEvent], nodes: list[int]) -> None:
        self._events = events
        self._surface.nodes = nodes
        self._surface.index = {seq: i for i, seq in enumerate(nodes)}


def test_orphan_result_throws_during_rebuild_and_retries_throw_the_same() -> None:
    session = CorruptSession("s")
    session.corrupt(_orphan_events(), [1])
    pairing = ToolPairing()
    messages = []
    for _ in range(2):
        with pytest.raises(PairingError) as caught:
            pairing.balanced_before(session, 1)
        messages.append((caught.value.rule, str(caught.value)))
    assert messages[0] == messages[1]
    assert messages[0] == (
        "TP3",
        "tool/result at surface seq 1 has no matching tool-call (corrupt surface)",
    )


def test_corrupt_tail_does_not_commit_partial_cache() -> None:
    session = CorruptSession("s")
    events = _orphan_events()
    good = SessionEvent.from_json_data(
        {
            "type": "user/message",
            "seq": 2,
            "time": 0,
            "data": user_data("u", "u"),
            "surfaceOp": "append",
        }
    )
    session.corrupt([*events, good], [2])
    pairing = ToolPairing()
    assert pairing.balanced_after(session, 2)
    session.corrupt([*events, good], [2, 1])
    for _ in range(2):
        with pytest.raises(PairingError, match="no matching tool-call"):
            pairing.balanced_after(session, 2)


def test_surface_seq_without_matching_event_is_corrupt() -> None:
    session = CorruptSession("s")
    events = _orphan_events()
    session.corrupt(events, [7])
    with pytest.raises(PairingError, match="surface seq 7 has no matching session event"):
        ToolPairing().balanced_before(session, 7)
    wrong = [events[0], events[0]]
    session.corrupt(wrong, [1])
    with pytest.raises(PairingError) as caught:
        ToolPairing().balanced_before(session, 1)
    assert caught.value.rule == "TP2"


def test_corrupt_node_anywhere_fails_every_query() -> None:
    session = CorruptSession("s")
    good = SessionEvent.from_json_data(
        {
            "type": "user/message",
            "seq": 2,
            "time": 0,
            "data": user_data("u", "u"),
            "surfaceOp": "append",
        }
    )
    session.corrupt([*_orphan_events(), good], [2, 1])
    with pytest.raises(PairingError, match="corrupt surface"):
        ToolPairing().balanced_before(session, 2)
