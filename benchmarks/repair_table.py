"""The repair fuzz's figures as a table: one line per target, the totals, the cost per call,
and the Markdown page of the published reports (``benchmarks.repair_fuzz`` runs them)."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from benchmarks.messages_judgement import best_ms
from compactcheck.observed.judging import check_pair
from compactcheck.observed.repair import repair

if TYPE_CHECKING:
    from benchmarks.repair_fuzz import Row


HEADER = (
    f"{'target':<44} {'fmt':<9} {'calls':>5} {'grown':>5} {'broken':>6} {'fixed':>5} "
    f"{'input':>5} {'refused':>7} {'repairs':>7} {'+chars':>7} {'growth':>6}  verdict"
)


def row_line(row: Row) -> str:
    """One target's figures as a line of the table."""
    tally = row.tally
    added = f"{statistics.mean(tally.added):.0f}" if tally.added else "-"
    growth = "-" if tally.growth < -(10**8) else str(tally.growth)
    verdict = "pass" if row.passed else "FAIL"
    if row.broken_covered:
        verdict += f" (broken: {', '.join(row.broken_covered)})"
    if row.broken_other:
        verdict += f" (also: {', '.join(row.broken_other)})"
    if tally.failures:
        verdict += f" ({tally.failures} repair(s) raised)"
    return (
        f"{row.target:<44} {row.format[:9]:<9} {tally.calls:>5} {tally.grown:>5} "
        f"{tally.broken - tally.grown:>6} "
        f"{tally.repaired:>5} {tally.returned_input:>5} {tally.refused:>7} "
        f"{sum(tally.repairs.values()):>7} {added:>7} {growth:>6}  {verdict}"
    )


def costs(rows: Sequence[Row]) -> tuple[float, float, int, int] | None:
    """The guard's judging and the repair's median ms per broken call at median input size:
    (judge, repair, input characters, pairs timed)."""
    pairs = [pair for row in rows for pair in row.tally.pairs]
    if not pairs:
        return None
    middle = statistics.median(pair[4] for pair in pairs)
    nearest = sorted(pairs, key=lambda pair: abs(pair[4] - middle))[:15]
    judged, mended = [], []
    for before, after, facts, fmt, _ in nearest:
        judged.append(best_ms(partial(check_pair, before, after, facts, format=fmt), repeat=3))
        mended.append(best_ms(partial(repair, before, after, facts, format=fmt), repeat=3))
    return statistics.median(judged), statistics.median(mended), int(middle), len(nearest)


def table(rows: Sequence[Row], print_line: Callable[[str], None] = print) -> None:
    """Print every row, the totals and the cost per call."""
    print_line(HEADER)
    for row in rows:
        print_line(row_line(row))
    passed = sum(row.passed for row in rows)
    print_line(f"passed: {passed} of {len(rows)} (no covered law broken, no answer grown)")
    measured = costs(rows)
    if measured is not None:
        judge, mend, size, count = measured
        print_line(
            f"per broken call at the median input size ({size} characters, {count} calls): "
            f"judging {judge:.2f} ms, repairing {mend:.2f} ms ({mend / judge:.2f}x the judging)"
        )


def skipped_lines(skipped: Sequence[str]) -> list[str]:
    """The targets not run, each with why."""
    return [f"Not run: {name}." for name in skipped]


def markdown(rows: Sequence[Row], options: argparse.Namespace, notes: Sequence[str] = ()) -> str:
    """The table as a Markdown page (the published reports' repair page)."""
    out = [
        '# Targets guarded with on_violation="repair"',
        "",
        "Each target's answers pass through "
        '`compactcheck.guard(..., on_violation="repair")` '
        f"before the run judges them by every law of its format: {options.examples} histories "
        f"per target, seed {options.seed}, up to 3 compaction rounds, profile ci, facts "
        f"{options.facts} (declared: the guard is given each history's ground truth, as the run "
        "judges it; inferred: it reads them off the history, as in production), the target's "
        "waivers dropped (a guarded compactor promises every law). Regenerate with "
        "`.venv/bin/python reports/regenerate --repair`.",
        "",
        "Columns: calls to the target; grown: lawful answers larger than their input, which the "
        "guard replaced by the input; broken: answers that broke a law; repaired: returned "
        "repaired; input returned: no lawful repair (a law without one, or a repaired answer "
        "larger than the input), the input returned; refused: `RepairError` (nothing lawful fits "
        "the declared budget); repairs: the repairs made; chars added: the mean characters the "
        "repairs added to an answer (negative: took out); growth: the largest returned answer "
        "minus its input, in characters. A target passes when no law a repair covers is broken "
        "on any answer the guard returned and none is larger than its input.",
        "",
        "| target | format | calls | grown | broken | repaired | input returned | refused "
        "| repairs | chars added | growth | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        tally = row.tally
        added = f"{statistics.mean(tally.added):.0f}" if tally.added else "-"
        growth = "-" if tally.growth < -(10**8) else str(tally.growth)
        verdict = "pass" if row.passed else "FAIL: " + ", ".join(row.broken_covered)
        if row.broken_other:
            verdict += f" (also broken: {', '.join(row.broken_other)})"
        out.append(
            f"| {row.target} | {row.format} | {tally.calls} | {tally.grown} "
            f"| {tally.broken - tally.grown} | {tally.repaired} "
            f"| {tally.returned_input} | {tally.refused} | {sum(tally.repairs.values())} "
            f"| {added} | {growth} | {verdict} |"
        )
    out += ["", *(f"{note}\n" for note in notes)]
    return "\n".join(out)
