"""Properties: replaying any engine-written log rebuilds the surface and messages exactly, and
every failed manual compaction leaves the surface untouched with only start and an error end."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.invariants.session import SessionError, SessionEvent, assert_log_valid
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
    fold_surface,
    load_pruner_config,
)
from tests.reference_engine.session.session_script import Script, replay, user_data

FAILURES = ("none", "summariser", "rival", "summary-append", "no-shrink")

operation = st.one_of(
    st.tuples(st.just("user"), st.integers(1, 400)),
    st.tuples(st.just("turn"), st.integers(0, 3)),
    st.tuples(st.just("manual"), st.sampled_from(FAILURES)),
    st.tuples(st.just("overflow"), st.integers(0, 1)),
)


class OneShotGuard:
    """Rejects the next compaction/summary append once."""

    def __init__(self) -> None:
        self.armed = False

    def __call__(self, session: Session, event: SessionEvent) -> None:
        if self.armed and event.type == "compaction/summary":
            self.armed = False
            raise RuntimeError("summary append rejected")


def make_summariser(mode: list[str], session: Session) -> FunctionSummariser:
    inner = TextSummariser()

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        if mode[0] == "summariser":
            raise RuntimeError("summariser failed")
        if mode[0] == "rival":
            # Replace a neutral span node, so the rival keeps tool pairing intact.
            shadowed = {m.id for m in request.messages}
            head = next(
                (
                    seq
                    for seq in session.surface_nodes
                    if (event := session.event_at(seq)) is not None
                    and event.type == "user/message"
                    and event.data["id"] in shadowed
                ),
                None,
            )
            if head is not None:
                session.append(
                    "user/message",
                    user_data(f"rival{session.seq}", "r"),
                    surface_op={"op": "replace", "start": head, "end": head},
                    source_event_seqs=[head],
                )
        if mode[0] == "no-shrink":
            return SummaryDraft(({"type": "text", "text": "z" * 20_000},), "p", "m")
        return inner.summarise(request, None)

    return FunctionSummariser(run)


def run_program(program: list[tuple[str, Any]]) -> tuple[Script, list[dict[str, Any]]]:
    script = Script()
    session = script.session
    guard = OneShotGuard()
    session.add_guard(guard)
    mode = ["none"]
    compactor = BasicCompactor(
        summariser=make_summariser(mode, session),
        pruner=load_pruner_config({"threshold_chars": 300, "head_chars": 100, "tail_chars": 50}),
    )
    failures: list[dict[str, Any]] = []
    for kind, arg in program:
        if kind == "user":
            script.user("p" * arg)
        elif kind == "turn":
            script.begin_turn()
            script.header()
            for index in range(arg):
                script.tool_step(f"c{script.turn}-{index}", "o" * (150 * index + 10))
            if kind == "turn" and arg % 2 == 0:
                mode[0] = "none"
                # The overflow listener only warns on failure; the log must still be valid.
                with contextlib.suppress(SessionError):
                    compactor.compact_if_needed(session, "context-overflow")
            script.end_turn()
        elif kind == "manual":
            mode[0] = arg
            guard.armed = arg == "summary-append"
            before = (session.surface_nodes, session.replace_generation, session.derive_messages())
            seq_before = session.seq
            try:
                compact_now(compactor, session, IdleHost())
            except ManualCompactionError as error:
                failures.append(
                    {
                        "code": error.code,
                        "before": before,
                        "seq_before": seq_before,
                        "mode": arg,
                        "after": (
                            session.surface_nodes,
                            session.replace_generation,
                            session.derive_messages(),
                        ),
                    }
                )
            guard.armed = False
    return script, failures


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=12))
def test_replay_rebuilds_the_same_surface_and_messages(program: list[tuple[str, Any]]) -> None:
    script, _ = run_program(program)
    session = script.session
    assert_log_valid(session.events)
    rebuilt = replay(session)
    assert rebuilt.surface_nodes == session.surface_nodes
    assert rebuilt.replace_generation == session.replace_generation
    assert rebuilt.derive_messages() == session.derive_messages()
    fold = fold_surface(session.events)
    assert fold.nodes == session.surface_nodes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=12))
def test_failed_manual_compaction_changes_nothing_but_start_and_error_end(
    program: list[tuple[str, Any]],
) -> None:
    script, failures = run_program(program)
    session = script.session
    for failure in failures:
        written = [e for e in session.events if failure["seq_before"] <= e.seq]
        family = [e for e in written if e.type.startswith("compaction/")]
        first_two = [e.type for e in family[:2]]
        assert first_two == ["compaction/start", "compaction/end"]
        assert "error" in family[1].data
        if failure["code"] == "changed":
            assert failure["mode"] == "rival"
            assert failure["after"][1] == failure["before"][1] + 1
            continue  # the rival's own replace is the only surface change
        assert failure["code"] in {"summary", "commit"}
        assert failure["after"] == failure["before"]
