"""Drift runs: ten or more chained compactions of one long run, each fact's state per round, and
the round where a summariser changed a fact named in the record, the table, the JSON and the page.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from compactcheck.cli import main
from compactcheck.engine.drift import drift_case, run_drift
from compactcheck.invariants.rulings import FAILING
from compactcheck.models import PlantingModel
from compactcheck.render.drift import print_drift, render_drift_html
from compactcheck.report.drift import DriftRun, FactRound
from compactcheck.strategies.drift import MIN_ROUNDS, drift_scenario
from compactcheck.strategies.turns import Say, ToolBatch
from compactcheck.targets.registry import resolve
from tests.compactcheck.commandline import cli
from tests.compactcheck.models.summarisers import model_summariser, target_of


def _planted_in_round_7() -> tuple[DriftRun, PlantingModel]:
    model = PlantingModel("number", at_call=7)
    return run_drift(target_of("summariser", model_summariser(model)), seed=0), model


def test_a_drift_run_chains_ten_compactions_with_overrides_and_distractors_between() -> None:
    scenario = drift_scenario(0)
    assert len(scenario.turns) == MIN_ROUNDS
    assert drift_case(0).cuts == tuple(range(1, MIN_ROUNDS + 1))
    changed = [i for i, turn in enumerate(scenario.turns) if turn.constraint_changes]
    overrides = [
        i
        for i, turn in enumerate(scenario.turns)
        if any(c.supersedes for c in turn.constraint_changes)
    ]
    # Overridden midway: never in the first two turns nor the last two.
    assert overrides
    assert all(2 <= i < MIN_ROUNDS - 2 for i in changed)
    for turn in scenario.turns:
        assert any(isinstance(action, ToolBatch) for action in turn.actions)
        assert any(isinstance(action, Say) for action in turn.actions)
    assert drift_scenario(0) == scenario
    assert drift_scenario(1) != scenario
    assert len(drift_scenario(3, 14).turns) == 14
    with pytest.raises(ValueError, match="at least 10 compactions"):
        drift_scenario(0, 9)


def test_the_reference_keeps_every_fact_in_every_round_overrides_included() -> None:
    target = resolve("reference-messages", view="messages")
    run = run_drift(target, seed=0)
    assert len(run.rounds) == MIN_ROUNDS
    assert sum(r.status == "compacted" for r in run.rounds) >= 5
    assert run.onsets() == ()
    assert not run.failed()
    kinds = {fact.kind for fact in run.rounds[-1].facts}
    assert {"goal", "constraint", "superseded"} <= kinds


def test_a_change_planted_in_round_7_of_10_is_named_in_round_7() -> None:
    run, model = _planted_in_round_7()
    [plant] = model.planted
    assert plant.call == 7
    assert [r.status for r in run.rounds] == ["compacted"] * MIN_ROUNDS
    onsets = run.onsets()
    assert onsets
    assert {onset.round for onset in onsets} == {7}
    # The constraint whose number was changed is the one reported lost, by the law that reads it.
    [lost] = [onset for onset in onsets if onset.state == "lost"]
    assert lost.kind == "constraint"
    assert lost.fact in plant.before
    assert lost.laws == ("constraints_preserved",)
    for drift_round in run.rounds:
        # Before its override a constraint is not a fact of the round yet.
        state = {f.fact: f.state for f in drift_round.facts}.get(lost.fact, "kept")
        assert (state == "kept") == (drift_round.round < 7)


def test_the_table_json_and_page_name_the_round_of_the_change() -> None:
    run, _ = _planted_in_round_7()
    [lost] = [onset for onset in run.onsets() if onset.state == "lost"]
    buffer = io.StringIO()
    print_drift(run, Console(file=buffer, width=300, color_system=None))
    rows = [line for line in buffer.getvalue().splitlines() if lost.fact in line]
    assert len(rows) == 1
    assert rows[0].split("│")[1].strip() == "7"
    assert "drifted" in buffer.getvalue()
    again = DriftRun.model_validate_json(run.model_dump_json())
    assert again == run
    page = render_drift_html(run)
    # The states per round, and the rulings per round.
    assert page.count("<svg") == 2
    assert "facts kept, lost and reasserted per round" in page
    assert f"constraint &#39;{lost.fact}&#39; lost (constraints_preserved)" in page


def test_each_fact_of_a_round_has_room_for_a_ruling() -> None:
    fact = FactRound(fact="Never push to main", kind="constraint", state="kept")
    assert fact.ruling is None
    ruled = fact.model_copy(update={"ruling": "reworded"})
    assert json.loads(ruled.model_dump_json())["ruling"] == "reworded"


def test_the_drift_command_writes_its_record_and_page(tmp_path: Path) -> None:
    record, page = tmp_path / "drift.json", tmp_path / "drift.html"
    assert main(["drift", "reference-messages", "--json", str(record), "--html", str(page)]) == 0
    run = DriftRun.model_validate_json(record.read_text())
    assert (run.target, run.seed, len(run.rounds)) == ("reference-messages", 0, MIN_ROUNDS)
    assert "<svg" in page.read_text()


def test_the_drift_command_fails_on_a_planted_change_and_names_its_round(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    done = cli(
        "drift",
        "langchain:summarization-middleware",
        "--model",
        "plant-number",
        "--rounds",
        "12",
        "--json",
        "drift.json",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert "drifted" in done.stdout
    run = DriftRun.model_validate_json((tmp_path / "drift.json").read_text())
    assert (run.model, len(run.rounds)) == ("plant-number", 12)
    assert run.onsets()


def test_the_drift_command_refuses_fewer_than_ten_rounds(tmp_path: Path) -> None:
    done = cli("drift", "reference-messages", "--rounds", "5", cwd=tmp_path)
    assert done.returncode == 2
    assert "expected at least 10 rounds" in done.stderr


def test_each_round_carries_the_readings_ruling_and_the_page_charts_them() -> None:
    run, _ = _planted_in_round_7()
    [lost] = [onset for onset in run.onsets() if onset.state == "lost"]
    ruled = {r.round: {f.fact: f.ruling for f in r.facts} for r in run.rounds}
    # The planted number change is ruled a loss from round 7 on, and was kept before. (The
    # reading rules it dropped, not changed: its replacement note names a third value, 90 %.)
    assert ruled[7][lost.fact] in FAILING
    assert all(ruled[n].get(lost.fact) in (None, "kept", "reworded") for n in range(1, 7))
    page = render_drift_html(run)
    assert "the reading&#39;s ruling on each fact per round" in page or (
        "the reading's ruling on each fact per round" in page
    )
    assert "<th>rulings</th>" in page
    buffer = io.StringIO()
    print_drift(run, Console(file=buffer, width=300, color_system=None))
    [row] = [line for line in buffer.getvalue().splitlines() if line.strip().startswith("│ 7 ")]
    assert f"{ruled[7][lost.fact]} 1" in row
