"""Time-boxed campaigns: fresh-seeded runs of one target until the time is spent.

Each iteration is an ordinary run (explore, then shrink what broke) with a new seed. A failure
counts once per (target, invariant, witness signature): the same bug met again on another
history only raises its count. The corpus and the report are rewritten atomically after every
iteration, so a campaign killed at any moment leaves both on disk, the report marked incomplete.

With several workers, one pool of processes lives as long as the campaign; each iteration's
budget is cut into one shard per worker, and their reports are folded in as one iteration's.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compactcheck.atomic import write_text_atomically
from compactcheck.engine.conformance import report_of, terminate_as_interrupt
from compactcheck.engine.interrupts import listening
from compactcheck.engine.target_run import Progress, RunConfig, Shard, TargetRun
from compactcheck.harness import RoundOutcome
from compactcheck.report.io import write_report
from compactcheck.report.model import InvariantResult, Report, TargetReport
from compactcheck.scale.merge import merge_calls, merge_results
from compactcheck.scale.pool import Job, submit, worker_pool
from compactcheck.targets.registry import Target, resolve
from invariants import Finding, Invariant, View

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# The first iteration is small so that the time box is respected even for a slow target;
# later ones are sized from the measured rate.
_FIRST_ITERATION = 20
_ID_KEYS = frozenset({"id", "eventId", "tool_call_id", "toolCallId", "callId", "sequence"})


def _shape(value: Any, key: str = "") -> Any:
    """A witness with its volatile values (ids, text, numbers) replaced by their kind."""
    if isinstance(value, dict):
        return {k: _shape(v, k) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if key in _ID_KEYS or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return type(value).__name__
    if isinstance(value, str):
        # Roles, types and kinds say what the witness is; prose and ids only where it happened.
        return value if key in ("role", "type", "kind", "name", "status") else "str"
    return value


def witness_signature(target: str, invariant: str, witness: Sequence[Any]) -> str:
    """A short digest of a witness's structure: equal for the same bug on another history."""
    shape = json.dumps(_shape(list(witness)), sort_keys=True)
    return hashlib.sha256(f"{target}\0{invariant}\0{shape}".encode()).hexdigest()[:12]


def entry_file(directory: Path, target: str, view: str, invariant: str, signature: str) -> Path:
    """Where a campaign keeps one distinct failure."""
    readable = _UNSAFE.sub("_", f"{target}--{view}--{invariant}").strip("._")[:80] or "entry"
    return directory / f"{readable}-{signature}.json"


@dataclass
class DistinctFailure:
    """One distinct failure: first seen in which iteration, with which seed, how often since."""

    target: str
    view: View
    invariant: str
    signature: str
    result: InvariantResult
    path: Path
    first_seed: int
    seen: int = 1


class _CampaignRun(TargetRun):
    """A run whose corpus files are named by witness signature and never overwrite a known one."""

    def __init__(
        self,
        target: Target,
        view: View,
        config: RunConfig,
        progress: Progress | None,
        known: set[Path],
    ) -> None:
        super().__init__(target, view, config, progress)
        self.known = known
        self.provisional: dict[str, Path] = {}

    def record(self, law: Invariant, outcome: RoundOutcome, finding: Finding, shrunk: bool) -> Path:
        witness = finding.violations[0].witness
        signature = witness_signature(self.target.name, law.id, witness)
        path = entry_file(self.config.corpus_dir, self.target.name, self.view, law.id, signature)
        earlier = self.provisional.pop(law.id, None)
        if earlier is not None and earlier != path:
            # The unshrunk entry written when the failure was found gives way to the shrunk one.
            self.discard(earlier)
        # A known failure's entry stays as it is; this run's own provisional one is replaced.
        if path == earlier or (path not in self.known and not path.exists()):
            entry = self.entry(law, outcome, finding, shrunk)
            write_text_atomically(path, json.dumps(entry.to_json_data(), indent=1))
            if not shrunk:
                self.provisional[law.id] = path
        self.corpus[law.id] = path
        return path

    def discard(self, path: Path) -> None:
        """Remove an entry this run wrote and no longer stands by."""
        path.unlink(missing_ok=True)


