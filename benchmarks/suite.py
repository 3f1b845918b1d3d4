"""Every figure of BENCHMARKS.md, each beside the ratio it is judged by, measured in one run.

Run: benchmarks/run (or .venv/bin/python -m benchmarks.suite; --quick for a smoke run).
Figures are wall-clock on whatever machine runs them; the ratios are what carries over.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from hypothesis import given, seed

from benchmarks.audit_log import pairs_per_second
from benchmarks.case_strategy import case_strategy
from benchmarks.dev_test_time import suite_time
from benchmarks.generation import VIEWS as GENERATED
from benchmarks.generation import generation_only, rate
from benchmarks.guard_overhead import guard_overhead
from benchmarks.messages_judgement import (
    Pair,
    best_ms,
    control,
    exponent,
    fresh,
    judge,
    pair,
    parse_and_judge,
)
from benchmarks.mutant_seeds import mutant_config
from benchmarks.parallel import parallel
from benchmarks.plugin_startup import plugin_startup
from benchmarks.repair_fuzz import repair_section
from benchmarks.rulings import rulings_section
from benchmarks.session_exchange import session_exchange_costs
from benchmarks.snapshot_validation import (
    cited_snapshot,
    history,
    seed_evidence_check,
    time_validation,
)
from benchmarks.throughput import throughput
from compactcheck.base.backend import Backend, handed
from compactcheck.base.loading import load_attribute
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import AgentEvent, Decision, View, catalogue, dump_messages
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages.reading import forget_searchable_texts
from compactcheck.strategies import message_histories, scenarios
from compactcheck.targets.calls import Calls
from compactcheck.targets.inprocess import CallableBackend
from compactcheck.targets.registry import all_mutants, resolve
from compactcheck.targets.subprocess_backend import CommandBackend

ROOT = Path(__file__).resolve().parent.parent
PYTHON_HARNESS = ROOT / "examples" / "python-harness" / "harness.py"
NODE_HARNESS = ROOT / "examples" / "node-harness" / "harness.js"
# The seed's evidence check is quadratic; beyond this many (ids x events) it is sampled.
_SEED_FULL_LIMIT = 2 * 10**8
# The checker's goal (the speed issue): linear work, so 10x the input costs at most 10**1.1 x.
_MAX_EXPONENT = 1.1
# The quick run's repair section: one mutant per wire format of the four.
QUICK_REPAIR = (
    "mutant:messages-keep-last-n",
    "mutant:anthropic-keep-last-n",
    "mutant:responses-keep-last-n",
    "mutant:gemini-keep-last-n",
)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, {sys.platform}; "
        f"load average at start {load}"
    )


def _burn(count: int) -> int:
    total = 0
    for number in range(count):
        total += number * number
    return total


def _ceiling() -> float:
    """How much faster two processes burn pure-Python CPU than one: this machine's own limit."""
    from concurrent.futures import ProcessPoolExecutor

    work = 5_000_000
    start = time.perf_counter()
    for _ in range(2):
        _burn(work)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_burn, [1, 1]))
        start = time.perf_counter()
        list(pool.map(_burn, [work, work]))
        two = time.perf_counter() - start
    return one / two


def generation(examples: int) -> None:
    """Histories generated per second, per view, against bare scenarios."""
    print(f"\n## Generation: histories per second ({examples} examples per view, seed 0)")
    print(f"{'view':<10} {'per second':>11} {'vs scenario':>12}")
    # Warm up: the first Hypothesis run of a process pays for imports and caches.
    rate(GENERATED["scenario"](), 10)
    base = 0.0
    for name, strategy in GENERATED.items():
        _, per_second = rate(strategy(), examples)
        base = base or per_second
        print(f"{name:<10} {per_second:>11.1f} {per_second / base:>11.2f}x")


def _exponents(sizes: list[int], times: list[float]) -> list[float | None]:
    """Each size's scaling exponent from the size before it (none for the first)."""
    return [None] + [
        exponent(small, large, size / before)
        for before, size, small, large in zip(sizes, sizes[1:], times, times[1:], strict=False)
    ]


