"""Shards side by side as threads (--in-flight): the same cut finds the same, in threads, in
processes, in both, or one shard after another; an idle lane takes the next shard; a stop
reaches every lane."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from compactcheck.base import interrupts
from compactcheck.base.interrupts import listening
from compactcheck.base.shards import Shard
from compactcheck.corpus.replay import replay
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import InterruptedRunError, run_pooled, run_target
from compactcheck.engine.plan import gather_corpora
from compactcheck.report.model import TargetReport
from compactcheck.scale.handout import Handout, LocalLanes
from compactcheck.scale.merge import merge_target_groups, point_into
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve
from tests.signals import SELF_INTERRUPTING, ctrl_c_heard  # noqa: F401 (a fixture)

# A mutant whose laws break within a few histories, so that every shard has witnesses to
# shrink (in its lane's thread, for the threaded runs).
MUTANT = "mutant:messages-keep-last-n"
SEED = 7
BUDGET = 40
# Four lanes cut 40 histories into four shards of ten (``plan._parts``).
LANES = 4
# Laws the mutant breaks, and one it keeps: witnesses to shrink, and a pass, in each shard.
LAWS = ("tool_pairing", "user_turn_present", "order_preserved")


def _config(folder: Path) -> RunConfig:
    return RunConfig(
        seed=SEED,
        max_examples=BUDGET,
        profile="ci",
        corpus_dir=folder / "corpus",
        seed_given=True,
        include=LAWS,
    )


def _pooled(folder: Path, *, workers: int, in_flight: int | None) -> TargetReport:
    return run_pooled(
        MUTANT,
        "messages",
        _config(folder),
        workers=workers,
        calls=Calls(timeout=10),
        in_flight=in_flight,
    )


def _one_after_another(folder: Path) -> TargetReport:
    """The same cut in this process, one shard after another (as ``--compactcheck-shards 4``
    runs it in one pytest process), merged as a run with lanes merges its shards."""
    config = _config(folder)
    reports = []
    for shard in Shard.all_of(LANES):
        target = resolve(MUTANT, view="messages", calls=Calls(timeout=10))
        try:
            reports.append(run_target(target, "messages", config.for_piece(shard)))
        finally:
            target.close()
    gather_corpora(config.corpus_dir)
    [merged] = merge_target_groups(reports)
    return point_into(merged, config.corpus_dir)


def _found(report: TargetReport, folder: Path) -> dict[str, Any]:
    """What a run found, without its timing: each law's verdict, counts and witness, the
    calls, the fidelity measures, and the corpus entries as written."""
    data = report.model_dump(mode="json")
    data.pop("seconds")
    corpus = folder / "corpus"
    entries = {
        path.relative_to(corpus).as_posix(): json.loads(path.read_text())
        for path in sorted(corpus.rglob("*.json"))
    }
    return {"report": json.loads(json.dumps(data).replace(str(folder), "<run>")), "corpus": entries}


def test_one_cut_finds_the_same_in_threads_processes_both_and_one_after_another(
    tmp_path: Path,
) -> None:
    runs = {
        "threads of this process": lambda folder: _pooled(folder, workers=1, in_flight=LANES),
        "four processes": lambda folder: _pooled(folder, workers=LANES, in_flight=None),
        "two threads in each of two processes": lambda folder: _pooled(
            folder, workers=2, in_flight=LANES
        ),
        "one shard after another": _one_after_another,
    }
    found = {}
    for name, run in runs.items():
        folder = tmp_path / name.replace(" ", "-")
        found[name] = _found(run(folder), folder)
    reference = found["one shard after another"]
    verdicts = {r["invariant"]: r["verdict"] for r in reference["report"]["results"]}
    # Not a comparison of empty runs: the mutant broke laws, and their witnesses were shrunk.
    assert verdicts["tool_pairing"] == verdicts["user_turn_present"] == "violation", verdicts
    assert verdicts["order_preserved"] == "pass", verdicts
    broken = [r for r in reference["report"]["results"] if r["verdict"] == "violation"]
    assert all(r["counterexample"] is not None for r in broken)
    assert reference["corpus"], "no corpus entry was written"
    for name, seen in found.items():
        assert seen == reference, f"{name} found otherwise than one shard after another"
    # What the lanes wrote replays as written: each entry still fails its law.
    replayed = replay(tmp_path / "threads-of-this-process" / "corpus")
    assert len(replayed) == len(reference["corpus"])
    assert {result.verdict for result in replayed} == {"still failing"}


def test_an_idle_lane_takes_the_next_shard_and_every_shard_runs_once() -> None:
    handout = Handout(12)
    taken: list[tuple[int, str]] = []
    lock = threading.Lock()

    def work(index: int) -> int:
        with lock:
            taken.append((index, threading.current_thread().name))
        # Shard 0 straggles: the other lanes take the rest meanwhile.
        time.sleep(0.6 if index == 0 else 0.02)
        return index * index

    LocalLanes(handout, 3, work, lambda: None)
    returned = [handout.returned.get(timeout=10) for _ in range(12)]
    assert sorted(r.index for r in returned) == list(range(12))
    assert all(r.value == r.index * r.index and r.error is None for r in returned)
    # Handed out in the plan's order, whichever lane asked.
    assert [index for index, _ in taken] == sorted(index for index, _ in taken)
    straggler = next(name for index, name in taken if index == 0)
    # The lane held by the straggler ran nothing else meanwhile; the others shared the rest.
    assert [index for index, name in taken if name == straggler] == [0]
    assert handout.returned.empty()


def test_a_stop_reaches_every_lane_and_no_more_shards_are_handed_out() -> None:
    handout = Handout(100)
    started = threading.Event()

    def work(index: int) -> int:
        started.set()
        while True:
            # A search checks between examples; a lane told to stop unwinds from here.
            interrupts.check()
            time.sleep(0.01)

    lanes = LocalLanes(handout, 4, work, lambda: None)
    assert started.wait(10)
    time.sleep(0.1)
    handout.close()
    lanes.stop()
    returned = [handout.returned.get(timeout=10) for _ in range(handout.handed)]
    assert handout.handed == 4
    assert all(isinstance(r.error, KeyboardInterrupt) for r in returned)
    # The stop was for those lanes alone: this thread's checks are unaffected.
    interrupts.check()


@pytest.mark.usefixtures("ctrl_c_heard")
def test_a_ctrl_c_stops_every_lane_and_the_partial_report_is_kept(tmp_path: Path) -> None:
    module = tmp_path / "busy.py"
    module.write_text(SELF_INTERRUPTING)
    config = RunConfig(seed=1, max_examples=10_000, profile="ci", corpus_dir=tmp_path / "corpus")
    # In-process lanes share the module: its fifth call, in whichever lane, is the Ctrl-C.
    calls = Calls(timeout=10, in_process=True)
    started = time.monotonic()
    with listening(), pytest.raises(InterruptedRunError) as raised:
        run_pooled(f"py:{module}:compact", "messages", config, workers=1, calls=calls, in_flight=4)
    assert time.monotonic() - started < 60
    partial = raised.value.report
    assert partial.errors == ["interrupted: the counts cover the histories run so far"]
    examples = max(result.examples for result in partial.results)
    # Stopped near the call that heard it, not at the end of the budget; lanes that had begun
    # their shards handed back what they had judged.
    assert 1 <= examples <= 40
    assert not interrupts.heard()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