class _PieceRun(_CampaignRun):
    """One worker's shard of an iteration: entries it gives up are removed by the campaign.

    Shards of one iteration share the corpus folder. Two that find the same new signature both
    write the same file name, each atomically, and either entry will do (same target, law and
    witness structure). But a shard must not delete a file another shard may have adopted as
    its own (it found the file there and left it), so it only lists what it gives up, and the
    campaign removes those no distinct failure points at once the iteration is folded in.
    """

    def __init__(self, target: Target, view: View, config: RunConfig, known: set[Path]) -> None:
        super().__init__(target, view, config, None, known)
        self.superseded: list[Path] = []

    def discard(self, path: Path) -> None:
        self.superseded.append(path)


@dataclass(frozen=True)
class _Piece:
    """What a worker sends back from one shard: plain data, cheap to pickle."""

    report: dict[str, Any]
    examples: int
    corpus: dict[str, Path]
    superseded: list[Path]


def _run_piece(job: Job, known: frozenset[Path]) -> _Piece:
    """In a worker: resolve the target, run one shard of an iteration, close the target."""
    target = resolve(job.target, view=job.view, timeout=job.timeout, budget=job.config.budget)
    try:
        run = _PieceRun(target, job.view, job.config, set(known))
        report = run.report()
    finally:
        target.close()
    return _Piece(report.model_dump(mode="json"), run.tally.examples, run.corpus, run.superseded)


