"""Spec 6.6: a scripted agent loop: pressure between steps, CBR-001 balance, overflow in a step."""

from __future__ import annotations

from compactcheck.invariants.session import is_checkpoint
from compactcheck.reference_engine.session import (
    BasicCompactor,
    OverflowRecovery,
    PreStepPressure,
    ToolPairing,
    load_config,
)
from tests.reference_engine.session.session_script import Script

CONTEXT = "CONTEXT_WINDOW_EXCEEDED"


def loop_compactor() -> BasicCompactor:
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 120})
    return BasicCompactor(config=config, capacity=lambda provider, model, signal: 1000)


def test_pressure_runs_between_a_finished_tool_step_and_the_next_step() -> None:
    script = Script()
    hook = PreStepPressure(loop_compactor())
    for turn in range(4):
        script.user(f"prompt {turn} " + "p" * 200)
        script.begin_turn()
        script.header()
        hook.on_pre_step(script.session)
        script.tool_step(f"c{turn}", "r" * 300)
        hook.on_pre_step(script.session)
        script.reply_step("a" * 200)
        script.end_turn()
    events = script.session.events
    starts = [e.seq for e in events if e.type == "compaction/start"]
    assert starts, "pressure never compacted"
    for seq in starts:
        before = [e.type for e in events[:seq] if e.type in ("step/start", "step/end")]
        after = next(e.type for e in events[seq:] if e.type in ("step/start", "step/end"))
        assert before[-1] == "step/end"
        assert after == "step/start"
    ends = [e for e in events if e.type == "turn/end"]
    assert all(e.data["reason"]["kind"] == "completed" for e in ends)
    script.check()


def test_every_checkpoint_on_the_surface_is_balanced_on_both_sides() -> None:
    script = Script()
    hook = PreStepPressure(loop_compactor())
    for turn in range(6):
        script.user(f"prompt {turn} " + "p" * 200)
        script.begin_turn()
        script.header()
        hook.on_pre_step(script.session)
        script.tool_step(f"c{turn}", "r" * 300)
        script.end_turn()
    session = script.session
    pairing = ToolPairing()
    checkpoints = [
        seq
        for seq in session.surface_nodes
        if is_checkpoint(session.event_at(seq))  # type: ignore[arg-type]
    ]
    assert len(checkpoints) == 1
    assert checkpoints[0] == session.surface_nodes[0]
    for seq in checkpoints:
        assert pairing.balanced_before(session, seq)
        assert pairing.balanced_after(session, seq)


def test_overflow_recovery_compacts_inside_the_same_step_of_the_turn() -> None:
    script = Script()
    script.conversation(2)
    script.user("sentinel " + "s" * 300)
    script.begin_turn()
    script.header()
    script.begin_step()
    recovery = OverflowRecovery(BasicCompactor())
    assert recovery.on_request_error(script.session, CONTEXT, None, lambda: "down") == "retry"
    script.assistant("final answer")
    script.end_step()
    script.end_turn()
    events = script.session.events
    family = [e for e in events if e.type.startswith("compaction/")]
    assert [e.type for e in family] == ["compaction/start", "compaction/summary", "compaction/end"]
    assert family[0].data["turn"] == family[-1].data["turn"] == 3
    step_starts = [e for e in events if e.type == "step/start" and e.data["turn"] == 3]
    assert len(step_starts) == 1
    assert step_starts[0].seq < family[0].seq
    texts = [getattr(m.content[0], "text", "") for m in script.session.derive_messages()]
    assert not any(t.startswith("question 0") for t in texts)
    script.check()
