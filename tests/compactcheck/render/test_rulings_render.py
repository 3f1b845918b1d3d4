"""Reports carry the rulings: under a counterexample in HTML, counted in the fidelity table."""

from __future__ import annotations

import json

from compactcheck.render.fidelity_rows import fidelity_rows
from compactcheck.render.html import render_html
from compactcheck.report.model import (
    Counterexample,
    Fidelity,
    FidelityRound,
    FidelitySide,
    InvariantResult,
    Report,
    RuledFact,
    TargetReport,
)


def _report() -> Report:
    example = Counterexample(
        round=1,
        because="current constraint 'Do not touch the public API' is contradicted",
        witness=[],
        input=[{"role": "user", "content": "Rule: Do not touch the public API."}],
        output=[{"role": "user", "content": "The public API: feel free to touch it."}],
        history_size=1,
        rulings=[
            RuledFact(
                fact="Do not touch the public API",
                kind="constraint",
                ruling="contradicted",
                sentence="The public API: feel free to touch it.",
            )
        ],
    )
    result = InvariantResult(
        invariant="constraints_preserved",
        statement="s",
        verdict="violation",
        examples=1,
        exercised=1,
        because=example.because,
        counterexample=example,
    )
    overall = FidelityRound(round=0, compactions=2, rulings={"reworded": 3, "contradicted": 1})
    rounds = [
        FidelityRound(round=1, compactions=1, rulings={"reworded": 2}),
        FidelityRound(round=2, compactions=1, rulings={"reworded": 1, "contradicted": 1}),
    ]
    fidelity = Fidelity(counter="characters", target=FidelitySide(overall=overall, rounds=rounds))
    target = TargetReport(target="t", view="messages", results=[result], fidelity=fidelity)
    return Report(
        toolkit_version="0",
        seed=0,
        profile="ci",
        max_examples=1,
        rounds=2,
        complete=True,
        started_at="now",
        targets=[target],
    )


def test_the_html_report_shows_each_ruling_of_a_counterexample() -> None:
    page = render_html(_report())
    assert '<tr class="ruling-contradicted"><td>contradicted</td>' in page
    assert "The public API: feel free to touch it." in page


def test_the_fidelity_table_counts_each_ruling_by_round() -> None:
    rows = {row.kind: row for row in fidelity_rows(_report().targets[0])}
    assert rows["ruling:reworded"].mean == "3"
    assert rows["ruling:reworded"].by_round == ["2", "1"]
    assert rows["ruling:contradicted"].by_round == ["0", "1"]


def test_a_report_written_before_rulings_loads() -> None:
    data = json.loads(_report().model_dump_json())
    for target in data["targets"]:
        del target["fidelity"]["target"]["overall"]["rulings"]
        for result in target["results"]:
            del result["counterexample"]["rulings"]
    loaded = Report.model_validate(data)
    example = loaded.targets[0].results[0].counterexample
    assert example is not None
    assert example.rulings == []
