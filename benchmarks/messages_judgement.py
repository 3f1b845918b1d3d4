"""Judging one compaction by every messages law, on histories of realistic size.

Run: benchmarks/run --only laws
A history of N messages carries about N KB of text (1,000 messages, 1 MB): a coding agent's
run of file reads, edits and test runs, with a user's constraint update early on, built
deterministically (no Hypothesis). Its compaction is the reference compactor's (the head, one
summary, a recent tail that keeps tool pairs) under a declared budget of a quarter of the
input, so every law of the catalogue applies, and every one holds.
"""

from __future__ import annotations

import gc
import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from benchmarks.scaling import exponent_verdicts, shown, step_exponents, verdict
from compactcheck.invariants import (
    AssistantMessage,
    Budget,
    ChatMessage,
    Facts,
    FunctionCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    catalogue,
    content_text,
    dump_messages,
    parse_messages,
    run_checks,
)
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages import message_chars
from compactcheck.invariants.laws.messages.reading import forget_searchable_texts
from compactcheck.reference_engine.messages import compact_messages

CONSTRAINTS = (
    "Use Python 3.11",
    "Keep the public API of the auth package unchanged",
    "Run the whole test suite before declaring a step done",
    "Never edit generated files under build/",
    "Annotate every new function with types",
)
UPDATE = ("c6", "Use Python 3.12", "c1")
GOAL = (
    "Make the login flow survive a token refresh: a session must not drop when its access "
    "token expires in the middle of a request. Plan: step-1 reproduce the drop in a test, "
    "step-2 refresh the token under a lock, step-3 retry the request once, step-4 document "
    "the behaviour in docs/auth.md."
)
STEPS = ("step-2", "step-3", "step-4")
MODULES = tuple(
    f"src/auth/{name}.py"
    for name in (
        "session",
        "tokens",
        "refresh",
        "client",
        "middleware",
        "storage",
        "errors",
        "config",
        "retry",
        "locks",
        "audit",
        "cli",
    )
) + tuple(f"tests/auth/test_{name}.py" for name in ("session", "tokens", "refresh", "retry"))
_IDENTIFIERS = ("token", "session", "expires_at", "refresh", "request", "lock", "retry", "user")


def _code(rng: random.Random, chars: int) -> str:
    """About ``chars`` characters of plausible Python source, one statement a line."""
    lines: list[str] = []
    size = 0
    while size < chars:
        indent = "    " * rng.randrange(3)
        left, right = rng.choice(_IDENTIFIERS), rng.choice(_IDENTIFIERS)
        line = f"{indent}{left}_{rng.randrange(100)} = {right}.get({left!r}, {rng.randrange(1000)})"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=json.dumps(arguments)))


def _turn(rng: random.Random, number: int, size: int) -> list[ChatMessage]:
    """One step of the agent: reads, sometimes an edit or a test run, sometimes a user word.

    The sizes drawn average about 1,000 characters a message over a whole history.
    """
    paths = rng.sample(MODULES, rng.choice((1, 1, 2)))
    reads = [_call(f"call_{number}_r{j}", "read_file", {"path": p}) for j, p in enumerate(paths)]
    turn: list[ChatMessage] = [
        AssistantMessage(
            content=f"Reading {' and '.join(paths)} to follow the token.", tool_calls=tuple(reads)
        ),
        *(
            ToolMessage(tool_call_id=call.id, content=_code(rng, int(rng.uniform(800, 3400))))
            for call in reads
        ),
    ]
    if number % 3 == 1:
        path = MODULES[number % 9]
        body = _code(rng, int(rng.uniform(500, 1900)))
        call = _call(f"call_{number}_w", "write_file", {"path": path, "content": body})
        turn += [
            AssistantMessage(content=None, tool_calls=(call,)),
            ToolMessage(tool_call_id=call.id, content=f"Wrote {len(body)} bytes to {path}."),
        ]
    if number % 5 == 2:
        call = _call(f"call_{number}_t", "run_tests", {"path": "tests/auth", "verbose": True})
        report = _code(rng, int(rng.uniform(400, 2000)))
        turn += [
            AssistantMessage(content="Running the auth tests.", tool_calls=(call,)),
            ToolMessage(
                tool_call_id=call.id,
                content=f"FAILED tests/auth/test_refresh.py::test_expiry_{number}\n{report}",
            ),
        ]
    thought = _code(rng, int(rng.uniform(300, 1200))).replace("=", "is")
    turn.append(AssistantMessage(content=f"The failure points at {paths[0]}:\n{thought}"))
    if number % 8 == 7:
        turn.append(UserMessage(content=f"Go on; keep {STEPS[number % len(STEPS)]} in mind."))
    if number == size // 40:
        new, text, old = UPDATE
        turn.append(
            UserMessage(
                content=f"New constraints:\n- [{new}] {text} (replaces [{old}] {CONSTRAINTS[0]})"
            )
        )
    return turn


