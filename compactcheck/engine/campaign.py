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
from typing import Any, cast

from compactcheck.base import interrupts
from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import OutputFileError
from compactcheck.corpus.entry import CorpusEntry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, follow, report_of
from compactcheck.engine.events import (
    Event,
    Interrupted,
    Note,
    TargetFinished,
    ViolationFound,
    describe,
)
from compactcheck.invariants import View
from compactcheck.report.io import write_report
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
from compactcheck.scale.merge import merge_calls, merge_results
from compactcheck.scale.pool import worker_pool
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target

Progress = Callable[[str], None]
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


@dataclass
class _BySignature:
    """One campaign target run's recorder: see ``BySignature``."""

    known: frozenset[Path]
    defer: bool
    provisional: dict[str, Path] = field(default_factory=dict)
    superseded: list[Path] = field(default_factory=list)

    def write(self, directory: Path, entry: CorpusEntry, witness: Sequence[Any]) -> Path:
        """Write ``entry`` under its witness signature, unless a known failure holds that name."""
        signature = witness_signature(entry.target, entry.invariant, witness)
        path = entry_file(directory, entry.target, entry.view, entry.invariant, signature)
        earlier = self.provisional.pop(entry.invariant, None)
        if earlier is not None and earlier != path:
            # The unshrunk entry written when the failure was found gives way to the shrunk one.
            self._discard(earlier)
        # A known failure's entry stays as it is; this run's own provisional one is replaced.
        if path == earlier or (path not in self.known and not path.exists()):
            write_text_atomically(path, json.dumps(entry.to_json_data(), indent=1))
            if not entry.shrunk:
                self.provisional[entry.invariant] = path
        return path

    def _discard(self, path: Path) -> None:
        if self.defer:
            self.superseded.append(path)
        else:
            path.unlink(missing_ok=True)

    @property
    def discarded(self) -> tuple[Path, ...]:
        """Entries given up but left on disk for the campaign to remove."""
        return tuple(self.superseded)


