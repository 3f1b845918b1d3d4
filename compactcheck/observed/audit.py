"""Audit recorded compactions: a file or folder of JSON Lines pairs, judged law by law.

Each line of a log is one compaction that already happened::

    {"before": [...], "after": [...]}                  # chat completions, detected
    {"before": {...}, "after": {...}, "format": "anthropic", "facts": {"goal": "..."}, "id": "r7"}

``before`` and ``after`` are as ``compactcheck.check`` takes them; ``format`` (else the audit's
own, else detected per line), ``facts`` (else inferred from the history, and labelled so) and
``id`` (shown beside the line number) are optional. A folder is read file by file (``*.jsonl``
and ``*.json``, sorted by name); each file is read one line at a time, so a log of any size is
judged in the memory of its longest line.

The result is a report like a run's: one target per audit, each law's verdict over every pair
(pairs that handed the history back unchanged count as unchanged, not as compactions), the first
violation of each law as its counterexample, and every violation as one line for the console.
A line that is not a pair is counted as errored, named with its line number and skipped.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue, ValidationError

from compactcheck.base.errors import CompactcheckError, one_line
from compactcheck.base.files import installed_version, json_files
from compactcheck.base.implementation import Implementation
from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts, Invariant, Violation
from compactcheck.invariants.formats import Format, check_format
from compactcheck.invariants.inference import infer_facts
from compactcheck.invariants.laws.messages.provider_rules import (
    chat_completions_problems,
    request_problems,
)
from compactcheck.observed.judging import (
    MessagesPair,
    PairError,
    judge_messages,
    parse_messages_pair,
)
from compactcheck.observed.law_tally import LawTally
from compactcheck.report.model import (
    CALL_STATUSES,
    Counterexample,
    InvariantResult,
    Report,
    TargetReport,
)
from compactcheck.verdicts.counts import Counts
from compactcheck.verdicts.levels import level_reached

if TYPE_CHECKING:
    from compactcheck.models import MeteredModel

MAX_ERRORS_SHOWN = 10


class AuditError(CompactcheckError, OSError):
    """A log path that cannot be read."""


@dataclass(frozen=True)
class Finding:
    """One violation in a log: where it is, which law, why."""

    file: Path
    line: int
    pair_id: str | None
    violation: Violation

    def line_text(self) -> str:
        """``file:line: law: because`` (with the pair's id, when it has one)."""
        named = f" [{self.pair_id}]" if self.pair_id else ""
        return (
            f"{self.file}:{self.line}{named}: {self.violation.invariant}: {self.violation.because}"
        )


@dataclass
class _Audit:
    selection: Selection
    format: Format | None
    judge: MeteredModel | None = None
    laws: dict[str, LawTally] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    formats: Counter[str] = field(default_factory=Counter)
    inferred: dict[str, None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    pairs: int = 0
    by_format: dict[Format, list[Invariant[Any, Any]]] = field(default_factory=dict)

    def laws_of(self, format: Format) -> list[Invariant[Any, Any]]:
        chosen = self.by_format.get(format)
        if chosen is None:
            chosen = self.by_format[format] = list(self.selection.laws("messages", format))
            for law in chosen:
                self.laws.setdefault(law.id, LawTally(law))
        return chosen


def log_files(path: Path) -> list[Path]:
    """The files an audit of ``path`` reads, in order."""
    return json_files(path, "file", AuditError)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, line
    except (OSError, UnicodeDecodeError) as error:
        raise AuditError(f"{path}: cannot read it: {one_line(error)}") from None


def audit(
    path: str | Path,
    *,
    format: Format | None = None,
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    facts: Facts | dict[str, Any] | None = None,
    on_violation: Callable[[Finding], None] | None = None,
    toolkit_version: str | None = None,
    judge: MeteredModel | None = None,
    strict_review: bool = False,
) -> Report:
    """Judge every pair of the log at ``path`` (a JSON Lines file or a folder of them).

    ``format`` names the pairs' format (default: each line's ``format``, else detected);
    ``facts`` declares facts for every pair without its own (the rest is inferred);
    ``on_violation`` sees each violation as it is found; ``judge`` settles the rulings left for
    review (``compactcheck.models.judge.judge_slot(...).open()``) and ``strict_review`` makes an
    item for review fail its law (``--strict-review``). The report is a run's: write it with
    ``compactcheck.report.io.write_report`` or render it like any other.
    """
    started = time.monotonic()
    path = Path(path)
    if toolkit_version is None:
        toolkit_version = installed_version()
    selection = Selection(invariants, exclude)
    selection.check(["messages"])
    state = _Audit(selection, check_format(format) if format is not None else None, judge)
    for file in log_files(path):
        for number, line in _lines(file):
            state.pairs += 1
            try:
                found = _one(state, line, facts)
            except (PairError, ValidationError, ValueError, TypeError) as error:
                state.statuses["errored"] += 1
                if len(state.errors) < MAX_ERRORS_SHOWN:
                    state.errors.append(f"{file}:{number}: not a pair: {one_line(error)}")
                continue
            for violation, pair_id in found:
                if on_violation is not None:
                    on_violation(Finding(file, number, pair_id, violation))
    return _report(state, path, started, toolkit_version).model_copy(
        update={"strict_review": strict_review}
    )


def _one(
    state: _Audit, line: str, facts: Facts | dict[str, Any] | None
) -> list[tuple[Violation, str | None]]:
    """Judge one line; its violations (the first of each law is kept as its counterexample)."""
    record = json.loads(line)
    if not isinstance(record, dict) or "before" not in record or "after" not in record:
        raise PairError('each line is an object with "before" and "after"')
    before, after = record["before"], record["after"]
    named = record.get("format", state.format)
    pair = parse_messages_pair(before, after, check_format(named) if named else None)
    state.formats[pair.format] += 1
    if pair.before == pair.after:
        state.statuses["unchanged"] += 1
        return []
    state.statuses["compacted"] += 1
    declared = record.get("facts", facts)
    known = infer_facts(pair.before, declared)
    for name in known.inferred:
        state.inferred[name] = None
    pair_id = record.get("id")
    shown_id = str(pair_id) if pair_id is not None else None
    out: list[tuple[Violation, str | None]] = []
    findings = judge_messages(pair, state.laws_of(pair.format), known)
    if state.judge is not None:
        from compactcheck.models.judge import settle_findings

        findings = settle_findings(findings, state.judge)
    for finding in findings:
        state.laws[finding.invariant].add(
            finding, lambda violation: _counterexample(violation, pair, before, after)
        )
        out.extend((violation, shown_id) for violation in finding.violations)
    return out


def _counterexample(
    violation: Violation, pair: MessagesPair, before: Any, after: Any
) -> Counterexample:
    """The first violation of a law, with the provider rules its input breaks, if any."""
    if pair.native_before is not None:
        problems = request_problems(pair.format, pair.native_before)
    else:
        listed = before["messages"] if isinstance(before, dict) else before
        problems = chat_completions_problems(listed) if isinstance(listed, list) else []
    diff: dict[str, JsonValue] | None = violation.diff
    return Counterexample(
        round=1,
        because=violation.because,
        witness=list(violation.witness),
        diff=diff,
        input=before,
        output=after,
        history_size=len(pair.before),
        input_problems=problems,
        reproduced="not_checked",
    )


def _report(state: _Audit, path: Path, started: float, toolkit_version: str) -> Report:
    compactions = state.statuses["compacted"]
    unchanged = state.statuses["unchanged"]
    results: list[InvariantResult] = [
        law.result(
            Counts(
                examples=state.pairs,
                exercised=law.exercised,
                compactions=compactions,
                unchanged=unchanged,
                errored=state.statuses["errored"],
            ),
            state.formats,
        )
        for law in state.laws.values()
    ]
    errors = list(state.errors)
    if state.statuses["errored"] > len(state.errors):
        errors.append(f"... {state.statuses['errored'] - len(state.errors)} more lines not pairs")
    if state.pairs == 0:
        errors.append(f"{path}: the log holds no pair")
    formats = sorted(state.formats)
    target = TargetReport(
        target=f"audit:{path}",
        view="messages",
        implementation=Implementation(name="recorded compactions", views=["messages"]),
        results=results,
        errors=errors,
        calls={s: state.statuses[s] for s in CALL_STATUSES if state.statuses[s]},
        format=formats[0] if len(formats) == 1 else ", ".join(formats),
        inferred_facts=list(state.inferred),
        level=level_reached(results),
        seconds=round(time.monotonic() - started, 3),
        isolation="recorded",
    )
    return Report(
        toolkit_version=toolkit_version,
        seed=0,
        profile="audit",
        max_examples=state.pairs,
        rounds=1,
        complete=True,
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        targets=[target],
    )


__all__ = ["AuditError", "Finding", "audit", "log_files"]
