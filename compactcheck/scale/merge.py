"""Merging shards: several JSON reports into one, several crash corpora into one.

A merge is commutative: the order in which shards are named changes nothing but the order of
the targets in the report. Counts add up; a law is broken if any shard broke it, and its
counterexample is the smallest any shard found.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import CompactcheckError, OutputFileError
from compactcheck.corpus.entry import corpus_files, load_entry
from compactcheck.invariants.catalogue import catalogue
from compactcheck.invariants.ways import MAX_WAYS, in_order
from compactcheck.report.model import (
    COVERAGE_PREFIX,
    VACUITY_PREFIX,
    Counterexample,
    InvariantResult,
    ModelCalls,
    Report,
    TargetReport,
)
from compactcheck.scale.fidelity import merged
from compactcheck.verdicts.counts import (
    merged_result,
    overlaid,
    rarely_compacted,
    top_failures,
    vacuity_line,
)
from compactcheck.verdicts.levels import level_reached

_STDERR_CHARS = 4000


class MergeError(CompactcheckError):
    """Reports that cannot be merged: none at all, the same one twice, or different settings."""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _smallest(examples: Iterable[Counterexample]) -> Counterexample:
    # Ties broken on content, so that the pick does not depend on the order of the shards.
    return min(
        examples,
        key=lambda c: (c.history_size, len(c.witness), c.round, _canonical(c.model_dump())),
    )


def merge_results(
    results: Sequence[InvariantResult], model: ModelCalls | None = None
) -> InvariantResult:
    """One law's results from several shards of the same target and view, as one result.

    ``model`` is the shards' model calls added up: a refusal in any shard leaves no pass.
    """
    examples = _by_way(results)
    merged = merged_result(results, examples[0] if examples else None)
    update: dict[str, object] = {"level": results[0].level}
    if examples:
        seen = max(len(examples), *(r.ways for r in results))
        update |= {"other_ways": examples[1:MAX_WAYS], "ways": seen}
    merged = merged.model_copy(update=update)
    return overlaid(merged, results[0].waived, model)


def _by_way(results: Sequence[InvariantResult]) -> list[Counterexample]:
    """The smallest counterexample of each way any shard broke the law in, its rounds added up,
    in the law's order of ways (``invariants.ways.rank``), as one run would keep them."""
    groups: dict[str, list[Counterexample]] = {}
    for result in results:
        if result.counterexample is not None:
            for example in (result.counterexample, *result.other_ways):
                # A law of one way, and an older report, name the way "": one group.
                groups.setdefault(example.way, []).append(example)
    smallest = {
        way: _smallest(group).model_copy(update={"failed": sum(e.failed for e in group)})
        for way, group in groups.items()
    }
    declared = _declared_ways().get(results[0].invariant, ())
    return [smallest[way] for way in in_order(declared, smallest)]


@cache
def _declared_ways() -> dict[str, tuple[str, ...]]:
    return {law.id: law.ways for law in catalogue()}


def merge_model_calls(reports: Iterable[TargetReport]) -> ModelCalls | None:
    """The model slots of shards as one: their counts summed; a cap counted once per ledger
    (shards of one run share theirs), added up across runs that each had their own."""
    slots = [report.model_calls for report in reports if report.model_calls is not None]
    if not slots:
        return None
    # One slot per ledger; a slot without one had no cap, or one of its own.
    ledgers = list({slot.ledger or str(index): slot for index, slot in enumerate(slots)}.values())
    refused = [slot for slot in slots if slot.refused]
    reruns = {slot.reruns for slot in slots}
    return ModelCalls(
        model=slots[0].model,
        made=sum(slot.made for slot in slots),
        replayed=sum(slot.replayed for slot in slots),
        cap=_total([slot.cap for slot in ledgers]),
        tokens=sum(slot.tokens for slot in slots),
        tokens_estimated=any(slot.tokens_estimated for slot in slots),
        token_cap=_total([slot.token_cap for slot in ledgers]),
        refused=sum(slot.refused for slot in slots),
        offline=all(slot.offline for slot in slots),
        recorded=all(slot.recorded for slot in slots),
        reason=refused[0].reason if refused else "",
        reruns="recorded" if "recorded" in reruns else "live" if "live" in reruns else "",
        ledger=ledgers[0].ledger if len(ledgers) == 1 else "",
    )