@dataclass(frozen=True)
class BySignature:
    """A campaign's corpus: one entry per distinct failure, named by its witness signature.

    Shards of one iteration share the corpus folder (``defer``). Two that find the same new
    signature both write the same file name, each atomically, and either entry will do (same
    target, law and witness structure). But a shard must not delete a file another shard may
    have adopted as its own (it found the file there and left it), so it only lists what it
    gives up, and the campaign removes those no distinct failure points at once the iteration
    is folded in.
    """

    known: frozenset[Path] = frozenset()
    defer: bool = False
    # Entries are named by witness signature: shards may share the folder (see above).
    separate_pieces: bool = False

    def start(self) -> _BySignature:
        """A fresh recorder for one target run."""
        return _BySignature(self.known, self.defer)


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
    # Each call's timeout and where py: compactors run, for the targets the workers resolve.
    calls: Calls = field(default_factory=Calls)
    failures: dict[tuple[str, str, str], DistinctFailure] = field(default_factory=dict)
    iterations: int = 0
    examples: int = 0
    # Why the JSON report could not be written the last time it was (None: it is on disk, as
    # of the last iteration); the campaign goes on, and the command line says it at the end.
    unwritten: OutputFileError | None = None
    _per_view: dict[View, list[TargetReport]] = field(default_factory=dict)

    @property
    def _view(self) -> View | None:
        """The one view asked for, or None for every view the target handles."""
        if set(self.views) == set(self.target.views):
            return None
        [view] = self.views
        return view

    def seed_of(self, iteration: int) -> int:
        """The fresh seed of one iteration, derived from the campaign seed."""
        digest = hashlib.sha256(f"compactcheck-fuzz:{self.config.seed}:{iteration}".encode())
        return int.from_bytes(digest.digest()[:4], "big")

    def run(self) -> Report:
        """Loop until the time is spent; the final report (complete) is returned and written."""
        # Signals are heard between iterations too, and acted on at the next safe point.
        with interrupts.listening():
            if self.workers == 1:
                return self._loop(None)
            # One pool for the whole campaign.
            with worker_pool(self.workers) as pool:
                return self._loop(pool)

    def _loop(self, pool: ProcessPoolExecutor | None) -> Report:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        started = time.time()
        stop_at = started + self.max_time
        budget = min(_FIRST_ITERATION, self.config.max_examples)
        complete = False
        try:
            while time.time() < stop_at:
                interrupts.check()
                self.iterations += 1
                seed = self.seed_of(self.iterations)
                config = replace(self.config, seed=seed, max_examples=budget, stop_at=stop_at)
                began = time.time()
                ran = self._iterate(config, pool)
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

    def _iterate(self, config: RunConfig, pool: ProcessPoolExecutor | None) -> int:
        """One iteration through the engine (cut into one shard per worker with a pool)."""
        known = frozenset(failure.path for failure in self.failures.values())
        engine = Engine(
            config,
            calls=self.calls,
            workers=self.workers,
            recording=BySignature(known, defer=pool is not None),
            pool=pool,
        )
        if pool is not None:
            self.progress(
                f"iteration {self.iterations}: {config.max_examples} histories on "
                f"{self.workers} workers"
            )
        finished: list[TargetFinished] = []
        stopped = False

        def handle(event: Event) -> None:
            nonlocal stopped
            if isinstance(event, TargetFinished):
                finished.append(event)
            elif isinstance(event, Interrupted):
                stopped = True
            elif isinstance(event, Note | ViolationFound):
                self.progress(describe(event))

        follow(engine.run([self.target], self._view), handle)
        # Folded in plan order, not in order of completion, so that the outcome is repeatable.
        finished.sort(key=lambda event: event.job)
        for event in finished:
            view = cast(View, event.report.view)
            self._fold(view, event.report, event.corpus, event.seed)
        kept = {failure.path for failure in self.failures.values()}
        for event in finished:
            for path in event.discarded:
                if path not in kept:
                    path.unlink(missing_ok=True)
        if stopped:
            # Unwinds the campaign (and its pool) with the iterations folded so far.
            raise KeyboardInterrupt
        return sum(event.examples for event in finished)

    def _fold(
        self, view: View, report: TargetReport, corpus: Mapping[str, Path], seed: int
    ) -> None:
        """Count one run's failures into the campaign: each distinct one once."""
        self._per_view.setdefault(view, []).append(report)
        for result in report.results:
            if result.counterexample is None:
                continue
            # Each way the law broke in (``invariants.ways``), its own witness and entry.
            for example in (result.counterexample, *result.other_ways):
                self._fold_one(view, result, example, corpus, seed)

    def _fold_one(
        self,
        view: View,
        result: InvariantResult,
        example: Counterexample,
        corpus: Mapping[str, Path],
        seed: int,
    ) -> None:
        signature = witness_signature(self.target.name, result.invariant, example.witness)
        key = (result.invariant, view, signature)
        if key in self.failures:
            self.failures[key].seen += 1
            return
        path = Path(example.corpus_file) if example.corpus_file else corpus[result.invariant]
        alone = result.model_copy(update={"counterexample": example, "other_ways": []})
        self.failures[key] = DistinctFailure(
            self.target.name, view, result.invariant, signature, alone, path, seed
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
        # The first distinct failure of the way the merged result shows first (its others are
        # its other ways).
        way = merged.counterexample.way if merged.counterexample is not None else ""
        first = next((f for f in distinct if _way(f) == way), distinct[0])
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
            try:
                write_report(self.report(started_at, complete=complete), self.report_path)
            except OutputFileError as error:
                self.unwritten = error
            else:
                self.unwritten = None


def _way(failure: DistinctFailure) -> str:
    example = failure.result.counterexample
    return example.way if example is not None else ""
