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
from typing import Any

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


def exponent(small: float, large: float, ratio: float = 10.0) -> float:
    """The scaling exponent k of t ~ n**k between two sizes ``ratio`` apart."""
    return math.log(large / small) / math.log(ratio)
