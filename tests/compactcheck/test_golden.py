"""The golden corpus: every hand-written case behaves as its file says."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.reference_engine.golden import DEFAULT_CORPUS, case_files, load_case, run_case
from compactcheck.reference_engine.snapshot import SEED_RULES, SnapshotDesign

CASES = list(case_files(DEFAULT_CORPUS))


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_case_behaves_as_expected(path: Path) -> None:
    result = run_case(load_case(path), path)
    assert len(result.rounds) == len(result.case.rounds)
    problems = [f"round {r.index}: {r.mismatches}" for r in result.rounds if r.mismatches]
    assert not problems, problems


def test_corpus_covers_every_rule_both_ways_and_both_modes() -> None:
    cases = [load_case(path) for path in CASES]
    assert len(cases) >= 20
    expected = [r.expect for case in cases for r in case.rounds]
    failing = {rule for e in expected for rule in e.failed_rules}
    assert set(SEED_RULES) | {"checksum"} <= failing
    assert any(e.outcome == "compacted" and not e.failed_rules for e in expected)
    assert {case.mode for case in cases} == set(SnapshotDesign)


def _expect(name: str) -> list[tuple[str, tuple[str, ...], bool | None]]:
    [case] = [load_case(p) for p in CASES if p.stem.endswith(name)]
    return [(r.expect.outcome, r.expect.failed_rules, r.expect.made_progress) for r in case.rounds]


def test_literal_gaps_fail_and_corrected_default_passes() -> None:
    # Second compaction cannot see earlier state.
    assert _expect("-second-round-literal")[1][0] == "rejected"
    assert _expect("-second-round")[1] == ("compacted", (), True)
    # No progress guarantee.
    assert _expect("-seed-scenario-literal") == [("compacted", (), False)]
    assert _expect("-seed-scenario") == [("compacted", (), True)]
    # An unverified checksum.
    assert _expect("-tampered-snapshot")[1][:2] == ("rejected", ("checksum",))
    assert "checksum" not in _expect("-tampered-snapshot-literal")[1][1]
