"""Spec 6.8: the /compact command: texts for each outcome, usage, abort and re-raise."""

from __future__ import annotations

import pytest

from compactcheck.reference_engine.session import (
    COMMAND_TEXT,
    NOTHING_TEXT,
    USAGE_TEXT,
    AbortSignal,
    BasicCompactor,
    FunctionSummariser,
    IdleHost,
    Measurement,
    Session,
    SummarisationInput,
    SummaryDraft,
    TextSummariser,
    TokenMeter,
    run_compact_command,
)
from tests.reference_engine.session.session_script import Script


def compacted_script() -> Script:
    script = Script()
    script.conversation(3)
    return script


def test_success_text_points_at_the_summary() -> None:
    script = compacted_script()
    outcome = run_compact_command(BasicCompactor(), script.session, IdleHost(), "cmd-1")
    assert outcome.text.startswith("Compacted ")
    assert "history items (~" in outcome.text
    summary = script.session.event_at(outcome.source_event_seq or -1)
    assert summary is not None
    assert summary.type == "compaction/summary"
    assert summary.data["sourceCommandId"] == "cmd-1"
    assert all(
        e.surface_op is None for e in script.session.events if e.type.startswith("compaction/")
    )


def test_nothing_to_compact_and_arguments() -> None:
    script = Script()
    script.user("one")
    text = TextSummariser()
    compactor = BasicCompactor(summariser=text)
    assert run_compact_command(compactor, script.session, IdleHost(), "c").text == NOTHING_TEXT
    assert run_compact_command(compactor, script.session, IdleHost(), "c", "now").text == USAGE_TEXT
    assert text.calls == []


def test_every_code_has_a_fixed_text() -> None:
    assert set(COMMAND_TEXT) == {"busy", "cancelled", "changed", "summary", "commit", "persistence"}
    assert COMMAND_TEXT["cancelled"] == "Compaction cancelled."
    script = compacted_script()
    busy = run_compact_command(BasicCompactor(), script.session, IdleHost(idle=False), "c")
    assert busy.text == COMMAND_TEXT["busy"]


def test_caller_abort_reports_cancelled_and_unexpected_errors_propagate() -> None:
    script = compacted_script()
    signal = AbortSignal()

    def abort(request: SummarisationInput, s: AbortSignal | None) -> SummaryDraft:
        signal.abort()
        raise RuntimeError("x")

    compactor = BasicCompactor(summariser=FunctionSummariser(abort))
    outcome = run_compact_command(compactor, script.session, IdleHost(), "c", signal=signal)
    assert outcome.text == COMMAND_TEXT["cancelled"]


class BrokenMeter(TokenMeter):
    """A meter that fails in a way the command does not classify."""

    def measure(self, session: Session) -> Measurement:
        raise ZeroDivisionError("meter broke")


def test_unexpected_errors_are_re_raised() -> None:
    script = compacted_script()
    with pytest.raises(ZeroDivisionError):
        run_compact_command(BasicCompactor(meter=BrokenMeter()), script.session, IdleHost(), "c")
