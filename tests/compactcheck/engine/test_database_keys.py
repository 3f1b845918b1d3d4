"""Each hunt keeps its failures under its own example-database key."""

from __future__ import annotations

from pathlib import Path

from hypothesis.database import InMemoryExampleDatabase

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.targets.registry import resolve

# Keeps only the last two messages: breaks several messages laws at once.
TRIMMER = """
def compact(messages):
    return messages[-2:]
"""


def _primary_keys(database: InMemoryExampleDatabase) -> set[bytes]:
    # Hypothesis also keeps secondary and pareto entries under derived keys.
    derived = (b".secondary", b".pareto")
    return {key for key, values in database.data.items() if values and not key.endswith(derived)}


def test_two_laws_of_one_target_shrink_under_two_keys(tmp_path: Path) -> None:
    module = tmp_path / "trimmer.py"
    module.write_text(TRIMMER)
    database = InMemoryExampleDatabase()
    config = RunConfig(
        seed=0,
        max_examples=40,
        profile="dev",
        corpus_dir=tmp_path / "corpus",
        include=("goal_preserved", "user_turn_present"),
        database=database,
        min_exercised=0,
    )
    target = resolve(f"py:{module}:compact", view="messages")
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    broken = [r.invariant for r in report.results if r.verdict == "violation"]
    assert sorted(broken) == ["goal_preserved", "user_turn_present"]
    # One saved failure per broken law, each under the key of its own hunt: a later run replays
    # a law's failure into that law's hunt only.
    assert len(_primary_keys(database)) == len(broken)