@dataclass
class Campaign:
    """Fuzz one target until ``max_time`` seconds are spent; see the module docstring."""

    target: Target
    views: Sequence[View]
    config: RunConfig
    max_time: float
    report_path: Path | None = None
    progress: Progress = field(default=lambda _: None)
    # Above 1, iterations run in a pool of worker processes, each resolving the target by name.
    workers: int = 1
    # Seconds per backend call, for the targets the workers resolve.
    timeout: float = 30.0
    failures: dict[tuple[str, str, str], DistinctFailure] = field(default_factory=dict)
    iterations: int = 0
    examples: int = 0
    _per_view: dict[View, list[TargetReport]] = field(default_factory=dict)

    def seed_of(self, iteration: int) -> int:
        """The fresh seed of one iteration, derived from the campaign seed."""
        digest = hashlib.sha256(f"compactcheck-fuzz:{self.config.seed}:{iteration}".encode())
        return int.from_bytes(digest.digest()[:4], "big")

    def run(self) -> Report:
        """Loop until the time is spent; the final report (complete) is returned and written."""
        if self.workers == 1:
            # Fuzzing in this process: signals are acted on between examples.
            with listening():
                return self._loop(self._iterate)
        # One pool for the whole campaign; SIGTERM unwinds like Ctrl-C so that it is stopped.
        with terminate_as_interrupt(), worker_pool(self.workers) as pool:
            return self._loop(lambda config: self._iterate_in(pool, config))

    def _loop(self, iterate: Callable[[RunConfig], int]) -> Report:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        started = time.time()
        stop_at = started + self.max_time
        budget = min(_FIRST_ITERATION, self.config.max_examples)
        complete = False
        try:
            while time.time() < stop_at:
                self.iterations += 1
                seed = self.seed_of(self.iterations)
                config = replace(self.config, seed=seed, max_examples=budget, stop_at=stop_at)
                began = time.time()
                ran = iterate(config)
                self.examples += ran
                self._write(started_at, complete=False)
                spent = max(time.time() - began, 1e-3)
                # Aim the next iteration at a quarter of what is left, within the usual cap.
                left = stop_at - time.time()
                budget = int(min(self.config.max_examples, max(1, ran / spent * left / 4)))
                budget = max(budget, 1)
            complete = True
        finally:
            self._write(started_at, complete=complete)
        return self.report(started_at, complete=complete)

    def _iterate(self, config: RunConfig) -> int:
        """One iteration in this process; the number of histories run."""
        ran = 0
        for view in self.views:
            known = {failure.path for failure in self.failures.values()}
            run = _CampaignRun(self.target, view, config, self.progress, known)
            report = run.report()
            self._fold(view, report, run.corpus, config.seed)
            ran += run.tally.examples
        return ran

    def _iterate_in(self, pool: ProcessPoolExecutor, config: RunConfig) -> int:
        """One iteration cut into one shard per worker, run in ``pool``; the histories run."""
        known = frozenset(failure.path for failure in self.failures.values())
        jobs = [
            Job(self.target.name, view, config.for_shard(shard), self.timeout)
            for view in self.views
            for shard in Shard().split(self.workers)
        ]
        self.progress(
            f"iteration {self.iterations}: {config.max_examples} histories on "
            f"{self.workers} workers"
        )
        futures = [submit(pool, _run_piece, job, known) for job in jobs]
        pieces = [future.result() for future in futures]
        # Folded in shard order, not in order of completion, so that the outcome is repeatable.
        for job, piece in zip(jobs, pieces, strict=True):
            report = TargetReport.model_validate(piece.report)
            self._fold(job.view, report, piece.corpus, job.config.seed)
        kept = {failure.path for failure in self.failures.values()}
        for piece in pieces:
            for path in piece.superseded:
                if path not in kept:
                    path.unlink(missing_ok=True)
        return sum(piece.examples for piece in pieces)

    def _fold(
        self, view: View, report: TargetReport, corpus: Mapping[str, Path], seed: int
    ) -> None:
        """Count one run's failures into the campaign: each distinct one once."""
        self._per_view.setdefault(view, []).append(report)
        for result in report.results:
            example = result.counterexample
            if example is None:
                continue
            signature = witness_signature(self.target.name, result.invariant, example.witness)
            key = (result.invariant, view, signature)
            if key in self.failures:
                self.failures[key].seen += 1
                continue
            self.failures[key] = DistinctFailure(
                self.target.name,
                view,
                result.invariant,
                signature,
                result,
                corpus[result.invariant],
                seed,
            )
            self.progress(
                f"new failure: {self.target.name} {result.invariant} [{signature}] "
                f"in iteration {self.iterations}"
            )

    def report(self, started_at: str, *, complete: bool) -> Report:
        """The campaign so far, as one report: counts summed over iterations."""
        targets: list[TargetReport] = []
        for view, reports in self._per_view.items():
            laws = [result.invariant for result in reports[0].results]
            results: list[InvariantResult] = []
            for law in laws:
                runs = [r for report in reports for r in report.results if r.invariant == law]
                results.append(self._law_result(view, law, runs))
            targets.append(
                reports[-1].model_copy(
                    update={
                        "results": results,
                        "seconds": round(sum(report.seconds for report in reports), 3),
                        "calls": merge_calls(reports),
                    }
                )
            )
        config = replace(self.config, max_examples=max(self.examples, 1))
        return report_of(targets, config, started_at, complete=complete)

    def _law_result(self, view: View, law: str, runs: list[InvariantResult]) -> InvariantResult:
        merged = merge_results(runs)
        distinct = [f for f in self.failures.values() if f.invariant == law and f.view == view]
        if not distinct:
            return merged
        first = distinct[0]
        example = first.result.counterexample
        assert example is not None
        occurrences = sum(f.seen for f in distinct)
        because = (
            f"{example.because} ({len(distinct)} distinct failure(s) seen {occurrences} time(s); "
            "the corpus holds one entry each)"
        )
        return merged.model_copy(
            update={
                "because": because,
                "counterexample": example.model_copy(update={"corpus_file": str(first.path)}),
            }
        )

    def _write(self, started_at: str, *, complete: bool) -> None:
        if self.report_path is not None and self._per_view:
            write_report(self.report(started_at, complete=complete), self.report_path)
