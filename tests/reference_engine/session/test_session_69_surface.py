"""Spec 6.9: surface rules S1-S7 on append and seed load, positional replace, fold and render."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants.session import LogViolationError, SessionEvent
from compactcheck.reference_engine.session import Session, derive_messages, fold_surface
from tests.reference_engine.session.session_script import Script, result_data, text, user_data


def user(session: Session, body: str = "hi") -> int:
    return session.append(
        "user/message", user_data(f"m{session.seq}", body), surface_op="append"
    ).seq


def replace(start: int, end: int) -> dict[str, Any]:
    return {"op": "replace", "start": start, "end": end}


def rejected(session: Session, rule: str, **kwargs: Any) -> LogViolationError:
    before = (session.seq, session.surface_nodes, session.replace_generation)
    with pytest.raises(LogViolationError) as caught:
        session.append("user/message", user_data("x", "new"), **kwargs)
    assert caught.value.rule == rule
    assert (session.seq, session.surface_nodes, session.replace_generation) == before
    return caught.value


@pytest.fixture
def three() -> Session:
    session = Session("s")
    for _ in range(3):
        user(session)
    return session


def test_sources_absent_or_covering_are_accepted(three: Session) -> None:
    three.append("user/message", user_data("a", "x"), surface_op="append")
    three.append(
        "user/message", user_data("b", "y"), surface_op=replace(0, 1), source_event_seqs=[0, 1, 3]
    )
    assert three.surface_nodes == (4, 2, 3)


@pytest.mark.parametrize(
    ("sources", "fragment"),
    [
        ("0", "array"),
        ([], "non-empty"),
        ([0, 0], "repeats"),
        (["0"], "non-negative integers"),
        ([1.5], "non-negative integers"),
        ([-1], "non-negative integers"),
        ([3], "not earlier"),
    ],
)
def test_bad_source_references_are_rejected(three: Session, sources: Any, fragment: str) -> None:
    violation = rejected(three, "S4", surface_op="append", source_event_seqs=sources)
    assert fragment in str(violation)


def test_sources_on_a_log_only_event_are_rejected(three: Session) -> None:
    with pytest.raises(LogViolationError) as caught:
        three.append("compaction/prune", {}, source_event_seqs=[0])
    assert caught.value.rule == "S2"


def test_surface_type_without_marker_and_log_only_with_marker_are_rejected(three: Session) -> None:
    rejected(three, "S2")
    with pytest.raises(LogViolationError, match="S2"):
        three.append("turn/start", {"turn": 1}, surface_op="append")


@pytest.mark.parametrize(
    "op",
    [
        "prepend",
        {"op": "replace", "start": 0},
        {"op": "replace", "start": 0, "end": 1, "x": 1},
        {"op": "replace", "start": -1, "end": 1},
        {"op": "swap", "start": 0, "end": 1},
    ],
)
def test_malformed_surface_op_is_rejected(three: Session, op: Any) -> None:
    rejected(three, "S3", surface_op=op, source_event_seqs=[0, 1])


def test_empty_sources_allowed_on_assistant_message() -> None:
    script = Script()
    script.begin_turn()
    script.begin_step()
    session = script.session
    data = {
        "turn": 1,
        "step": 1,
        "message": {
            "id": "a",
            "role": "assistant",
            "content": [text("hi")],
            "source": {"kind": "model", "provider": "p", "model": "m"},
        },
    }
    session.append("assistant/message", data, surface_op="append", source_event_seqs=[])
    assert len(session.surface_nodes) == 1


def test_non_contiguous_seq_is_rejected(three: Session) -> None:
    with pytest.raises(LogViolationError) as caught:
        three.append_event(
            {
                "type": "user/message",
                "seq": 7,
                "time": 1,
                "data": user_data("z", "z"),
                "surfaceOp": "append",
            }
        )
    assert caught.value.rule == "S1"
    assert "seq 7 is not contiguous; expected 3" in str(caught.value)


def test_replace_must_cite_every_shadowed_node(three: Session) -> None:
    violation = rejected(three, "S6", surface_op=replace(0, 2), source_event_seqs=[0, 2])
    assert "missing 1" in str(violation)
    rejected(three, "S6", surface_op=replace(0, 0))


def test_replace_splices_only_its_range(three: Session) -> None:
    three.append(
        "user/message", user_data("r", "r"), surface_op=replace(1, 1), source_event_seqs=[1]
    )
    assert three.surface_nodes == (0, 3, 2)
    assert three.replace_generation == 1


def test_ranges_are_positions_so_a_reversed_looking_range_is_valid(three: Session) -> None:
    three.append(
        "user/message", user_data("r", "r"), surface_op=replace(0, 1), source_event_seqs=[0, 1]
    )
    assert three.surface_nodes == (3, 2)
    three.append(
        "user/message", user_data("q", "q"), surface_op=replace(3, 2), source_event_seqs=[2, 3]
    )
    assert three.surface_slice(0) == (4,)
    fold = fold_surface(three.events)
    assert fold.nodes == three.surface_nodes
    assert fold.generation == 2
    assert [r.shadowed_seqs for r in fold.replacements] == [(0, 1), (3, 2)]


def test_replace_ends_must_exist_and_be_ordered(three: Session) -> None:
    assert "start seq 9 not found" in str(
        rejected(three, "S5", surface_op=replace(9, 1), source_event_seqs=[1])
    )
    assert "end seq 9 not found" in str(
        rejected(three, "S5", surface_op=replace(1, 9), source_event_seqs=[1])
    )
    assert "is after end seq" in str(
        rejected(three, "S5", surface_op=replace(2, 0), source_event_seqs=[0, 1, 2])
    )


def _result_session() -> tuple[Script, int, int]:
    script = Script()
    script.begin_turn()
    first, second = script.tool_step("c1", "one"), script.tool_step("c2", "two")
    return script, first[1], second[1]


def test_tool_result_rewrite_may_change_only_content() -> None:
    script, result, other = _result_session()
    session = script.session
    original = session.event_at(result)
    assert original is not None
    data = dict(original.data)
    changed = result_data(1, 1, "c1", "short")
    session.append(
        "tool/result", changed, surface_op=replace(result, result), source_event_seqs=[result]
    )
    assert session.surface_position(result) is None
    mutations = [
        result_data(1, 2, "c1", "x"),
        {**result_data(1, 1, "c1", "x"), "meta": {"a": 1}},
    ]
    bad_id = result_data(1, 1, "c1", "x")
    bad_id["message"]["content"][0]["toolCallId"] = "zz"
    bad_error = result_data(1, 1, "c1", "x")
    bad_error["message"]["content"][0]["isError"] = True
    mutations += [bad_id, bad_error]
    target = session.surface_nodes[1]
    for mutated in mutations:
        with pytest.raises(LogViolationError) as caught:
            session.append(
                "tool/result",
                mutated,
                surface_op=replace(target, target),
                source_event_seqs=[target],
            )
        assert caught.value.rule == "S7"
    del data, other


def test_tool_result_rewrite_spanning_two_nodes_or_a_non_result_is_rejected() -> None:
    script, result, other = _result_session()
    session = script.session
    asked = session.surface_nodes[0]
    for start, end in ((result, session.surface_nodes[-1]), (asked, asked)):
        with pytest.raises(LogViolationError) as caught:
            session.append(
                "tool/result",
                result_data(1, 1, "c1", "x"),
                surface_op=replace(start, end),
                source_event_seqs=sorted(session.surface_nodes),
            )
        assert caught.value.rule == "S7"
    del other


def test_structurally_equal_meta_is_accepted() -> None:
    script = Script()
    script.begin_turn()
    script.begin_step()
    script.assistant("", ["c1"])
    session = script.session
    seq = session.append(
        "tool/result", result_data(1, 1, "c1", "x", meta={"k": [1, {"z": 2}]}), surface_op="append"
    ).seq
    session.append(
        "tool/result",
        result_data(1, 1, "c1", "y", meta={"k": [1, {"z": 2}]}),
        surface_op=replace(seq, seq),
        source_event_seqs=[seq],
    )
    assert session.replace_generation == 1


def test_window_from_a_high_base_seq() -> None:
    base = 400_000
    events = [
        SessionEvent.from_json_data(
            {
                "type": "user/message",
                "seq": base + i,
                "time": i,
                "data": user_data(f"w{i}", "w"),
                "surfaceOp": "append",
            }
        )
        for i in range(3)
    ]
    session = Session("w", events, base_seq=base)
    assert session.surface_nodes == (base, base + 1, base + 2)
    session.append(
        "user/message",
        user_data("r", "r"),
        surface_op=replace(base + 1, base + 2),
        source_event_seqs=[base + 1, base + 2],
    )
    assert session.surface_slice(0) == (base, base + 4)
    with pytest.raises(LogViolationError, match="start seq 399999 not found"):
        session.append(
            "user/message",
            user_data("q", "q"),
            surface_op=replace(base - 1, base),
            source_event_seqs=[base - 1, base],
        )


def test_failed_candidate_leaves_nodes_and_generation(three: Session) -> None:
    rejected(three, "S5", surface_op=replace(0, 9), source_event_seqs=[0])
    assert three.surface_nodes == (0, 1, 2)
    assert three.replace_generation == 0


def test_caller_mutations_after_append_do_not_reach_the_log(three: Session) -> None:
    data = user_data("m", "before")
    three.append("user/message", data, surface_op="append")
    data["content"][0]["text"] = "after"
    event = three.event_at(3)
    assert event is not None
    assert event.data["content"][0]["text"] == "before"


def test_empty_assistant_is_on_the_surface_but_not_rendered() -> None:
    script = Script()
    script.begin_turn()
    script.begin_step()
    seq = script.assistant("")
    assert seq in script.session.surface_nodes
    assert script.session.derive_messages() == ()


def test_fold_returns_detached_results_equal_to_the_live_surface(three: Session) -> None:
    fold = fold_surface(three.events)
    assert fold.nodes == three.surface_nodes
    assert derive_messages(three.events, fold.nodes) == three.derive_messages()
    assert isinstance(fold.nodes, tuple)


def test_envelope_rejects_unknown_keys_and_lossy_json(three: Session) -> None:
    for bad in (
        {"type": "x/y", "seq": 3, "time": 1, "data": {}, "extra": 1},
        {"type": "x/y", "seq": 3, "time": 1, "data": {"v": float("nan")}},
        {"type": "x/y", "seq": 3, "time": 1, "data": {"v": -0.0}},
        {"type": "x/y", "seq": 3, "time": 1},
    ):
        with pytest.raises(LogViolationError) as caught:
            three.append_event(bad)
        assert caught.value.rule == "E1"
    assert three.seq == 3


def test_seed_is_validated_and_ends_with_end_seed() -> None:
    empty = Session("e", [])
    assert [e.type for e in empty.events] == ["session/end-seed"]
    seeded = Session("s", list(empty.events))
    assert len(seeded.events) == 1
    assert seeded.first_live_seq == 1
    with pytest.raises(LogViolationError, match="S1"):
        Session("bad", [{"type": "x/y", "seq": 1, "time": 0, "data": {}}])
