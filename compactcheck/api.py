"""The library face: fuzz a compactor, or judge one compaction you already have."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from compactcheck.corpus import location
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, follow
from compactcheck.engine.events import Event
from compactcheck.engine.selection import Selection
from compactcheck.errors import CompactcheckError, one_line
from compactcheck.report.model import Report
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB, Calls
from compactcheck.targets.registry import Target, python_target, resolve
from invariants import Budget, Facts, Finding, View, Violation, parse_messages, run_checks
from invariants.formats import CHAT, Format, check_format, parse_request, read


def _default_corpus(compactor: str | Callable[..., Any]) -> Path:
    if isinstance(compactor, str):
        return location.for_targets([compactor]).corpus
    return location.state_dir([("the compactor", location.callable_file(compactor))]).corpus


def fuzz(
    compactor: str | Callable[..., Any],
    *,
    view: View | None = None,
    max_examples: int = 100,
    seed: int = 0,
    rounds: int = 3,
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    budget: Budget | None = None,
    timeout: float = 30.0,
    in_process: bool = False,
    memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB,
    shrink: bool = True,
    workers: int = 1,
    corpus_dir: Path | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> Report:
    """Fuzz a compactor and report every law's verdict, as ``compactcheck run`` would.

    ``compactor`` is a target name (``"reference-messages"``, ``"py:pkg.mod:compact"``,
    ``"cmd:node harness.js"``, a built-in adapter) or a Python callable that takes a list of
    chat message dicts and returns the compacted list (an adapter object with ``compact`` and
    ``implementation`` works too). A callable runs in this process, so ``workers`` must be 1;
    a ``py:`` target runs in an isolated worker process (each with ``memory_limit_mb`` of address
    space), so that a crash, exit or hang of the compactor is a finding of that call, unless
    ``in_process`` is set (faster; a crash there ends the run).
    The run is reproducible: the same seed draws the same histories. Failing histories are
    written to ``corpus_dir`` as soon as they are found (by default ``.compactcheck/corpus`` at
    the root of the project the compactor's code belongs to). ``on_event`` sees the run's events.
    """
    config = RunConfig(
        seed=seed,
        max_examples=max_examples,
        rounds=rounds,
        profile="ci",
        include=tuple(invariants) if invariants is not None else None,
        exclude=tuple(exclude),
        corpus_dir=corpus_dir or _default_corpus(compactor),
        budget=budget,
        shrink=shrink,
        seed_given=True,
    )
    calls = Calls(timeout=timeout, in_process=in_process, memory_limit_mb=memory_limit_mb)
    engine = Engine(config, calls=calls, workers=workers)
    if isinstance(compactor, str):
        targets = engine.open([compactor], view)
    else:
        if workers != 1:
            raise CompactcheckError(
                "a Python callable runs in this process: workers must be 1 (name it as "
                "py:module:attribute to fuzz it in worker processes)"
            )
        name = f"py:{getattr(compactor, '__qualname__', type(compactor).__name__)}"
        targets = [python_target(compactor, name, view, timeout, budget)]
        try:
            engine.check(targets, view)
        except BaseException:
            targets[0].close()
            raise
    try:
        if workers > 1:
            for target in targets:
                target.close()
        return follow(engine.run(targets, view), on_event or (lambda _: None))
    finally:
        for target in targets:
            target.close()


@dataclass(frozen=True)
class Judgement:
    """Every selected law's finding on one (before, after) pair."""

    view: View
    findings: tuple[Finding, ...]

    @property
    def violations(self) -> list[Violation]:
        """Every violation, law by law."""
        return [violation for finding in self.findings for violation in finding.violations]

    @property
    def holds(self) -> bool:
        """Whether no law was broken."""
        return not self.violations

    def raise_for_violations(self) -> None:
        """Raise ``ViolationError`` naming each broken law and why, if any law was broken."""
        if self.violations:
            raise ViolationError(self)


class ViolationError(CompactcheckError, AssertionError):
    """A compaction broke at least one law; ``judgement`` has every finding."""

    def __init__(self, judgement: Judgement) -> None:
        lines = [f"{v.invariant}: {v.because}" for v in judgement.violations]
        super().__init__(f"{len(lines)} law(s) broken: " + "; ".join(lines))
        self.judgement = judgement


def check(
    before: Any,
    after: Any,
    facts: Facts | dict[str, Any],
    *,
    view: View = "messages",
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    format: Format = CHAT,
) -> Judgement:
    """Judge one compaction: ``before`` went in, ``after`` came out.

    For the messages view both may be lists of OpenAI chat message dicts (or parsed
    messages); with another ``format``, both are that provider's request as JSON data
    (Anthropic ``{"system", "messages"}``, Responses ``{"instructions", "input"}``, Gemini
    ``{"systemInstruction", "contents"}``), judged by the format's structural laws and, through
    their chat reading, by every other messages law. ``facts`` is what the history must keep
    (the goal, constraints, must-keep items, a declared budget; a ``Facts`` or its JSON form):
    the laws hold the compaction to it, so it is required (a missing goal would let the goal
    law pass on anything). The snapshot and session views take their own before/after models
    (``invariants``' ``SnapshotBefore`` / ``SnapshotAfter`` and the session view's), as the
    harness builds them.
    """
    selection = Selection(invariants, exclude)
    selection.check([view])
    try:
        known = facts if isinstance(facts, Facts) else Facts.model_validate(facts)
        if view == "messages" and format != CHAT:
            native_before = parse_request(check_format(format), before)
            native_after = parse_request(format, after)
            laws = selection.laws(view, format)
            findings = [
                law.check(native_before, native_after, known)
                if law.formats
                else law.check(read(native_before), read(native_after), known)
                for law in laws
            ]
            return Judgement(view, tuple(findings))
        if view == "messages":
            before = parse_messages(before)
            after = parse_messages(after)
    except ValidationError as error:
        raise CompactcheckError(f"check: {one_line(error)}") from None
    return Judgement(view, tuple(run_checks(selection.laws(view), before, after, known)))


__all__ = ["Judgement", "Target", "ViolationError", "check", "fuzz", "resolve"]