def _total(caps: list[int | None]) -> int | None:
    """Caps added up; None (no cap) when one of them had none."""
    return None if None in caps else sum(cap or 0 for cap in caps)


def merge_calls(reports: Iterable[TargetReport]) -> dict[str, int]:
    """The call counts of several reports of one target and view, added up."""
    calls: Counter[str] = Counter()
    for report in reports:
        calls.update(report.calls)
    return dict(calls)


def merge_target_reports(reports: Sequence[TargetReport]) -> TargetReport:
    """Several shards' reports of one target on one view, as one report."""
    first = reports[0]
    order: list[str] = []
    by_law: dict[str, list[InvariantResult]] = {}
    for report in reports:
        for result in report.results:
            if result.invariant not in by_law:
                order.append(result.invariant)
                by_law[result.invariant] = []
            by_law[result.invariant].append(result)
    # Vacuity and coverage are properties of the whole: recomputed below, not carried.
    errors = list(
        dict.fromkeys(
            error
            for report in reports
            for error in report.errors
            if not error.startswith((VACUITY_PREFIX, COVERAGE_PREFIX))
        )
    )
    calls = merge_calls(reports)
    compacted, unchanged = calls.get("compacted", 0), calls.get("unchanged", 0)
    if compacted + unchanged and rarely_compacted(compacted, compacted + unchanged):
        examples = sum(report.results[0].examples for report in reports if report.results)
        declined = calls.get("declined", 0) + calls.get("skipped", 0)
        errors.append(vacuity_line(compacted, unchanged, declined, examples))
    stderr = "\n".join(report.stderr for report in reports if report.stderr)
    implementation = next((r.implementation for r in reports if r.implementation), None)
    failures: Counter[str] = Counter()
    for report in reports:
        failures.update(report.failures)
    model = merge_model_calls(reports)
    return TargetReport(
        model_calls=model,
        target=first.target,
        view=first.view,
        implementation=implementation,
        results=(results := [merge_results(by_law[law], model) for law in order]),
        level=level_reached(results),
        errors=errors,
        calls=calls,
        failures=top_failures(failures),
        stderr=stderr[-_STDERR_CHARS:],
        seconds=round(sum(report.seconds for report in reports), 3),
        isolation=first.isolation,
        format=first.format,
        fidelity=merged([report.fidelity for report in reports]),
        inferred_facts=list(dict.fromkeys(f for r in reports for f in r.inferred_facts)),
    )


def merge_target_groups(reports: Iterable[TargetReport]) -> list[TargetReport]:
    """Target reports grouped by (target, view) in order of first appearance, each merged."""
    groups: dict[tuple[str, str], list[TargetReport]] = {}
    for report in reports:
        groups.setdefault((report.target, report.view), []).append(report)
    return [merge_target_reports(group) for group in groups.values()]


def _fingerprint(report: Report) -> str:
    return hashlib.sha256(_canonical(report.to_json_data()).encode()).hexdigest()


def merge_reports(reports: Sequence[Report], *, corpus: Path | None = None) -> Report:
    """Shards' reports as one report; with ``corpus``, counterexamples point into it."""
    if not reports:
        raise MergeError("expected at least one report to merge, found none")
    seen: dict[str, int] = {}
    for number, report in enumerate(reports, 1):
        fingerprint = _fingerprint(report)
        if fingerprint in seen:
            raise MergeError(
                f"reports {seen[fingerprint]} and {number} are the same report; merging it twice "
                "would count its examples twice"
            )
        seen[fingerprint] = number
    first = reports[0]
    shards = _shards_of(reports)
    for report in reports[1:]:
        for name in ("profile", "rounds", "toolkit_version"):
            if getattr(report, name) != getattr(first, name):
                raise MergeError(
                    f"reports disagree on {name}: expected {getattr(first, name)!r} (first "
                    f"report), found {getattr(report, name)!r}; merge shards of one run only"
                )
    # Budget per (target, view): the shares of the shards that ran it add up.
    budgets: dict[tuple[str, str], int] = {}
    for report in reports:
        for target in report.targets:
            key = (target.target, target.view)
            budgets[key] = budgets.get(key, 0) + report.max_examples
    targets = merge_target_groups(t for report in reports for t in report.targets)
    if corpus is not None:
        targets = [point_into(target, corpus) for target in targets]
    return Report(
        toolkit_version=first.toolkit_version,
        seed=first.seed,
        profile=first.profile,
        max_examples=max(budgets.values(), default=first.max_examples),
        rounds=first.rounds,
        complete=all(report.complete for report in reports),
        started_at=min((r.started_at for r in reports if r.started_at), default=""),
        targets=targets,
        shards=shards,
        malformed=first.malformed,
        strict_review=any(report.strict_review for report in reports),
    )


