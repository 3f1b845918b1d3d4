"""Fuzz the repair itself: targets wrapped in ``guard(..., on_violation="repair")``, judged by
the whole catalogue, with what the repairs did and what they cost.

Run: benchmarks/run --only repair (the built-in messages mutants, 200 histories each), or

    .venv/bin/python -m benchmarks.repair_fuzz [--examples 200] [--seed 0]
        [--facts declared|inferred] [--markdown PATH] [TARGET ...]

where TARGET is a mutant name (``mutant:...``), a published real target (``langchain:...``,
``node:...``), ``mutants`` (every built-in messages mutant) or ``real`` (every published real
target whose extra is installed). Each target's compactor is called through its own backend,
each answer passing through a guard in repair mode before the run judges it: the guard judges
every call (facts declared as the run's ground truth, or ``--facts inferred``: read off each
input as in production), and the run judges every answer by every law of the format with the
ground truth. A target passes when no law a repair covers is broken on any answer and no answer
is larger than its input. The figures per target: calls, answers the guard saw broken, repaired,
handed back as the input (no lawful repair), refused (RepairError: nothing lawful fits the
budget), the repairs made, and the size the repairs cost (characters added to the compactor's
answers, and the largest answer against its input).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import compactcheck
from benchmarks.repair_table import HEADER, markdown, row_line, skipped_lines, table
from compactcheck.adapters import ADAPTERS, MissingExtraError
from compactcheck.adapters.node_harness import DESCRIPTIONS as NODE_TARGETS
from compactcheck.base.backend import Answer, Backend
from compactcheck.base.implementation import Implementation
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.harness import MessagesDriver, RoundOutcome
from compactcheck.invariants import ChatMessage, Facts, View
from compactcheck.invariants.formats import Format
from compactcheck.observed.guard import GuardEvent, RepairError
from compactcheck.observed.repair import COVERED
from compactcheck.observed.repair.side import side_of
from compactcheck.report.model import TargetReport
from compactcheck.targets.registry import Target, all_mutants, resolve

FactsMode = Literal["declared", "inferred"]


class _DeclinedError(Exception):
    """The target answered no result: handed back to the run as it came."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.reason)
        self.answer = answer