def _shown(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def exponent_verdicts(unit: str, ours: list[float], control: list[float], name: str) -> str:
    """The exponent target read twice: as the issue states it, and beside linear work here.

    As stated, every step's exponent is at most ``_MAX_EXPONENT``. Beside the control (linear
    work over the same data, timed in the same run), a step may also read up to
    ``_MAX_EXPONENT - 1`` above the control's at that step: on a host whose caches make linear
    work itself read 1.5 at a step, 1.1 there says nothing about the code, and a step that
    outgrows the control does.
    """
    slack = _MAX_EXPONENT - 1.0
    stated = max(ours) <= _MAX_EXPONENT
    beside = all(
        mine <= max(_MAX_EXPONENT, theirs + slack)
        for mine, theirs in zip(ours, control, strict=True)
    )
    shown = ", ".join(f"{value:.2f}" for value in ours)
    controls = ", ".join(f"{value:.2f}" for value in control)
    return (
        f"target: exponent at most {_MAX_EXPONENT} per 10x {unit}: {shown}, "
        f"{_verdict(stated)} as stated; beside {name} ({controls}), each step at most "
        f"{_MAX_EXPONENT} or {slack:.1f} above it: {_verdict(beside)}"
    )


def _walk(events: list[AgentEvent]) -> int:
    """The least a linear check does: read one field of every event, once."""
    return sum(event.sequence for event in events)


def checker(sizes: list[int]) -> None:
    """Snapshot validation events per second against the seed's quadratic evidence lookup."""
    print("\n## Checker: snapshot validation, events per second (one decision citing every 100th)")
    print(
        f"{'events':>9} {'ours s':>8} {'exponent':>8} {'walk s':>8} {'exponent':>8} "
        f"{'ours ev/s':>12} {'seed ev/s':>12} {'speed-up':>9}  note"
    )
    ours_times: list[float] = []
    walk_times: list[float] = []
    for size in sizes:
        events = history(size)
        cited = tuple(f"e{n}" for n in range(1, size + 1, 100))
        snapshot = cited_snapshot(size, cited)
        # Best of a few: the exponent compares sizes, and one slow round would skew it.
        ours = min(time_validation(snapshot, events) for _ in range(3))
        ours_times.append(ours)
        walk_times.append(best_ms(partial(_walk, events), repeat=3) / 1000)
        note = "full"
        sample = cited
        # Each id's scan is independent, so a spread sample times the whole check fairly.
        if len(cited) * size > _SEED_FULL_LIMIT:
            sample = cited[:: max(1, len(cited) // 20)]
            note = f"seed time extrapolated from {len(sample)} of {len(cited)} ids (quadratic)"
        sampled = snapshot.model_copy(
            update={"decisions": (Decision(statement="d", evidence_event_ids=sample),)}
        )
        start = time.perf_counter()
        seed_evidence_check(sampled, events)
        seed_time = (time.perf_counter() - start) * len(cited) / len(sample)
        print(
            f"{size:>9} {ours:>8.4f} {_shown(_exponents(sizes, ours_times)[-1]):>8} "
            f"{walk_times[-1]:>8.4f} {_shown(_exponents(sizes, walk_times)[-1]):>8} "
            f"{size / ours:>12.0f} {size / seed_time:>12.0f} {seed_time / ours:>8.1f}x  {note}"
        )
        del events
    if sizes[-1] == 1_000_000:
        print(
            f"target: 1,000,000 events validated in under 1 s: {ours_times[-1]:.3f} s, "
            f"{_verdict(ours_times[-1] < 1.0)}"
        )
    exponents = [e for e in _exponents(sizes, ours_times) if e is not None]
    if exponents:
        walked = [e for e in _exponents(sizes, walk_times) if e is not None]
        print(exponent_verdicts("events", exponents, walked, "the bare walk"))
    print(
        "(ours s: best of 3; exponent: log(t / t of the row above) / log(10x); walk s: a bare "
        "read of every event's sequence, best of 3, linear work whose exponent is this "
        "machine's own (caches, memory) at these sizes)"
    )


@dataclass(frozen=True)
class _Judged:
    """One size of the laws section: the pair's size and ms per judgement, in all and by law."""

    megabytes: float
    kept: int
    ms: dict[str, float]
    per_law: dict[str, float]


def _judged_alone(law: Invariant[Any, Any], judged: Pair) -> None:
    # Each message read as for the first time, as in ``judge``.
    forget_searchable_texts()
    law.check(fresh(judged.before), fresh(judged.after), judged.facts)


def _judged(size: int, by_law: bool) -> _Judged:
    judged = pair(size)
    judge(judged)
    ms = {
        "laws": best_ms(lambda: judge(judged)),
        "parse+laws": best_ms(lambda: parse_and_judge(judged)),
        "control": best_ms(lambda: control(judged)),
    }
    per_law = {
        law.id: best_ms(partial(_judged_alone, law, judged))
        for law in (catalogue("messages") if by_law else [])
    }
    return _Judged(judged.chars / 1e6, len(judged.after), ms, per_law)


def laws(sizes: list[int], breakdown: int = 1_000) -> None:
    """Ms to judge one compaction by every messages law, and how that grows with the history."""
    print(
        f"\n## Laws: one compaction judged by all {len(catalogue('messages'))} messages laws, "
        "ms per judgement (best of 7)"
    )
    print(
        f"{'messages':>8} {'MB':>6} {'kept':>5} {'laws ms':>8} {'exponent':>8} "
        f"{'parse+laws ms':>13} {'exponent':>8} {'control ms':>10} {'exponent':>8}"
    )
    rows: list[_Judged] = []
    for size in sizes:
        row = _judged(size, by_law=size == breakdown)
        rows.append(row)
        cells = []
        for name, width in (("laws", 8), ("parse+laws", 13), ("control", 10)):
            grown = _exponents(sizes, [done.ms[name] for done in rows])[-1]
            cells.append(f"{row.ms[name]:>{width}.3f} {_shown(grown):>8}")
        print(f"{size:>8} {row.megabytes:>6.2f} {row.kept:>5} " + " ".join(cells))
    at = {size: row for size, row in zip(sizes, rows, strict=True)}
    if breakdown in at:
        row = at[breakdown]
        print(
            f"target: under 10 ms at {breakdown:,} messages ({row.megabytes:.2f} MB): "
            f"{row.ms['laws']:.2f} ms laws only, {row.ms['parse+laws']:.2f} ms with parsing, "
            f"{_verdict(row.ms['laws'] < 10)}"
        )
    exponents = [e for e in _exponents(sizes, [row.ms["laws"] for row in rows]) if e is not None]
    if exponents:
        control_times = [row.ms["control"] for row in rows]
        controls = [e for e in _exponents(sizes, control_times) if e is not None]
        print(exponent_verdicts("messages (laws only)", exponents, controls, "the control"))
    print(
        "(kept: messages of the compaction judged (head, summary, tail); laws: parsed messages "
        "in, findings out; parse+laws: chat dicts in, both parsed with parse_messages first, as "
        "compactcheck.api.check does; control: one walk joining both lists' texts and one scan "
        "of it, linear work whose exponent is this machine's own (caches) at these sizes)"
    )
    if breakdown in at:
        per_law = at[breakdown].per_law
        total = sum(per_law.values())
        print(f"\nper law at {breakdown:,} messages (each timed alone)")
        print(f"{'law':<24} {'ms':>7} {'share':>6}")
        for name, ms in per_law.items():
            print(f"{name:<24} {ms:>7.3f} {ms / total:>6.0%}")


# The history size of the protocol figures (the goal is stated at 50 messages).
_PROTOCOL_MESSAGES = 50
# The protocol goal: a round trip through a process at least this fast, relative to in-process.
_PROTOCOL_GOAL = 0.8


def _histories(count: int, size: int = _PROTOCOL_MESSAGES) -> list[list[dict[str, Any]]]:
    """``count`` generated histories, each cut to its first ``size`` messages."""
    drawn: list[list[dict[str, Any]]] = []

    @generation_only(count * 4)
    @seed(0)
    @given(message_histories(scenarios(min_turns=8, max_turns=14)))
    def collect(projected: Any) -> None:
        messages = dump_messages(projected.view.messages)
        if len(messages) >= size and len(drawn) < count:
            drawn.append(messages[:size])

    collect()
    return drawn


def _round_trips(backend: Backend, histories: list[list[dict[str, Any]]]) -> float:
    """Round trips per second, one call at a time, each history handed over as the messages
    driver hands it (a copy to a compactor in this process, the history itself to a process)."""
    start = time.perf_counter()
    for messages in histories:
        answer = backend.compact("messages", {"messages": handed(backend, messages)})
        assert answer.kind == "result", answer.reason
    return len(histories) / (time.perf_counter() - start)


def _pipelined(backend: Backend, histories: list[list[dict[str, Any]]]) -> float:
    """Round trips per second, all the requests handed over as one batch (compact_many)."""
    start = time.perf_counter()
    requests: list[tuple[View, dict[str, Any]]] = [
        ("messages", {"messages": handed(backend, messages)}) for messages in histories
    ]
    assert isinstance(backend, CommandBackend | CallableBackend)
    for answer in backend.compact_many(requests):
        assert answer.kind == "result", answer.reason
    return len(histories) / (time.perf_counter() - start)


def protocol(count: int, repeats: int = 3) -> None:
    """Round trips per second: in-process, then each process one at a time and pipelined."""
    histories = _histories(count)
    print(
        f"\n## Protocol: compact round trips per second ({len(histories)} histories of "
        f"{_PROTOCOL_MESSAGES} messages, best of {repeats}, in one run)"
    )
    python = f"py:{PYTHON_HARNESS}:compact_messages"
    targets: list[tuple[str, str, Calls]] = [
        ("isolated", python, Calls()),
        ("cmd: Python", f"cmd:{sys.executable} {PYTHON_HARNESS}", Calls()),
        ("cmd: Node", f"cmd:node {NODE_HARNESS}", Calls()),
    ]
    print(
        f"{'how':<12} {'calls':<13} {'window':>6} {'round trips/s':>14} {'in-process':>11} "
        f"{'ratio':>7}  goal {_PROTOCOL_GOAL}x  {'bare call':>9} {'ratio':>7}"
    )
    # In-process as `compactcheck run --in-process` calls it: the driver's copy of the input,
    # the call in a thread of its own that the timeout can abandon, the answer's size checked.
    direct = resolve(python, view="messages", calls=Calls(in_process=True))
    # The bare call: the same backend without the timeout thread and without the copy (what
    # in-process would cost if it guarded against neither a hang nor an edit in place).
    bare = CallableBackend(
        load_attribute(f"{PYTHON_HARNESS}:compact_messages"),
        name="compact_messages",
        views=("messages",),
    )
    try:
        assert direct.backend is not None
        _round_trips(direct.backend, histories[:10])

        def bare_round_trips() -> float:
            start = time.perf_counter()
            for messages in histories:
                assert bare.compact("messages", {"messages": messages}).kind == "result"
            return len(histories) / (time.perf_counter() - start)

        def in_process() -> tuple[float, float]:
            # Measured again beside every row: on a shared host a spike in one measurement
            # of a fraction of a second would otherwise skew every ratio of the run.
            assert direct.backend is not None
            return (
                max(_round_trips(direct.backend, histories) for _ in range(repeats)),
                max(bare_round_trips() for _ in range(repeats)),
            )

        rows: list[tuple[str, str, int, float]] = []
        samples = [in_process()]
        for how, name, calls in targets:
            target = resolve(name, view="messages", calls=calls)
            try:
                backend = target.backend
                assert isinstance(backend, CommandBackend)
                # Warm up (imports, caches) before timing either way.
                _round_trips(backend, histories[:10])
                modes = [
                    ("one at a time", _round_trips, 1),
                    ("pipelined", _pipelined, backend.window),
                ]
                for mode, measure, window in modes:
                    per_second = max(measure(backend, histories) for _ in range(repeats))
                    rows.append((how, mode, window, per_second))
                    samples.append(in_process())
            finally:
                target.close()
    finally:
        direct.close()
    # Every ratio is against the best in-process figure of the whole run: a spike that slowed
    # one in-process measurement can only make the ratios smaller, never a goal met by chance.
    base = max(sample for sample, _ in samples)
    ceiling = max(sample for _, sample in samples)
    for how, mode, window, per_second in rows:
        ratio = per_second / base
        print(
            f"{how:<12} {mode:<13} {window:>6} {per_second:>14.1f} {base:>11.1f} "
            f"{ratio:>6.3f}x  {_verdict(ratio >= _PROTOCOL_GOAL):<9} {ceiling:>9.1f} "
            f"{per_second / ceiling:>6.3f}x"
        )
    low = min(sample for sample, _ in samples)
    print(
        f"(in-process measured {len(samples)} times, between the rows: {low:.0f} to {base:.0f}/s; "
        f"the bare call {min(sample for _, sample in samples):.0f} to {ceiling:.0f}/s)"
    )
    print(
        "(in-process: the example compactor as `compactcheck run --in-process` calls it: the "
        "messages driver's copy of each input (json_copy), the call in a thread that its "
        "timeout can abandon, the answer's size checked; bare call: the same without the copy "
        "and the thread; isolated: the same py: target in compactcheck's worker process, the "
        "default; cmd: the example Python harness and the Node harness, which wraps the same "
        "compactor ported to JavaScript; a process row is handed each history itself, as the "
        "driver hands it to a process (it is serialised, never shared); pipelined: "
        "compact_many keeps up to `window` requests in flight, as the corpus replay, the flaky "
        "re-runs and whole transcripts do)"
    )


def _timed_run(*arguments: str) -> tuple[float, dict[str, Any]]:
    """Wall seconds of `compactcheck run ARGUMENTS --profile ci --no-shrink` in a fresh folder
    (its corpus kept there), and its JSON report."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compactcheck",
                "run",
                *arguments,
                "--profile",
                "ci",
                "--no-shrink",
                "--corpus",
                str(Path(folder) / "corpus"),
                "--json",
                str(out),
            ],
            cwd=folder,
            capture_output=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        return seconds, json.loads(out.read_text())


def workers(examples: int) -> None:
    """Wall time of one CLI run over several targets with 1 and with 2 worker processes."""
    chosen = sorted(all_mutants())[::4]
    print(
        f"\n## Workers: `compactcheck run` over {len(chosen)} mutants, {examples} examples, "
        "no shrink"
    )
    print(f"{'workers':>7} {'seconds':>8} {'speed-up':>9}  verdicts")
    base = 0.0
    for count in (1, 2):
        seconds, data = _timed_run(
            *(f"mutant:{name}" for name in chosen),
            "--max-examples",
            str(examples),
            "--workers",
            str(count),
        )
        verdicts = sum(
            result["verdict"] == "violation"
            for target in data["targets"]
            for result in target["results"]
        )
        base = base or seconds
        print(f"{count:>7} {seconds:>8.1f} {base / seconds:>8.2f}x  {verdicts} violations")
    print(
        f"control: a pure-Python CPU loop runs {_ceiling():.2f}x faster in 2 processes than in 1 "
        "on this machine now (the ceiling for the ratio above)"
    )


def isolation(examples: int) -> None:
    """Wall time of one `compactcheck run` of the example Python compactor: in-process, in an
    isolated worker (the default for py:), and as a cmd: harness subprocess."""
    name = f"py:{PYTHON_HARNESS}:compact_messages"
    print(
        f"\n## Isolation: `compactcheck run` of the example Python compactor, {examples} "
        "examples, no shrink: in-process, isolated worker process, cmd: harness"
    )
    print(f"{'how':<11} {'seconds':>8} {'histories/s':>12} {'vs in-process':>14}  calls")
    rows = (
        ("in-process", [name, "--in-process"]),
        ("isolated", [name]),
        ("subprocess", [f"cmd:{sys.executable} {PYTHON_HARNESS}"]),
    )
    base = 0.0
    for how, target_options in rows:
        seconds, data = _timed_run(
            *target_options, "--max-examples", str(examples), "--min-exercised", "0"
        )
        [target] = data["targets"]
        base = base or seconds
        calls = sum(target["calls"].values())
        print(
            f"{how:<11} {seconds:>8.1f} {examples / seconds:>12.1f} {base / seconds:>13.3f}x  "
            f"{calls}"
        )
    print(
        "(seconds include starting compactcheck; the same seed draws the same histories, so "
        "the calls match; the ratios are the whole run's speed)"
    )


def mutants(max_examples: int, names: list[str] | None) -> None:
    """For every mutant: histories and seconds until its law first broke, and the shrunk size."""
    print(f"\n## Mutants: first detection of the targeted law (seed 0, up to {max_examples})")
    print(
        f"{'mutant':<38} {'law':<30} {'examples':>8} {'seconds':>8} "
        f"{'found':>6} {'shrunk':>6} {'ratio':>6} {'witness':>7}"
    )
    chosen = [m for m in sorted(all_mutants().values(), key=lambda m: m.name)]
    missed: list[str] = []
    if names:
        chosen = [m for m in chosen if m.name in names]
    with tempfile.TemporaryDirectory() as folder:
        for mutant in chosen:
            target = resolve(f"mutant:{mutant.name}")
            config = mutant_config(mutant, 0, max_examples, Path(folder))
            run = TargetRun(target, mutant.view, config, None)
            try:
                run.explore()
                detection = run.detections.get(mutant.targets)
                if detection is None:
                    print(f"{mutant.name:<38} {mutant.targets:<30} {'not found':>8}")
                    missed.append(mutant.name)
                    continue
                law = run.laws[0]
                run.shrink(law)
                failure = run.failures[law.id]
                witness = len(failure.finding.violations[0].witness)
            finally:
                target.close()
            ratio = failure.size / detection.size if detection.size else 1.0
            print(
                f"{mutant.name:<38} {mutant.targets:<30} {detection.examples:>8} "
                f"{detection.seconds:>8.2f} {detection.size:>6} {failure.size:>6} "
                f"{ratio:>6.2f} {witness:>7}"
            )
    print("(found/shrunk: events or messages in the failing round before and after shrinking)")
    print(
        f"caught within {max_examples}: {len(chosen) - len(missed)} of {len(chosen)}"
        + (f"; missed: {', '.join(missed)}" if missed else "")
    )
    print("(run with --malformed: " + ", ".join(m.name for m in chosen if m.malformed) + ")")


def audit_speed(pairs: int) -> None:
    """Print how fast a log of recorded compactions is audited."""
    print(f"\n## Audit of recorded compactions ({pairs} pairs, JSON Lines)")
    with tempfile.TemporaryDirectory() as folder:
        figures = pairs_per_second(Path(folder) / "log.jsonl", pairs)
    print(
        f"{figures['pairs']:.0f} pairs in {figures['seconds']:.2f} s: "
        f"{figures['pairs_per_second']:.0f} pairs per second; {figures['found']:.0f} violations "
        f"found of {figures['planted']:.0f} planted"
    )


def main() -> None:
    """Print every section; --quick runs each at a small size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--only", nargs="*", help="sections to run", default=None)
    parser.add_argument("--skip", nargs="*", help="sections to leave out", default=())
    options = parser.parse_args()
    quick = options.quick
    sections: dict[str, Callable[[], None]] = {
        "generation": lambda: generation(50 if quick else 300),
        "throughput": lambda: throughput(50 if quick else 300),
        "case-strategy": lambda: case_strategy(50 if quick else 300),
        "session-exchange": lambda: session_exchange_costs(50 if quick else 200),
        "checker": lambda: checker([10_000] if quick else [10_000, 100_000, 1_000_000]),
        "laws": lambda: laws([100, 1_000] if quick else [100, 1_000, 10_000]),
        "protocol": lambda: protocol(30 if quick else 300),
        "workers": lambda: workers(20 if quick else 80),
        "parallel": lambda: parallel(16, workers=2) if quick else parallel(200),
        "isolation": lambda: isolation(30 if quick else 300),
        "mutants": lambda: mutants(100, ["messages-keep-last-n"] if quick else None),
        "guard": lambda: guard_overhead([50, 200] if quick else [50, 200, 1_000]),
        "repair": lambda: repair_section(20, QUICK_REPAIR) if quick else repair_section(200),
        "audit": lambda: audit_speed(1_000 if quick else 20_000),
        "plugin": lambda: plugin_startup(3 if quick else 10),
        "rulings": rulings_section,
        # The whole test suite, last (about 12 minutes on 2 vCPUs); not in a quick run.
        "suite": suite_time,
    }
    if quick:
        del sections["suite"]
    print(f"# compactcheck benchmarks, {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"machine: {_machine()}")
    for name, section in sections.items():
        if (options.only is None or name in options.only) and name not in options.skip:
            started = time.perf_counter()
            section()
            print(f"({name}: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
