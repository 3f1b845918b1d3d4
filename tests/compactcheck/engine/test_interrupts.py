"""Signals during a run are recorded, then acted on where unwinding is safe."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from compactcheck.base import interrupts
from compactcheck.base.interrupts import Terminated, listening
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import InterruptedRunError, run_target
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve
from tests.signals import SELF_INTERRUPTING, ctrl_c_heard  # noqa: F401 (a fixture)


@pytest.mark.usefixtures("ctrl_c_heard")
def test_the_first_signal_is_recorded_and_raised_at_the_next_check() -> None:
    with listening():
        signal.raise_signal(signal.SIGINT)
        assert interrupts.heard()
        with pytest.raises(KeyboardInterrupt) as raised:
            interrupts.check()
        assert not isinstance(raised.value, Terminated)
        # A second signal means the user insists: raised at once.
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert not interrupts.heard()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    interrupts.check()


@pytest.mark.usefixtures("ctrl_c_heard")
def test_sigterm_is_heard_as_terminated_and_the_handler_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with listening():
        signal.raise_signal(signal.SIGTERM)
        with pytest.raises(Terminated):
            interrupts.check()
    assert signal.getsignal(signal.SIGTERM) == before


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with listening():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
            interrupts.check()
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_heard")
def test_a_signal_during_a_backend_call_stops_the_run_at_once(tmp_path: Path) -> None:
    module = tmp_path / "busy.py"
    module.write_text(SELF_INTERRUPTING)
    # In-process: the compactor plays the user, whose Ctrl-C reaches this process.
    target = resolve(f"py:{module}:compact", view="messages", calls=Calls(in_process=True))
    config = RunConfig(seed=1, max_examples=10_000, profile="ci", corpus_dir=tmp_path)
    try:
        with listening(), pytest.raises(InterruptedRunError) as raised:
            run_target(target, "messages", config)
    finally:
        target.close()
    partial = raised.value.report
    # Stopped at the call that heard it, not at the end of the budget.
    assert partial.errors == ["interrupted: the counts cover the histories run so far"]
    examples = max(result.examples for result in partial.results)
    assert 1 <= examples <= 5