def history(size: int) -> list[ChatMessage]:
    """``size`` messages of one agent run, the same for the same size."""
    rng = random.Random(size)
    lines = "\n".join(f"- [c{n}] {text}" for n, text in enumerate(CONSTRAINTS, 1))
    messages: list[ChatMessage] = [
        SystemMessage(content=f"You are a careful coding agent.\nConstraints:\n{lines}"),
        UserMessage(content=GOAL),
    ]
    number = 0
    while True:
        turn = _turn(rng, number, size)
        if len(messages) + len(turn) > size - 1:
            break
        messages += turn
        number += 1
    while len(messages) < size - 1:
        messages.append(
            UserMessage(content="Go on.")
            if len(messages) % 2
            else AssistantMessage(content="On it.")
        )
    messages.append(
        AssistantMessage(content="The refresh now happens under a lock; next, the retry.")
    )
    return messages


@dataclass(frozen=True)
class Pair:
    """One compaction to judge: both histories as chat dicts and parsed, and the run's facts."""

    before_data: list[dict[str, Any]]
    after_data: list[dict[str, Any]]
    before: tuple[ChatMessage, ...]
    after: tuple[ChatMessage, ...]
    facts: Facts

    @property
    def chars(self) -> int:
        """Characters of the history before compaction (content and call arguments)."""
        return sum(message_chars(message) for message in self.before)


def pair(size: int) -> Pair:
    """A history of ``size`` messages, its reference compaction to a quarter, and its facts."""
    before = tuple(history(size))
    tokens = math.ceil(sum(message_chars(message) for message in before) / 4)
    budget = Budget(limit=tokens // 4, counter="approx_tokens")
    after = compact_messages(before, max(16, size // 4), budget)
    written = tuple(
        dict.fromkeys(
            json.loads(call.function.arguments)["path"]
            for message in before
            if isinstance(message, AssistantMessage)
            for call in message.tool_calls or ()
            if call.function.name == "write_file"
        )
    )
    facts = Facts(
        goal=GOAL,
        constraints=(*CONSTRAINTS[1:], UPDATE[1]),
        superseded_constraints=(CONSTRAINTS[0],),
        changed_files=written,
        must_keep=(*written, *STEPS),
        budget=budget,
    )
    before_data, after_data = dump_messages(before), dump_messages(after)
    return Pair(
        before_data, after_data, parse_messages(before_data), parse_messages(after_data), facts
    )


def best_ms(work: Callable[[], object], repeat: int = 7, floor: float = 0.02) -> float:
    """The best time of ``work`` in milliseconds over ``repeat`` rounds, as timeit takes it.

    Each round runs ``work`` often enough to last ``floor`` seconds, so that short calls are
    not lost in the clock's resolution; the garbage collector is paused while timing, as in
    timeit, so that a collection of another round's garbage is not charged to this one.
    """
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            work()
        elapsed = time.perf_counter() - start
        if elapsed >= floor:
            break
        loops *= 2 if elapsed == 0 else max(2, math.ceil(floor / elapsed))
    best = elapsed / loops
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat - 1):
            start = time.perf_counter()
            for _ in range(loops):
                work()
            best = min(best, (time.perf_counter() - start) / loops)
    finally:
        if enabled:
            gc.enable()
    return best * 1000


def fresh(messages: tuple[ChatMessage, ...]) -> tuple[ChatMessage, ...]:
    """The same messages in a new tuple: the laws reuse what they read off the very same tuple
    (``FactLookup.of``), so each judgement is handed new ones, as each compaction of a run is."""
    return tuple(list(messages))


def judge(pair: Pair) -> None:
    """Every messages law on the parsed pair; the pair must keep every law.

    The messages are read as for the first time: the laws keep the searchable texts of the
    messages they read last, by identity, and a history of 1,000 messages would otherwise be
    read once for all seven timings where one of 10,000 (more than is kept) is read every time.
    """
    forget_searchable_texts()
    findings = run_checks(catalogue("messages"), fresh(pair.before), fresh(pair.after), pair.facts)
    assert all(finding.holds and finding.exercised for finding in findings), findings


def parse_and_judge(pair: Pair) -> None:
    """What compactcheck.api.check does with chat dicts: parse both lists, then every law."""
    before, after = parse_messages(pair.before_data), parse_messages(pair.after_data)
    run_checks(catalogue("messages"), before, after, pair.facts)


def control(pair: Pair) -> None:
    """One walk over both lists joining every message's text, and one scan of it: linear work."""
    joined = "\x00".join([content_text(m.content) for m in (*pair.before, *pair.after)])
    assert "\x01" not in joined


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
            grown = step_exponents(sizes, [done.ms[name] for done in rows])[-1]
            cells.append(f"{row.ms[name]:>{width}.3f} {shown(grown):>8}")
        print(f"{size:>8} {row.megabytes:>6.2f} {row.kept:>5} " + " ".join(cells))
    at = {size: row for size, row in zip(sizes, rows, strict=True)}
    if breakdown in at:
        row = at[breakdown]
        print(
            f"target: under 10 ms at {breakdown:,} messages ({row.megabytes:.2f} MB): "
            f"{row.ms['laws']:.2f} ms laws only, {row.ms['parse+laws']:.2f} ms with parsing, "
            f"{verdict(row.ms['laws'] < 10)}"
        )
    exponents = [
        e for e in step_exponents(sizes, [row.ms["laws"] for row in rows]) if e is not None
    ]
    if exponents:
        control_times = [row.ms["control"] for row in rows]
        controls = [e for e in step_exponents(sizes, control_times) if e is not None]
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