def _shards_of(reports: Sequence[Report]) -> list[str]:
    """The shards the merged report holds: none when it is a whole run, else the ones present.

    Shard reports merge only with shards of the same run (same seed, same M), each shard once.
    Reports of whole runs (no ``--shard``) merge as before, for instance one per target.
    """
    cut = [(number, report) for number, report in enumerate(reports, 1) if report.shards]
    if not cut:
        return []
    whole = next((number for number, report in enumerate(reports, 1) if not report.shards), None)
    if whole is not None:
        number, report = cut[0]
        raise MergeError(
            f"report {whole} is a whole run and report {number} holds shard "
            f"{', '.join(report.shards)}; merge the shards of one run only"
        )
    first_number, first = cut[0]
    count = first.shards[0].split("/")[1]
    owner: dict[str, int] = {}
    for number, report in cut:
        other = report.shards[0].split("/")[1]
        if other != count:
            raise MergeError(
                f"report {first_number} is cut into {count} shards and report {number} into "
                f"{other}; merge the shards of one run only"
            )
        if report.seed != first.seed:
            raise MergeError(
                f"reports {first_number} and {number} are shards of runs with different seeds "
                f"({first.seed} and {report.seed}); merge the shards of one run only"
            )
        for label in report.shards:
            if label in owner:
                raise MergeError(
                    f"shard {label} is in reports {owner[label]} and {number}; merging it twice "
                    "would count its examples twice"
                )
            owner[label] = number
    present = sorted(owner, key=lambda label: int(label.split("/")[0]))
    # All M shards together are the whole run.
    return [] if len(present) == int(count) else present


def point_into(target: TargetReport, corpus: Path) -> TargetReport:
    """The report with each counterexample's corpus file named inside ``corpus``, where it is."""
    results: list[InvariantResult] = []
    for result in target.results:
        if result.counterexample is not None:
            result = result.model_copy(
                update={
                    "counterexample": _pointed(result.counterexample, corpus),
                    "other_ways": [_pointed(example, corpus) for example in result.other_ways],
                }
            )
        results.append(result)
    return target.model_copy(update={"results": results})


def _pointed(example: Counterexample, corpus: Path) -> Counterexample:
    if example.corpus_file:
        moved = corpus / Path(example.corpus_file).name
        if moved.is_file():
            return example.model_copy(update={"corpus_file": str(moved)})
    return example


def _entry_rank(path: Path) -> tuple[int, int, str]:
    data = load_entry(path)
    recorded = data.get("input")
    size = 0
    if isinstance(recorded, dict):
        lists = (recorded.get(key) for key in ("messages", "events", "log"))
        size = next((len(value) for value in lists if isinstance(value, list)), 0)
    # Shrunk before unshrunk, then the smaller history, then content for a stable pick.
    return (0 if data.get("shrunk") else 1, size, _canonical(data))


def merge_corpora(sources: Sequence[Path], destination: Path) -> list[Path]:
    """Copy every source corpus into ``destination``; where names clash, keep the best entry.

    Entry file names are a function of what failed (target, view, invariant and a digest of
    the witness, or for campaigns its signature), so one name is one failure found by several
    shards, and distinct witnesses are all kept.
    """
    best: dict[str, tuple[tuple[int, int, str], Path]] = {}
    for source in sources:
        if not source.exists():
            continue
        for path in corpus_files(source):
            rank = _entry_rank(path)
            if path.name not in best or rank < best[path.name][0]:
                best[path.name] = (rank, path)
    try:
        destination.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputFileError(f"{destination}: cannot write here ({error.strerror})") from error
    written: list[Path] = []
    for name, (_, path) in sorted(best.items()):
        out = destination / name
        if path.resolve() != out.resolve():
            write_text_atomically(out, path.read_text(encoding="utf-8"))
        written.append(out)
    return written
