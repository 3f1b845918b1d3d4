"""Spec 6.5: manual compaction (compactNow): standalone bracket, six codes, precedence, flush."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from compactcheck.invariants.session import LogViolationError, SessionEvent
from compactcheck.reference_engine.session import (
    AbortSignal,
    BasicCompactor,
    FunctionSummariser,
    IdleHost,
    ManualCompactionError,
    Session,
    SummarisationInput,
    SummaryDraft,
    TextSummariser,
    compact_now,
)
from tests.reference_engine.session.session_script import Script, replay, user_data

Hook = Callable[[SummarisationInput, AbortSignal | None], None]


def summariser(hook: Hook | None = None, fail: BaseException | None = None) -> FunctionSummariser:
    inner = TextSummariser()

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        if hook is not None:
            hook(request, signal)
        if fail is not None:
            raise fail
        return inner.summarise(request, None)

    return FunctionSummariser(run)


def idle_script(exchanges: int = 3) -> Script:
    script = Script()
    script.conversation(exchanges)
    return script


def family(session: Session) -> list[str]:
    return [e.type for e in session.events if e.type.startswith("compaction/")]


def last_end(session: Session) -> dict[str, Any]:
    return next(e.data for e in reversed(session.events) if e.type == "compaction/end")


def assert_unchanged(session: Session, before: tuple[Any, ...]) -> None:
    assert (session.surface_nodes, session.replace_generation, session.derive_messages()) == before


def snapshot(session: Session) -> tuple[Any, ...]:
    return (session.surface_nodes, session.replace_generation, session.derive_messages())


def test_standalone_commit_shape_and_one_flush() -> None:
    script = idle_script()
    host = IdleHost()
    result = compact_now(BasicCompactor(), script.session, host, source_command_id="cmd-1")
    assert result is not None
    session = script.session
    start = session.event_at(result.start_seq)
    end = session.event_at(result.end_seq)
    assert start is not None
    assert end is not None
    assert start.data == {
        "compactionId": result.compaction_id,
        "sourceCommandId": "cmd-1",
        "turn": None,
    }
    assert end.data == start.data
    summary = session.event_at(result.summary_seq)
    checkpoint = session.event_at(result.checkpoint_seq)
    assert summary is not None
    assert checkpoint is not None
    assert summary.data["sourceCommandId"] == "cmd-1"
    assert checkpoint.data["source"]["sourceCommandId"] == "cmd-1"
    assert host.flushes == 1
    assert host.releases == 1
    assert not any(e.type == "turn/start" and e.seq > result.start_seq for e in session.events)
    assert session.surface_nodes[0] == result.checkpoint_seq
    assert end.time - start.time > 0
    script.check()


def test_prompt_after_compaction_sees_checkpoint_first_and_old_text_gone() -> None:
    script = idle_script()
    session = script.session
    compact_now(BasicCompactor(), session, IdleHost())
    script.user("next prompt")
    messages = session.derive_messages()
    assert "compacted-summary" in messages[0].content[0].text  # type: ignore[union-attr]
    assert messages[-1].content[0].text == "next prompt"  # type: ignore[union-attr]
    texts = [getattr(b, "text", "") for m in messages for b in m.content]
    assert not any(t.startswith("output 0") for t in texts)


def test_listener_appends_during_the_transaction_are_refused() -> None:
    script = idle_script()
    session = script.session
    refused: list[str] = []

    def listener(s: Session, event: SessionEvent) -> None:
        if event.type.startswith("compaction/"):
            try:
                s.append("user/message", user_data("inj", "x"), surface_op="append")
            except Exception as error:
                refused.append(type(error).__name__)

    session.on_event(listener)
    compact_now(BasicCompactor(), session, IdleHost())
    assert family(session) == ["compaction/start", "compaction/summary", "compaction/end"]
    assert refused == ["ReentrantAppendError"] * 3


def test_busy_when_admission_is_refused_and_no_summary_call() -> None:
    script = idle_script()
    text = TextSummariser()
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(summariser=text), script.session, IdleHost(idle=False))
    assert caught.value.code == "busy"
    assert text.calls == []
    assert family(script.session) == []


def test_summariser_failure_is_summary_code_surface_unchanged_and_released() -> None:
    script = idle_script()
    session = script.session
    before = snapshot(session)
    host = IdleHost()
    compactor = BasicCompactor(summariser=summariser(fail=RuntimeError("model down")))
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(compactor, session, host)
    assert caught.value.code == "summary"
    assert_unchanged(session, before)
    assert family(session) == ["compaction/start", "compaction/end"]
    assert last_end(session)["error"] == "model down"
    assert host.releases == 1
    assert host.flushes == 1
    assert host.idle
    script.check()


def test_nothing_to_compact_returns_none_without_markers() -> None:
    script = Script()
    script.user("only one")
    host = IdleHost()
    assert compact_now(BasicCompactor(), script.session, host) is None
    assert family(script.session) == []
    assert host.releases == 1


def test_live_unmatched_bracket_is_busy() -> None:
    script = idle_script()
    script.session.append("compaction/start", {"compactionId": "x", "turn": None})
    text = TextSummariser()
    with pytest.raises(ManualCompactionError, match="compaction lock is already active") as caught:
        compact_now(BasicCompactor(summariser=text), script.session, IdleHost())
    assert caught.value.code == "busy"
    assert text.calls == []


def test_stale_bracket_before_a_later_end_seed_is_ignored() -> None:
    script = idle_script()
    script.session.append("compaction/start", {"compactionId": "x", "turn": None})
    reloaded = Session("r", list(script.session.events))
    assert compact_now(BasicCompactor(), reloaded, IdleHost()) is not None


def test_stale_orphan_detected_despite_later_repaired_turns() -> None:
    script = idle_script()
    session = script.session
    session.append("compaction/start", {"compactionId": "x", "turn": None})
    events = list(session.events)
    turn = script.turn + 1
    extra = [
        {"type": "turn/start", "seq": len(events), "time": 1, "data": {"turn": turn}},
        {
            "type": "turn/end",
            "seq": len(events) + 1,
            "time": 1,
            "data": {"turn": turn, "reason": {"kind": "interrupted"}},
        },
    ]
    reloaded = Session("r", [*events, *extra])
    assert compact_now(BasicCompactor(), reloaded, IdleHost()) is not None


def test_open_turn_is_busy() -> None:
    script = idle_script()
    script.begin_turn()
    with pytest.raises(ManualCompactionError, match="already has an open turn") as caught:
        compact_now(BasicCompactor(), script.session, IdleHost())
    assert caught.value.code == "busy"
    assert family(script.session) == []


def _rival_replace(session: Session, start: int, end: int) -> None:
    first, last = session.surface_position(start), session.surface_position(end)
    assert first is not None
    assert last is not None
    session.append(
        "user/message",
        user_data("rival", "r"),
        surface_op={"op": "replace", "start": start, "end": end},
        source_event_seqs=sorted(session.surface_slice(first, last + 1)),
    )


@pytest.mark.parametrize("where", ["head", "middle"])
def test_span_replaced_during_summarisation_is_changed(where: str) -> None:
    script = idle_script()
    session = script.session
    host = IdleHost()

    def rival(request: SummarisationInput, signal: AbortSignal | None) -> None:
        node = session.surface_nodes[0 if where == "head" else 3]
        _rival_replace(session, node, node)

    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(summariser=summariser(rival)), session, host)
    assert caught.value.code == "changed"
    expected = "selected span" if where == "head" else "span changed during summarization"
    assert expected in str(caught.value.__cause__)
    assert family(session) == ["compaction/start", "compaction/end"]
    assert host.flushes == 1
    assert host.releases == 1
    assert session.replace_generation == 1
    script.check()


def test_rival_that_breaks_the_range_is_no_longer_a_valid_target() -> None:
    script = idle_script()
    session = script.session

    def rival(request: SummarisationInput, signal: AbortSignal | None) -> None:
        nodes = session.surface_nodes
        _rival_replace(session, nodes[0], nodes[1])

    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(summariser=summariser(rival)), session, IdleHost())
    assert caught.value.code == "changed"
    assert "selected span" in str(caught.value.__cause__)
    assert not any(
        e.type == "user/message" and e.data.get("source", {}).get("plugin") == "compact"
        for e in session.events
    )


def test_appends_outside_the_span_survive_after_the_checkpoint() -> None:
    script = idle_script()
    session = script.session

    def inject(request: SummarisationInput, signal: AbortSignal | None) -> None:
        script.user("injected during summary")

    result = compact_now(BasicCompactor(summariser=summariser(inject)), session, IdleHost())
    assert result is not None
    texts = [getattr(m.content[0], "text", "") for m in session.derive_messages()]
    assert texts[-1] == "injected during summary"
    assert session.surface_nodes[0] == result.checkpoint_seq
    script.check()


class FailingGuard:
    """Rejects the first append of one event shape (a failing invariant plugin)."""

    def __init__(self, kind: str, error_only: bool | None = None) -> None:
        self.kind, self.error_only, self.fired = kind, error_only, False

    def __call__(self, session: Session, event: SessionEvent) -> None:
        if self.fired or event.type != self.kind:
            return
        if self.error_only is not None and ("error" in event.data) != self.error_only:
            return
        self.fired = True
        raise RuntimeError("boundary rejected")


def test_failing_success_close_is_commit_leaves_orphan_and_blocks() -> None:
    script = idle_script()
    session = script.session
    session.add_guard(FailingGuard("compaction/end", error_only=False))
    host = IdleHost()
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(), session, host)
    assert caught.value.code == "commit"
    assert "boundary rejected" in str(caught.value.__cause__)
    assert host.flushes == 0
    assert host.releases == 1
    assert family(session) == ["compaction/start", "compaction/summary"]
    text = TextSummariser()
    with pytest.raises(ManualCompactionError) as again:
        compact_now(BasicCompactor(summariser=text), session, IdleHost())
    assert again.value.code == "busy"
    assert text.calls == []
    script.check(allow_open_bracket=True)


def test_failing_error_close_is_commit_with_only_a_start() -> None:
    script = idle_script()
    session = script.session
    session.add_guard(FailingGuard("compaction/end", error_only=True))
    host = IdleHost()
    compactor = BasicCompactor(summariser=summariser(fail=RuntimeError("nope")))
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(compactor, session, host)
    assert caught.value.code == "commit"
    assert family(session) == ["compaction/start"]
    assert host.flushes == 0
    assert host.releases == 1


def test_span_prices_changed_is_changed() -> None:
    script = idle_script()
    session = script.session
    compactor = BasicCompactor()
    original = compactor.meter.price_of

    calls = {"n": 0}

    def drifting(s: Session, seq: int) -> int:
        calls["n"] += 1
        return original(s, seq) + (1 if calls["n"] > 2 * len(s.surface_nodes) else 0)

    compactor.meter.price_of = drifting  # type: ignore[method-assign,assignment]
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(compactor, session, IdleHost())
    assert caught.value.code == "changed"
    assert "rewritten" in str(caught.value.__cause__)


@pytest.mark.parametrize("flush_fails", [False, True])
def test_commit_body_failure_is_commit_even_when_flush_fails(flush_fails: bool) -> None:
    script = idle_script()
    session = script.session
    before = snapshot(session)
    session.add_guard(FailingGuard("compaction/summary"))
    host = IdleHost(flush_error=OSError("disk full") if flush_fails else None)
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(), session, host)
    assert caught.value.code == "commit"
    assert "boundary rejected" in last_end(session)["error"]
    assert last_end(session)["turn"] is None
    assert host.releases == 1
    assert_unchanged(session, before)


def test_session_without_turns_compacts_without_creating_one() -> None:
    session = Session("s")
    for index in range(3):
        session.append("user/message", user_data(f"u{index}", "w" * 300), surface_op="append")
    result = compact_now(BasicCompactor(), session, IdleHost())
    assert result is not None
    assert session.event_at(result.start_seq).data == {  # type: ignore[union-attr]
        "compactionId": result.compaction_id,
        "turn": None,
    }
    assert not any(e.type.startswith("turn/") for e in session.events)


def test_flush_failure_after_a_clean_bracket_is_persistence() -> None:
    script = idle_script()
    session = script.session
    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(), session, IdleHost(flush_error=OSError("disk")))
    assert caught.value.code == "persistence"
    assert family(session) == ["compaction/start", "compaction/summary", "compaction/end"]
    assert "error" not in last_end(session)


@pytest.mark.parametrize("case", ["busy", "empty", "compactable"])
def test_pre_aborted_signal_throws_the_exact_reason_with_no_side_effects(case: str) -> None:
    script = idle_script() if case != "empty" else Script()
    host = IdleHost(idle=case != "busy")
    compactor = BasicCompactor()
    reason = KeyError("stop")
    signal = AbortSignal()
    signal.abort(reason)
    before = len(script.session.events)
    with pytest.raises(KeyError) as caught:
        compact_now(compactor, script.session, host, signal=signal)
    assert caught.value is reason
    assert host.admissions == 0
    assert compactor.meter.measure_calls == 0
    assert len(script.session.events) == before


def test_caller_abort_during_a_failing_summary_throws_the_reason_after_flush() -> None:
    script = idle_script()
    signal = AbortSignal()
    reason = KeyError("user stop")
    host = IdleHost()

    def abort(request: SummarisationInput, s: AbortSignal | None) -> None:
        signal.abort(reason)

    compactor = BasicCompactor(
        summariser=summariser(abort, fail=RuntimeError("summariser says no"))
    )
    with pytest.raises(KeyError) as caught:
        compact_now(compactor, script.session, host, signal=signal)
    assert caught.value is reason
    assert host.flushes == 1
    assert host.releases == 1
    assert family(script.session) == ["compaction/start", "compaction/end"]
    assert "summariser says no" in last_end(script.session)["error"]


def test_agent_maintenance_abort_is_cancelled_with_its_reason() -> None:
    script = idle_script()
    host = IdleHost()
    reason = RuntimeError("agent shutting down")

    def abort(request: SummarisationInput, s: AbortSignal | None) -> None:
        assert host.current is not None
        host.current.signal.abort(reason)

    with pytest.raises(ManualCompactionError) as caught:
        compact_now(BasicCompactor(summariser=summariser(abort)), script.session, host)
    assert caught.value.code == "cancelled"
    assert caught.value.__cause__ is reason


def test_abort_after_summarisation_writes_no_summary() -> None:
    script = idle_script()
    signal = AbortSignal()
    reason = KeyError("late")

    def abort(request: SummarisationInput, s: AbortSignal | None) -> None:
        signal.abort(reason)

    host = IdleHost()
    with pytest.raises(KeyError):
        compact_now(
            BasicCompactor(summariser=summariser(abort)), script.session, host, signal=signal
        )
    assert family(script.session) == ["compaction/start", "compaction/end"]
    assert host.events == [f"flush@{script.session.seq}", "release"]


def test_raw_output_and_usage_are_kept_in_the_manual_summary() -> None:
    script = idle_script()

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        blocks = ({"type": "text", "text": "short"},)
        return SummaryDraft(
            summary=blocks,
            provider="p",
            model="m",
            raw_output=({"type": "reasoning", "text": "r"}, *blocks),
            usage={"input": 5, "output": 1},
        )

    result = compact_now(
        BasicCompactor(summariser=FunctionSummariser(run)), script.session, IdleHost()
    )
    assert result is not None
    data = script.session.event_at(result.summary_seq).data  # type: ignore[union-attr]
    assert data["usage"] == {"input": 5, "output": 1}
    assert data["rawOutput"][0]["type"] == "reasoning"
    assert "llmStreamCall" not in data


def test_automatic_region_is_excluded_during_a_manual_run_and_vice_versa() -> None:
    script = idle_script()
    session = script.session
    seen: list[str] = []
    compactor = BasicCompactor()

    def nested(request: SummarisationInput, signal: AbortSignal | None) -> None:
        nodes = session.surface_nodes
        try:
            compactor.compact_region(session, nodes[0], nodes[0])
        except ManualCompactionError as error:
            seen.append(str(error))

    compact_now(BasicCompactor(summariser=summariser(nested)), session, IdleHost())
    assert seen
    assert "compaction lock is already active" in seen[0]
    replayed = replay(session)
    assert replayed.derive_messages() == session.derive_messages()


def test_guard_rejections_are_log_violations_or_runtime_errors_only() -> None:
    with pytest.raises(LogViolationError):
        Session("s").append("compaction/end", {"compactionId": "x", "turn": None})
