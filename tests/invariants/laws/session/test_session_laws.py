"""The session-view laws: silent on the reference engine, loud on hand-made breaches and mutants."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from compactcheck.harness import SessionBackendError, SessionCompactor, session_exchange
from compactcheck.invariants import Facts
from compactcheck.invariants.catalogue import catalogue, run_checks, select
from compactcheck.invariants.session import SessionEvent, check_log
from compactcheck.invariants.session.exchange import MODES, Mode, SessionAfter, SessionBefore
from compactcheck.reference_engine.mutants import Mutant
from compactcheck.reference_engine.mutants.session import SESSION_MUTANTS
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories

SESSION_LAWS = catalogue("session")
FACTS = Facts(goal="fix the login bug")
LONG = "x " * 200
Event = dict[str, Any]
Exchange = tuple[SessionBefore, SessionAfter]


def _user(seq: int, text: str) -> Event:
    message = {
        "id": f"m{seq}",
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
    }
    return {"type": "user/message", "seq": seq, "time": seq, "data": message, "surfaceOp": "append"}


def _assistant(seq: int, content: list[Event]) -> Event:
    message = {
        "id": f"a{seq}",
        "role": "assistant",
        "content": content,
        "source": {"kind": "model", "provider": "p", "model": "m"},
    }
    data = {"turn": 1, "step": 1, "message": message}
    return {
        "type": "assistant/message",
        "seq": seq,
        "time": seq,
        "data": data,
        "surfaceOp": "append",
    }


def _result(seq: int, call: str, text: str) -> Event:
    block = {
        "type": "tool-result",
        "toolCallId": call,
        "isError": False,
        "content": [{"type": "text", "text": text}],
    }
    message = {
        "id": f"r{seq}",
        "role": "user",
        "content": [block],
        "source": {"kind": "tool", "callId": call},
    }
    data = {"turn": 1, "step": 1, "message": message}
    return {"type": "tool/result", "seq": seq, "time": seq, "data": data, "surfaceOp": "append"}


def _log(filler: str) -> list[Event]:
    """One closed turn with a tool pair, then a new user prompt: surface seqs 0, 3, 5, 6, 9."""
    call = {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"path": "app.py"}'}
    return [
        _user(0, f"Goal: fix the login bug. {filler}"),
        {"type": "turn/start", "seq": 1, "time": 1, "data": {"turn": 1}},
        {"type": "step/start", "seq": 2, "time": 2, "data": {"turn": 1, "step": 1}},
        _assistant(3, [call]),
        {
            "type": "tool/call",
            "seq": 4,
            "time": 4,
            "data": {"turn": 1, "step": 1, "callId": "c1", "name": "read", "arguments": "{}"},
        },
        _result(5, "c1", f"def login(): {filler}"),
        _assistant(6, [{"type": "text", "text": f"The bug is in login. {filler}"}]),
        {"type": "step/end", "seq": 7, "time": 7, "data": {"turn": 1, "step": 1}},
        {
            "type": "turn/end",
            "seq": 8,
            "time": 8,
            "data": {"turn": 1, "reason": {"kind": "completed"}},
        },
        _user(9, "Now add a test."),
    ]


LOG = _log(LONG)
SHORT_LOG = _log("")  # too small for any checkpoint to shrink it: manual compaction fails


def _history(log: list[Event]) -> SessionHistory:
    return SessionHistory(tuple(SessionEvent.from_json_data(event) for event in log))


def _edited(edit: Callable[[list[Event]], list[Event]]) -> SessionCompactor:
    """The reference with its appended events edited by hand."""
    reference = reference_session_compactor()

    def backend(payload: dict[str, Any]) -> dict[str, Any]:
        answer = reference(payload)
        if "appended" in answer:
            return {"appended": edit(copy.deepcopy(answer["appended"]))}
        return answer

    return backend


def _run(
    backend: SessionCompactor | None = None, log: list[Event] = LOG, mode: Mode = "manual"
) -> Exchange:
    done = session_exchange(backend or reference_session_compactor(), _history(log), mode)
    assert done is not None
    return done


def _only(law: str, example: Exchange) -> list[str]:
    """The law's violations' sentences, checking their witnesses are small."""
    [chosen] = select("session", [law])
    finding = chosen.check(*example, FACTS)
    assert finding.exercised
    assert all(len(v.witness) <= 4 for v in finding.violations)
    return [v.because for v in finding.violations]


def _broken(example: Exchange) -> list[str]:
    return [f.invariant for f in run_checks(SESSION_LAWS, *example, FACTS) if not f.holds]


# Indexes into the reference's answer on LOG: start, summary, checkpoint, end (seqs 10..13).
START, SUMMARY, CHECKPOINT, END = range(4)


def test_catalogue_has_every_session_law_of_issue_five() -> None:
    assert [law.id for law in SESSION_LAWS] == [
        "surface_well_formed",
        "transaction_grammar",
        "tool_pairing",
        "lock_exclusive",
        "shrinks",
        "tail_retained",
        "failure_atomic",
        "replay_deterministic",
        "summary_hygiene",
        "checkpoint_identifiable",
        "progress",
    ]


def test_reference_commits_on_the_hand_log_and_breaks_no_law() -> None:
    before, after = _run()
    assert [e.type for e in after.appended] == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    assert after.surface.nodes == (12, 9)
    assert check_log(after.events) is None
    assert _broken((before, after)) == []


def test_reference_failure_is_atomic_and_breaks_no_law() -> None:
    example = _run(log=SHORT_LOG)
    assert [e.type for e in example[1].appended] == ["compaction/start", "compaction/end"]
    assert "not smaller" in example[1].appended[-1].data["error"]
    assert _broken(example) == []
    assert _only("failure_atomic", example) == []


def test_surface_well_formed_names_the_s_rule() -> None:
    def cite_markers(a: list[Event]) -> list[Event]:
        a[CHECKPOINT]["sourceEventSeqs"] = [10, 11]
        return a

    [because] = _only("surface_well_formed", _run(_edited(cite_markers)))
    assert "S6" in because
    assert "user/message seq 12" in because


def test_transaction_grammar_names_the_bracket_rule() -> None:
    def other_end(a: list[Event]) -> list[Event]:
        a[END]["data"]["compactionId"] = "someone-else"
        return a

    [because] = _only("transaction_grammar", _run(_edited(other_end)))
    assert "C4c" in because
    assert "compaction/end seq 13" in because


def _reshape(a: list[Event], span: list[int], price: int) -> list[Event]:
    summary = a[SUMMARY]["data"]
    summary.update(
        shadowedRange={"start": span[0], "end": span[-1]},
        shadowedSeqs=span,
        shadowedTokenCount=price,
    )
    a[CHECKPOINT]["surfaceOp"] = {"op": "replace", "start": span[0], "end": span[-1]}
    a[CHECKPOINT]["sourceEventSeqs"] = [10, 11, *span]
    return a


def test_tool_pairing_catches_a_call_compacted_without_its_result() -> None:
    reference = _run()
    prices = reference[1].appended[SUMMARY].data["shadowedTokenCount"]
    example = _run(_edited(lambda a: _reshape(a, [0, 3], prices)))
    [because] = _only("tool_pairing", example)
    assert "1 tool call(s) are open at the cut after it" in because
    assert "assistant/message seq 3 is shadowed" in because
    assert "tool/result seq 5 stays visible" in because
    assert _only("tool_pairing", reference) == []


def test_lock_exclusive_catches_a_lock_left_taken() -> None:
    def drop_end(a: list[Event]) -> list[Event]:
        return a[:END]

    [because] = _only("lock_exclusive", _run(_edited(drop_end)))
    assert "compaction/start seq 10" in because
    assert "never closed" in because


def test_lock_exclusive_catches_a_compaction_over_a_live_lock() -> None:
    rival = {
        "type": "compaction/start",
        "seq": 10,
        "time": 10,
        "data": {"compactionId": "rival", "turn": None},
    }
    mine = [
        {
            "type": "compaction/start",
            "seq": 11,
            "time": 11,
            "data": {"compactionId": "mine", "turn": None},
        },
        {
            "type": "compaction/end",
            "seq": 12,
            "time": 12,
            "data": {"compactionId": "mine", "turn": None, "error": "no"},
        },
    ]
    example = _run(lambda payload: {"appended": copy.deepcopy(mine)}, [*LOG, rival])
    assert example[0].live_lock == 10
    found = _only("lock_exclusive", example)
    assert found == [
        "compaction/start seq 10 holds a live lock (no end, no later end-seed), yet the backend "
        "appended compaction/start seq 11 instead of reporting busy"
    ]
    # The reference reports busy: it declines and writes nothing.
    assert (
        session_exchange(reference_session_compactor(), _history([*LOG, rival]), "manual") is None
    )


def test_shrinks_catches_a_checkpoint_bigger_than_its_range() -> None:
    def bloat(a: list[Event]) -> list[Event]:
        padding = {"type": "text", "text": "y " * 2000}
        a[SUMMARY]["data"]["summary"].append(padding)
        content = a[CHECKPOINT]["data"]["content"]
        content.insert(len(content) - 1, padding)
        return a

    [because] = _only("shrinks", _run(_edited(bloat)))
    assert "checkpoint user/message seq 12 is priced" in because
    assert "seqs 0..6" in because


def test_tail_retained_catches_the_newest_node_compacted() -> None:
    def reach_newest(a: list[Event]) -> list[Event]:
        a[CHECKPOINT]["surfaceOp"]["end"] = 9
        a[CHECKPOINT]["sourceEventSeqs"].append(9)
        return a

    [because] = _only("tail_retained", _run(_edited(reach_newest)))
    assert because.startswith("user/message seq 9 (the newest node) lies outside every summarised")
    assert "hidden by user/message seq 12" in because


def test_failure_atomic_catches_a_checkpoint_left_by_a_failed_attempt() -> None:
    def fail_late(a: list[Event]) -> list[Event]:
        a[END]["data"]["error"] = "stability check failed after commit"
        return a

    found = _only("failure_atomic", _run(_edited(fail_late)))
    assert any("also appended user/message seq 12" in because for because in found)
    assert any("the surface changed" in because for because in found)


def test_replay_deterministic_catches_an_edit_of_the_handed_log() -> None:
    reference = reference_session_compactor()

    def edit_in_place(payload: dict[str, Any]) -> dict[str, Any]:
        payload["log"][9]["data"]["content"][0]["text"] = "Now add two tests."
        return reference(payload)

    [because] = _only("replay_deterministic", _run(edit_in_place))
    assert "edited the handed log in place at seq 9" in because


def test_summary_hygiene_catches_images_and_broken_framing() -> None:
    def image(a: list[Event]) -> list[Event]:
        block = {"type": "image", "attachment": "screenshot.png"}
        a[SUMMARY]["data"]["summary"].append(block)
        a[CHECKPOINT]["data"]["content"].insert(2, block)
        return a

    def unclosed(a: list[Event]) -> list[Event]:
        a[CHECKPOINT]["data"]["content"][-1]["text"] = "</summary>"
        return a

    found = _only("summary_hygiene", _run(_edited(image)))
    assert any("compaction/summary seq 11 carries image" in because for because in found)
    [because] = _only("summary_hygiene", _run(_edited(unclosed)))
    assert "does not close with a </compacted-summary> block" in because


def test_checkpoint_identifiable_catches_missing_marker_and_wrong_citations() -> None:
    def plain(a: list[Event]) -> list[Event]:
        a[CHECKPOINT]["data"]["source"] = {"kind": "user"}
        return a

    def reordered(a: list[Event]) -> list[Event]:
        a[CHECKPOINT]["sourceEventSeqs"] = [11, 10, 0, 3, 5, 6]
        return a

    [because] = _only("checkpoint_identifiable", _run(_edited(plain)))
    assert "lacks the checkpoint marker" in because
    [because] = _only("checkpoint_identifiable", _run(_edited(reordered)))
    assert "[10, 11, 0, 3, 5, 6]" in because


def test_progress_catches_an_empty_result_in_overflow_mode() -> None:
    # One user message: nothing to compact, so the reference declines...
    assert session_exchange(reference_session_compactor(), _history(LOG[:1]), "overflow") is None
    # ...and an empty result would authorise a retry with the same context.
    example = _run(lambda payload: {"appended": []}, LOG[:1], "overflow")
    [because] = _only("progress", example)
    assert "overflow retry would resend the same context" in because


def test_harness_declines_and_faults() -> None:
    open_turn = LOG[:6]  # inside turn 1: manual compaction is busy
    assert session_exchange(reference_session_compactor(), _history(open_turn), "manual") is None

    def raises(payload: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("model unavailable")

    with pytest.raises(SessionBackendError, match="raised RuntimeError"):
        session_exchange(raises, _history(LOG), "manual")
    with pytest.raises(SessionBackendError, match="expected an answer"):
        session_exchange(lambda payload: {"events": []}, _history(LOG), "manual")
    with pytest.raises(SessionBackendError, match="not a session event"):
        session_exchange(lambda payload: {"appended": [{"type": "x"}]}, _history(LOG), "manual")


def test_automatic_modes_run_inside_a_routed_turn() -> None:
    before, after = _run(mode="pressure")
    added = [e.type for e in before.events[len(LOG) :]]
    assert added == ["turn/start", "request/header", "request/context"]
    assert after.appended[0].data["turn"] == 2
    assert _broken((before, after)) == []


def test_reference_breaks_no_session_law_and_exercises_every_law() -> None:
    exercised: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    compactor = reference_session_compactor()

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(session_histories())
    def reference_holds(projected: Projected[SessionHistory]) -> None:
        for mode in MODES:
            example = session_exchange(compactor, projected.view, mode)
            if example is None:
                outcomes[f"{mode} declined"] += 1
                continue
            failed = any(
                e.type == "compaction/end" and "error" in e.data for e in example[1].appended
            )
            outcomes[f"{mode} {'failed' if failed else 'committed'}"] += 1
            for finding in run_checks(SESSION_LAWS, *example, FACTS):
                assert finding.holds, [v.because for v in finding.violations]
                exercised[finding.invariant] += finding.exercised

    reference_holds()
    total = sum(n for outcome, n in outcomes.items() if not outcome.endswith("declined"))
    assert total >= 200, outcomes
    shares = {law.id: round(exercised[law.id] / total, 2) for law in SESSION_LAWS}
    print(f"\nsession laws exercised over {total} answers ({dict(outcomes)}): {shares}")
    thin = {law: share for law, share in shares.items() if share < 0.05}
    assert not thin, thin


def _mutant_examples() -> st.SearchStrategy[tuple[Projected[SessionHistory], Mode]]:
    return st.tuples(session_histories(), st.sampled_from(MODES))


@pytest.mark.parametrize("mutant", SESSION_MUTANTS, ids=[m.name for m in SESSION_MUTANTS])
def test_session_mutant_is_caught_by_its_law_with_a_small_witness(mutant: Mutant) -> None:
    [law] = select("session", [mutant.targets])

    def broken(example: tuple[Projected[SessionHistory], Mode]) -> bool:
        projected, mode = example
        done = session_exchange(mutant.build(), projected.view, mode)
        return done is not None and not law.check(*done, FACTS).holds

    try:
        witness = find(
            _mutant_examples(),
            broken,
            settings=settings(max_examples=100, database=None, deadline=None, derandomize=True),
        )
    except NoSuchExample:
        pytest.fail(f"{mutant.name} was not caught by {mutant.targets} within 100 examples")
    projected, mode = witness
    done = session_exchange(mutant.build(), projected.view, mode)
    assert done is not None
    violations = law.check(*done, FACTS).violations
    assert violations
    assert all(v.because for v in violations)
    assert all(1 <= len(v.witness) <= 4 or mutant.targets == "progress" for v in violations), [
        v.witness for v in violations
    ]
    size = len(projected.view.events)
    print(f"\n{mutant.name}: caught in {mode} mode, shrunk history of {size} events")
    assert size <= mutant.max_witness, f"shrunk witness has {size} events"
