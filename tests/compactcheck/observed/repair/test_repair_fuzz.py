"""The repair fuzzed: each built-in messages mutant, and some published real targets, wrapped in
``guard(..., on_violation="repair")`` and judged by the whole catalogue (``benchmarks/run --only
repair`` runs every mutant on 200 histories, ``benchmarks.repair_fuzz real`` every real target)."""

from __future__ import annotations

import importlib.util
import shutil
from functools import cache

import pytest

from benchmarks.repair_fuzz import Row, fuzz_repair, mutant_names
from compactcheck.observed.repair import COVERED

EXAMPLES = 12


@cache
def _row(name: str) -> Row:
    """One target fuzzed, once per session (each test reads the same run)."""
    return fuzz_repair(name, EXAMPLES)


@pytest.mark.parametrize("name", mutant_names())
def test_a_guarded_mutant_breaks_no_law_a_repair_covers(name: str) -> None:
    row = _row(name)
    assert row.tally.calls > 0
    assert not row.broken_covered, row.report.results
    assert row.tally.growth <= 0, "an answer larger than its input"
    assert row.tally.failures == 0, "a repair raised"
    # Every law but the call law holds: what the guard returns is judged as the run judges.
    assert set(row.broken_other) <= {"call_answered"}
    if row.broken_other:
        # A refusal (RepairError: nothing lawful fits the budget) is a raise, and said so.
        assert row.tally.refused > 0


@pytest.mark.parametrize(
    "name",
    [
        "mutant:messages-keep-last-n",
        "mutant:anthropic-keep-last-n",
        "mutant:responses-keep-last-n",
        "mutant:gemini-keep-last-n",
        "mutant:messages-drop-user-turns",
    ],
)
def test_a_broken_window_is_repaired_not_only_handed_back(name: str) -> None:
    row = _row(name)
    assert row.tally.repaired >= row.tally.broken // 2 > 0
    assert set(row.tally.repairs) <= COVERED


@pytest.mark.parametrize(
    ("name", "needs"),
    [("langchain:trim_messages", "langchain_core"), ("autogen:buffered", "autogen_core")],
)
def test_a_guarded_real_target_breaks_no_law_a_repair_covers(name: str, needs: str) -> None:
    if importlib.util.find_spec(needs) is None:
        pytest.skip(f"{name} needs {needs} (its extra)")
    row = fuzz_repair(name, EXAMPLES)
    assert row.tally.repaired > 0
    assert row.passed, row.report.results


def test_a_guarded_node_target_breaks_no_law_a_repair_covers() -> None:
    if shutil.which("node") is None:
        pytest.skip("needs node (and npm ci in harnesses/node)")
    row = fuzz_repair("node:ai-prune-messages", EXAMPLES)
    assert row.passed, row.report.results