@dataclass
class Tally:
    """What the guard did on one target's calls."""

    calls: int = 0
    broken: int = 0
    repaired: int = 0
    returned_input: int = 0
    # Lawful answers larger than their input, which the guard replaced by the input.
    grown: int = 0
    refused: int = 0
    repairs: dict[str, int] = field(default_factory=dict)
    # Characters the repairs added to the compactor's answers (negative: took out).
    added: list[int] = field(default_factory=list)
    # The largest returned answer against its input, in characters (<= 0 when none grew).
    growth: int = -(10**9)
    # Violating pairs kept for timing: (input, answer, facts, format, input size).
    pairs: list[tuple[Any, Any, Facts | None, Format, int]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    # Repairs that raised on an answer (passed over by the mender, logged): a bug of ours.
    failures: int = 0


class _Failures(logging.Handler):
    """Counts the repairs the mender passed over because they raised."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(logging.ERROR)
        self.tally = tally

    def emit(self, record: logging.LogRecord) -> None:
        """Count one."""
        del record
        self.tally.failures += 1


class RepairingBackend:
    """A target's backend whose every answer passes through a guard in repair mode."""

    def __init__(self, inner: Backend, mode: FactsMode) -> None:
        self.inner = inner
        self.mode = mode
        self.facts: Facts | None = None
        self.tally = Tally()
        self.guarded = compactcheck.guard(
            self._compact, on_violation="repair", facts=self._facts, on_event=self._seen
        )

    @property
    def implementation(self) -> Implementation:
        """The target's, without its waivers: a guarded compactor promises every law."""
        return self.inner.implementation.model_copy(update={"waivers": {}})

    @property
    def sends_copies(self) -> bool:
        """As the target's backend."""
        return bool(getattr(self.inner, "sends_copies", False))

    @property
    def last_input(self) -> Any:
        """What the target's process reported of its input (see MessagesDriver)."""
        return getattr(self.inner, "last_input", None)

    def _facts(self, history: Any) -> Facts | dict[str, Any] | None:
        del history
        if self.mode == "declared" or self.facts is None:
            return self.facts
        return {"budget": self.facts.budget.model_dump()} if self.facts.budget else None

    def _compact(self, history: Any, view: View, rest: dict[str, Any], key: str) -> Any:
        answer = self.inner.compact(view, {**rest, key: history})
        if answer.kind != "result" or answer.result is None or key not in answer.result:
            raise _DeclinedError(answer)
        self._answer = answer
        return answer.result[key]

    def _seen(self, event: GuardEvent) -> None:
        tally = self.tally
        tally.broken += 1
        if event.returned == "repaired":
            tally.repaired += 1
            for change in event.repairs:
                tally.repairs[change.law] = tally.repairs.get(change.law, 0) + 1
        elif event.returned == "input" and not event.judgement.violations:
            tally.grown += 1
        elif event.returned == "input":
            tally.returned_input += 1
        else:
            tally.refused += 1
        if event.reason:
            head = event.reason.split(" (")[0]
            tally.reasons[head] = tally.reasons.get(head, 0) + 1
        if len(tally.pairs) < 400 and event.judgement.format is not None:
            size = side_of(event.before, event.judgement.format).size()
            tally.pairs.append(
                (event.before, event.after, event.judgement.facts, event.judgement.format, size)
            )

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """The target's answer, repaired by the guard where it broke a law."""
        key = "messages" if "messages" in payload else "request"
        rest = {name: value for name, value in payload.items() if name != key}
        self.tally.calls += 1
        try:
            returned = self.guarded(payload[key], view, rest, key)
        except _DeclinedError as declined:
            return declined.answer
        except RepairError as error:
            return Answer.error(f"guard: {error}")
        except compactcheck.CompactcheckError:
            # An answer the laws cannot read: the run judges it as it came.
            return self._answer
        result = dict(self._answer.result or {})
        self._grown(payload, returned)
        result[key] = returned
        return Answer.ok(result)

    def _grown(self, payload: dict[str, Any], returned: Any) -> None:
        fmt = payload.get("format", "openai-chat")
        key = "messages" if "messages" in payload else "request"
        size_in = side_of(payload[key], fmt).size()
        size_out = side_of(returned, fmt).size()
        self.tally.growth = max(self.tally.growth, size_out - size_in)
        if returned is not (self._answer.result or {}).get(key):
            answered = side_of((self._answer.result or {})[key], fmt).size()
            self.tally.added.append(size_out - answered)

    def stderr_tail(self) -> str:
        """The target's."""
        return self.inner.stderr_tail()

    def close(self) -> None:
        """The target's."""
        self.inner.close()


class GuardedDriver(MessagesDriver):
    """The messages driver, telling the repairing backend each round's facts first."""

    def __init__(self, backend: RepairingBackend, driver: MessagesDriver) -> None:
        super().__init__(backend, driver.budget, driver.format)
        self.repairing = backend

    def one(
        self,
        index: int,
        messages: list[dict[str, Any]],
        facts: Facts,
        knobs: tuple[int, ...],
        before: tuple[ChatMessage, ...] | None = None,
    ) -> RoundOutcome:
        """One chat compaction, guarded with this round's facts."""
        self.repairing.facts = facts
        return super().one(index, messages, facts, knobs, before)

    def native(
        self, index: int, request: dict[str, Any], facts: Facts, knobs: tuple[int, ...]
    ) -> RoundOutcome:
        """One provider-format compaction, guarded with this round's facts."""
        self.repairing.facts = facts
        return super().native(index, request, facts, knobs)


def guarded_target(name: str, mode: FactsMode = "declared") -> tuple[Target, RepairingBackend]:
    """The target ``name`` names, each of its answers passed through a guard in repair mode."""
    target = resolve(name)
    driver = target.drivers["messages"]()
    assert isinstance(driver, MessagesDriver)
    backend = RepairingBackend(driver.backend, mode)
    guarded = Target(
        f"guarded {name}",
        backend.implementation,
        {"messages": lambda: GuardedDriver(backend, driver)},
        backend,
        isolation=target.isolation,
        format=target.format,
    )
    return guarded, backend


@dataclass(frozen=True)
class Row:
    """One target's fuzzed repair: the run's verdicts and what the guard did."""

    target: str
    format: str
    report: TargetReport
    tally: Tally
    seconds: float

    @property
    def broken_covered(self) -> list[str]:
        """The laws a repair covers that some returned answer still breaks."""
        return [
            r.invariant
            for r in self.report.results
            if r.verdict == "violation" and r.invariant in COVERED
        ]

    @property
    def broken_other(self) -> list[str]:
        """Other laws broken on a returned answer (the call law: a refusal is a raise)."""
        return [
            r.invariant
            for r in self.report.results
            if r.verdict == "violation" and r.invariant not in COVERED
        ]

    @property
    def passed(self) -> bool:
        """No covered law broken, no answer larger than its input, no repair that raised."""
        return not self.broken_covered and self.tally.growth <= 0 and not self.tally.failures


def fuzz_repair(name: str, examples: int, seed: int = 0, mode: FactsMode = "declared") -> Row:
    """Run one target, guarded with repair, through the whole catalogue."""
    mutant = all_mutants().get(name.removeprefix("mutant:"))
    target, backend = guarded_target(name, mode)
    started = time.monotonic()
    # One warning per repair is the guard's production log; here the table says it all.
    logger = logging.getLogger("compactcheck.guard")
    level = logger.level
    logger.setLevel(logging.ERROR)
    failures = _Failures(backend.tally)
    logging.getLogger("compactcheck.repair").addHandler(failures)
    with tempfile.TemporaryDirectory() as folder:
        config = RunConfig(
            seed=seed,
            max_examples=examples,
            profile="ci",
            corpus_dir=Path(folder),
            shrink=False,
            seed_given=True,
            min_exercised=0,
            malformed=mutant.malformed if mutant is not None else (),
        )
        try:
            report = run_target(target, "messages", config)
        finally:
            target.close()
            logger.setLevel(level)
            logging.getLogger("compactcheck.repair").removeHandler(failures)
    return Row(name, target.format, report, backend.tally, time.monotonic() - started)


def mutant_names() -> list[str]:
    """Every built-in messages mutant, as a target name."""
    return sorted(f"mutant:{m.name}" for m in all_mutants().values() if m.view == "messages")


def real_names() -> list[str]:
    """Every published real target (those of reports/)."""
    return sorted([*ADAPTERS, *NODE_TARGETS])


def _names(given: Sequence[str]) -> list[str]:
    out: list[str] = []
    for name in given or ["mutants"]:
        out += mutant_names() if name == "mutants" else real_names() if name == "real" else [name]
    return out


def repair_section(examples: int, names: Sequence[str] = ("mutants",)) -> None:
    """The benchmark section: every built-in messages mutant guarded with repair."""
    chosen = _names(names)
    print(
        f"\n## Repair: {len(chosen)} targets guarded with on_violation='repair' ({examples} "
        "histories each, seed 0, facts declared)"
    )
    table([fuzz_repair(name, examples) for name in chosen])
    print(
        "(grown: lawful answers larger than their input, replaced by the input; broken: answers "
        "the guard saw break a law; fixed: returned repaired; input: no lawful repair, the input "
        "returned; refused: RepairError; +chars: mean characters the repairs added to an answer; "
        "growth: the largest returned answer minus its input, in characters)"
    )


def main(arguments: Sequence[str] | None = None) -> int:
    """Fuzz the named targets' repair and print the table; exit 1 when one fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("targets", nargs="*")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--facts", choices=("declared", "inferred"), default="declared")
    parser.add_argument("--markdown", type=Path, default=None)
    options = parser.parse_args(arguments)
    rows: list[Row] = []
    lines: list[str] = []
    skipped: list[str] = []
    print(HEADER, flush=True)
    for name in _names(options.targets):
        try:
            row = fuzz_repair(name, options.examples, options.seed, options.facts)
        except MissingExtraError as error:
            print(f"{name}: skipped ({error})", flush=True)
            skipped.append(f"{name} ({error})")
            continue
        rows.append(row)
        print(row_line(row), flush=True)
    table(rows, lines.append)
    print("\n".join(lines[len(rows) + 1 :]))
    if options.markdown is not None:
        page = markdown(rows, options, [*lines[len(rows) + 1 :], *skipped_lines(skipped)])
        options.markdown.write_text(page, encoding="utf-8")
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
