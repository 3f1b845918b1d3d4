"""Shards: seeds and budgets, merging reports and corpora, the mutant-suite equivalence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactcheck.base.errors import CompactcheckError
from compactcheck.base.shards import Shard, ShardError
from compactcheck.cli import main
from compactcheck.corpus.entry import CorpusEntry, load_entry, write_entry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import report_of
from compactcheck.engine.events import TargetFinished
from compactcheck.engine.plan import Job, plan, run_job
from compactcheck.engine.recording import ByLaw
from compactcheck.report.io import load_report, write_report
from compactcheck.report.model import InvariantResult, ModelCalls, Report, TargetReport
from compactcheck.scale.merge import MergeError, merge_corpora, merge_reports, merge_target_reports
from compactcheck.scale.pool import submit, worker_pool
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import all_mutants


def test_shards_cover_the_budget_with_distinct_seeds() -> None:
    shards = [Shard(index, 4) for index in range(1, 5)]
    assert sum(shard.budget(101) for shard in shards) == 101
    assert len({shard.seed(7) for shard in shards}) == 4
    assert Shard().seed(7) == 7
    assert Shard().budget(101) == 101
    # Neighbouring run seeds do not share shard streams.
    assert {s.seed(7) for s in shards}.isdisjoint({s.seed(8) for s in shards})


def test_a_shard_split_on_one_machine_is_the_finer_global_shard() -> None:
    assert Shard(2, 3).split(2) == [Shard(3, 6), Shard(4, 6)]
    assert Shard().split(1) == [Shard()]
    assert Shard.parse(" 2/4 ") == Shard(2, 4)
    for bad in ("0/2", "3/2", "1", "a/b", "1/0"):
        with pytest.raises(ShardError):
            Shard.parse(bad)


def test_workers_beyond_the_units_cut_each_unit_into_shards(tmp_path: Path) -> None:
    config = RunConfig(seed=3, max_examples=10, corpus_dir=tmp_path / "corpus")
    one = plan([("reference", "snapshot")], config, shard=Shard(), lanes=3, calls=Calls(timeout=5))
    assert one.parts == 3
    assert [job.config.shard for job in one.jobs] == [Shard(1, 3), Shard(2, 3), Shard(3, 3)]
    assert sum(job.config.max_examples for job in one.jobs) == 10
    # Separate corpora per shard, one shared Hypothesis database folder.
    assert len({job.config.corpus_dir for job in one.jobs}) == 3
    assert {job.config.database_dir for job in one.jobs} == {tmp_path / "hypothesis"}
    many = plan(
        [("reference", "snapshot"), ("reference-messages", "messages")],
        config,
        shard=Shard(),
        lanes=2,
        calls=Calls(timeout=5),
    )
    assert many.parts == 1
    assert [job.config.seed for job in many.jobs] == [3, 3]


MUTANTS = sorted(all_mutants().values(), key=lambda m: m.name)


def _suite(shard: Shard, corpus: Path) -> Report:
    """Every mutant against its own law, detection only, stopping once it is caught."""
    jobs: list[Job] = []
    for mutant in MUTANTS:
        config = RunConfig(
            seed=0,
            max_examples=600,
            profile="ci",
            corpus_dir=corpus,
            include=(mutant.targets,),
            shrink=False,
            stop_when_all_broken=True,
            malformed=mutant.malformed,
        )
        jobs.append(Job(f"mutant:{mutant.name}", mutant.view, config.for_shard(shard), Calls()))
    with worker_pool(2) as pool:
        futures = [submit(pool, run_job, job, ByLaw()) for job in jobs]
        events = [event for future in futures for event in future.result()]
    targets = [event.report for event in events if isinstance(event, TargetFinished)]
    return report_of(targets, RunConfig(seed=0, max_examples=600, profile="ci"), "", complete=True)


def _found(report: Report) -> set[tuple[str, str]]:
    return {
        (target.target, result.invariant)
        for target in report.targets
        for result in target.results
        # The weakening mutant's hedge is left for review: caught, as review.
        if result.verdict in ("violation", "review")
    }


def test_two_shards_merged_find_what_one_shard_finds_on_the_mutant_suite(tmp_path: Path) -> None:
    whole = _suite(Shard(), tmp_path / "whole")
    first = _suite(Shard(1, 2), tmp_path / "first")
    second = _suite(Shard(2, 2), tmp_path / "second")
    merged = merge_reports([first, second])
    expected = {(f"mutant:{m.name}", m.targets) for m in MUTANTS}
    assert _found(whole) == expected
    assert _found(merged) == _found(whole)


def _entry(target: str, size: int, *, shrunk: bool) -> CorpusEntry:
    messages = [{"role": "user", "content": str(n)} for n in range(size)]
    return CorpusEntry(
        target=target,
        view="messages",
        invariant="tool_pairing",
        seed=size,
        toolkit_version="test",
        round=1,
        input={"messages": messages},
        facts={},
        because="b",
        shrunk=shrunk,
    )


def test_merged_corpora_keep_every_witness_and_the_best_of_one_whatever_the_order(
    tmp_path: Path,
) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    write_entry(a, _entry("t", 3, shrunk=False))
    write_entry(b, _entry("t", 9, shrunk=True))
    write_entry(c, _entry("t", 5, shrunk=True))
    write_entry(c, _entry("other", 4, shrunk=False))
    # The same witness as a's, found shrunk: one file name, one entry.
    write_entry(b, _entry("t", 3, shrunk=True))
    forward = merge_corpora([a, b, c], tmp_path / "forward")
    backward = merge_corpora([c, b, a], tmp_path / "backward")
    assert [p.name for p in forward] == [p.name for p in backward]
    # Every distinct witness is kept: entries are named by their content.
    kept = sorted((load_entry(p)["target"], load_entry(p)["seed"]) for p in forward)
    assert kept == [("other", 4), ("t", 3), ("t", 5), ("t", 9)]
    # Of one witness found twice, the shrunk entry is kept.
    [three] = [load_entry(p) for p in forward if load_entry(p)["seed"] == 3]
    assert three["shrunk"] is True
    assert {p.read_text() for p in forward} == {p.read_text() for p in backward}


def test_merging_the_same_report_twice_is_refused(tmp_path: Path) -> None:
    report = report_of([], RunConfig(seed=1), "", complete=True)
    with pytest.raises(MergeError, match="same report"):
        merge_reports([report, report])
    with pytest.raises(MergeError, match="at least one"):
        merge_reports([])


def test_cli_merges_shard_reports_and_corpora(tmp_path: Path) -> None:
    outputs = []
    for index in (1, 2):
        out = tmp_path / f"shard{index}.json"
        code = main(
            [
                "run",
                "mutant:messages-drop-user-turns",
                "--profile",
                "ci",
                "--invariants",
                "user_turn_present,non_empty",
                "--max-examples",
                "20",
                "--shard",
                f"{index}/2",
                "--corpus",
                str(tmp_path / f"corpus{index}"),
                "--json",
                str(out),
            ]
        )
        assert code == 1
        outputs.append(out)
    merged = tmp_path / "merged.json"
    code = main(
        [
            "merge",
            *map(str, outputs),
            "--corpus",
            str(tmp_path / "corpus1"),
            "--corpus",
            str(tmp_path / "corpus2"),
            "--corpus-out",
            str(tmp_path / "corpus"),
            "--json",
            str(merged),
        ]
    )
    assert code == 1
    report = load_report(merged)
    shards = [load_report(path) for path in outputs]
    assert report.max_examples == 20 == sum(shard.max_examples for shard in shards)
    # Each shard says which it is and carries the run's seed; together they are the whole run.
    assert [shard.shards for shard in shards] == [["1/2"], ["2/2"]]
    assert {shard.seed for shard in shards} == {0}
    assert report.shards == []
    assert report.missing_shards() == []
    [target] = report.targets
    by_law = {result.invariant: result for result in target.results}
    broken = by_law["user_turn_present"]
    assert broken.verdict == "violation"
    assert broken.examples == sum(
        r.examples
        for s in shards
        for r in s.targets[0].results
        if r.invariant == "user_turn_present"
    )
    assert broken.counterexample is not None
    assert broken.counterexample.corpus_file is not None
    assert Path(broken.counterexample.corpus_file).parent == tmp_path / "corpus"
    assert Path(broken.counterexample.corpus_file).is_file()
    assert by_law["non_empty"].verdict == "pass"
    # Merging is commutative up to the order of the targets.
    write_report(report, tmp_path / "again.json")
    flipped = merge_reports(list(reversed(shards)))
    assert (
        json.loads(flipped.model_dump_json())["targets"][0]["results"]
        == json.loads(merge_reports(shards).model_dump_json())["targets"][0]["results"]
    )


def _shard_report(label: str, seed: int = 5, started: str = "") -> Report:
    shard = Shard.parse(label)
    config = RunConfig(seed=seed, max_examples=10).for_shard(shard)
    return report_of([], config, started, complete=True)


def test_a_shard_report_carries_the_run_seed_and_its_place() -> None:
    report = _shard_report("2/3")
    assert report.seed == 5
    assert report.shards == ["2/3"]
    assert report.missing_shards() == ["1/3", "3/3"]
    assert report_of([], RunConfig(seed=5), "", complete=True).shards == []


def test_merging_shards_of_one_run_lists_what_is_missing() -> None:
    whole = merge_reports([_shard_report("3/3"), _shard_report("1/3"), _shard_report("2/3")])
    assert whole.shards == []
    part = merge_reports([_shard_report("3/3"), _shard_report("1/3")])
    assert part.shards == ["1/3", "3/3"]
    assert part.missing_shards() == ["2/3"]


@pytest.mark.parametrize(
    ("reports", "message"),
    [
        (lambda: [_shard_report("1/2"), _shard_report("1/2", started="re-run")], "shard 1/2 is in"),
        (lambda: [_shard_report("1/2"), _shard_report("2/3")], "cut into 2 shards"),
        (lambda: [_shard_report("1/2"), _shard_report("2/2", seed=6)], "different seeds"),
        (
            lambda: [_shard_report("1/2"), report_of([], RunConfig(seed=5), "", complete=True)],
            "report 2 is a whole run",
        ),
    ],
)
def test_merging_shards_of_different_runs_is_refused(reports: Any, message: str) -> None:
    with pytest.raises(MergeError, match=message):
        merge_reports(reports())


def test_a_report_with_inconsistent_shards_does_not_load(tmp_path: Path) -> None:
    data = _shard_report("1/2").to_json_data()
    for bad in (["1/2", "1/3"], ["3/2"], ["1/2", "1/2"], ["x"]):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({**data, "shards": bad}))
        with pytest.raises(CompactcheckError, match="shard"):
            load_report(path)


def test_cli_merge_of_some_shards_is_inconclusive_and_says_which_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shard1.json"
    arguments = ["run", "reference-messages", "--profile", "ci", "--max-examples", "10"]
    assert main([*arguments, "--shard", "1/2", "--json", str(out)]) == 0
    code = main(["merge", str(out), "--markdown", str(tmp_path / "merged.md")])
    assert code == 3
    assert "missing shard(s) 2/2" in capsys.readouterr().out
    assert "missing 2/2" in (tmp_path / "merged.md").read_text()


def test_cli_refuses_a_shard_without_a_seed_where_the_seed_is_random(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", "reference-messages", "--profile", "dev", "--shard", "1/2"])
    assert code == 2
    error = capsys.readouterr().err
    assert "--shard 1/2 needs --seed" in error
    assert error.count("\n") == 1


def test_merged_target_reports_keep_where_the_target_ran_and_add_up_its_failures() -> None:
    def shard(failures: dict[str, int]) -> TargetReport:
        errored = sum(failures.values())
        return TargetReport(
            target="py:mine.py:compact",
            view="messages",
            results=[],
            calls={"compacted": 5, "errored": errored},
            failures=failures,
            isolation="worker process",
        )

    merged = merge_target_reports(
        [shard({"SystemExit(3) raised": 2}), shard({"SystemExit(3) raised": 1, "hang": 4})]
    )
    assert merged.isolation == "worker process"
    assert merged.failures == {"hang": 4, "SystemExit(3) raised": 3}
    assert merged.calls["errored"] == 7


def test_a_model_refusal_in_one_shard_leaves_no_pass_in_the_merge() -> None:
    passed = InvariantResult(
        invariant="goal_preserved",
        statement="the goal survives",
        verdict="pass",
        examples=10,
        exercised=8,
        compactions=9,
        level=2,
    )

    def shard(refused: int) -> TargetReport:
        calls = ModelCalls(model="paraphrase", made=5, refused=refused, reason="cap of 5 reached")
        return TargetReport(
            target="langmem:summarize_messages",
            view="messages",
            results=[passed],
            model_calls=calls,
        )

    merged = merge_target_reports([shard(0), shard(3)])
    [result] = merged.results
    assert result.verdict == "unknown"
    assert result.because is not None
    assert result.because.startswith("inconclusive (paraphrase: cap of 5 reached)")
    assert merged.model_calls is not None
    assert merged.model_calls.refused == 3
    [clean] = merge_target_reports([shard(0), shard(0)]).results
    assert clean.verdict == "pass"


def test_shards_of_one_run_share_their_cap_and_other_runs_add_theirs() -> None:
    def shard(ledger: str, made: int, *, reruns: str = "live") -> TargetReport:
        calls = ModelCalls.model_validate(
            {
                "model": "openai:x",
                "made": made,
                "cap": 5,
                "tokens": 10 * made,
                "token_cap": 100,
                "ledger": ledger,
                "reruns": reruns,
            }
        )
        return TargetReport(target="t", view="messages", results=[], model_calls=calls)

    one_run = merge_target_reports([shard("a", 3), shard("a", 2, reruns="recorded")]).model_calls
    assert one_run is not None
    assert (one_run.made, one_run.cap, one_run.tokens, one_run.token_cap) == (5, 5, 50, 100)
    assert (one_run.ledger, one_run.reruns) == ("a", "recorded")
    two_runs = merge_target_reports([shard("a", 3), shard("b", 4)]).model_calls
    assert two_runs is not None
    assert (two_runs.made, two_runs.cap, two_runs.token_cap, two_runs.ledger) == (7, 10, 200, "")


def test_shards_of_a_local_fake_merge_as_not_recorded() -> None:
    def shard(recorded: bool) -> TargetReport:
        calls = ModelCalls(model="paraphrase", made=4, recorded=recorded)
        return TargetReport(target="t", view="messages", results=[], model_calls=calls)

    fake = merge_target_reports([shard(False), shard(False)]).model_calls
    assert fake is not None
    assert not fake.recorded
    assert "a local fake: its answers are not recorded" in fake.counts()
    real = merge_target_reports([shard(True), shard(True)]).model_calls
    assert real is not None
    assert real.recorded
