"""Verdicts a team can gate CI on, tried as a user would: the CLI on compactors of four kinds.

One raises on some inputs (a crash finding), one never compacts (inconclusive), one acts only
on large histories and then cuts tool pairs (a violation), one is correct on every history a
provider accepts (a pass; and a violation only when malformed input is asked for by name).
"""

from __future__ import annotations

import sys
from pathlib import Path

from compactcheck.report.model import Report, TargetReport
from tests.compactcheck.commandline import cli, load

HERE = Path(__file__).parent
TARGETS = HERE / "verdict_targets"
DYING = HERE.parent / "harnesses" / "dies_on_parallel.py"
# Laws that a compactor keeping no content by design can still promise.
STRUCTURAL = "tool_pairing,non_empty,user_turn_present,recent_tail_preserved,goal_preserved"


def run(target: str, tmp_path: Path, *options: str, profile: str = "ci") -> tuple[int, Report, str]:
    """``compactcheck run`` on the messages view, writing every format; exit, report, console."""
    done = cli(
        "run",
        target,
        "--view",
        "messages",
        "--profile",
        profile,
        "--max-examples",
        "60",
        "--json",
        "out.json",
        "--markdown",
        "out.md",
        "--junit",
        "out.xml",
        "--html",
        "out.html",
        # The targets live in this repository: keep what the run finds in the test's folder.
        "--corpus",
        str(tmp_path / ".compactcheck" / "corpus"),
        *options,
        cwd=tmp_path,
        columns=200,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, load(tmp_path / "out.json"), done.stdout


def _renderings(folder: Path) -> dict[str, str]:
    """The Markdown, JUnit and HTML reports a run of ``run`` wrote, by file name."""
    return {name: (folder / name).read_text() for name in ("out.md", "out.xml", "out.html")}


def only(report: Report) -> TargetReport:
    [target] = report.targets
    return target


def verdicts(report: Report) -> dict[str, str]:
    return {result.invariant: result.verdict for result in only(report).results}


def test_a_compactor_that_raises_gets_a_crash_finding_in_every_format(tmp_path: Path) -> None:
    code, report, console = run(f"py:{TARGETS / 'raises_sometimes.py'}:compact", tmp_path)
    assert code == 1, console
    crash = next(r for r in only(report).results if r.invariant == "call_answered")
    assert crash.verdict == "violation"
    assert crash.counterexample is not None
    assert "ValueError: cannot compact 2 parallel calls" in crash.counterexample.because
    assert crash.counterexample.reproduced == "deterministic"
    # Shrunk: the smallest history with one parallel batch of two calls.
    assert crash.counterexample.history_size <= 6
    for name, rendered in _renderings(tmp_path).items():
        assert "ValueError: cannot compact" in rendered, name
    assert "ValueError: cannot compact" in console
    # The laws are judged on the calls that answered; their counters say how many did not.
    tail = next(r for r in only(report).results if r.invariant == "recent_tail_preserved")
    assert tail.errored > 0
    assert tail.compactions > 0
    # A pass beside the crash says so in its own line, not only in the counters.
    assert tail.verdict == "pass"
    assert tail.because is not None
    assert tail.because.endswith(
        f"; {tail.errored} call(s) errored and were not judged (see call_answered)"
    )
    assert "were not judged" in console


def test_a_dying_harness_gets_a_crash_finding_not_flaky_violations(tmp_path: Path) -> None:
    code, report, console = run(f"cmd:{sys.executable} {DYING}", tmp_path, "--timeout", "20")
    assert code == 1, console
    results = {result.invariant: result for result in only(report).results}
    crash = results["call_answered"]
    assert crash.verdict == "violation"
    assert crash.counterexample is not None
    assert "exit" in crash.counterexample.because.lower(), crash.counterexample.because
    assert crash.counterexample.reproduced == "deterministic"
    # Its other violations (it drops the middle of the history, constraints and all) are its
    # own, and re-running them shows it every time: a dying harness does not make them flaky.
    labels = {
        result.invariant: result.counterexample.reproduced
        for result in results.values()
        if result.counterexample is not None
    }
    assert set(labels.values()) == {"deterministic"}, labels
    assert results["tool_pairing"].verdict == "pass"


def test_a_compactor_that_never_compacts_is_inconclusive(tmp_path: Path) -> None:
    code, report, console = run(f"py:{TARGETS / 'never_compacts.py'}:compact", tmp_path)
    assert code == 3, console
    target = only(report)
    assert target.calls.get("compacted", 0) == 0
    assert target.calls["unchanged"] > 0
    laws = [r for r in target.results if r.invariant != "call_answered"]
    assert {r.verdict for r in laws} <= {"unknown", "skipped"}
    assert all("inconclusive" in (r.because or "") for r in laws if r.verdict == "unknown")
    assert any(error.startswith("inconclusive: ") for error in target.errors)
    assert "--budget" in console
    # It explored past the budget, up to the cap, looking for a compaction, and every rendering
    # says why (a user who asked for 60 histories sees 300 in the table).
    assert laws[0].examples == 5 * 60
    why = "ran 300 histories, past --max-examples 60"
    assert why in " ".join(console.split())
    for name, rendered in _renderings(tmp_path).items():
        assert why in rendered, name


def test_a_run_within_its_budget_says_nothing_of_exploring_past_it(tmp_path: Path) -> None:
    code, report, console = run(
        f"py:{TARGETS / 'tail_keeper.py'}:compact",
        tmp_path,
        "--min-exercised",
        "0",
        "--invariants",
        STRUCTURAL,
    )
    assert code == 0, console
    assert all(result.examples == 60 for result in only(report).results), console
    assert "past --max-examples" not in console
    for name, rendered in _renderings(tmp_path).items():
        assert "past --max-examples" not in rendered, name


def test_a_compactor_that_never_compacts_breaks_a_declared_budget(tmp_path: Path) -> None:
    code, report, console = run(
        f"py:{TARGETS / 'never_compacts.py'}:compact",
        tmp_path,
        "--budget",
        "2000",
        "--counter",
        "characters",
    )
    assert code == 1, console
    found = verdicts(report)
    assert found["budget_respected"] == "violation"
    assert found["progress"] == "violation"


def test_a_size_triggered_compactor_that_cuts_pairs_is_caught(tmp_path: Path) -> None:
    code, report, console = run(f"py:{TARGETS / 'large_only_cuts_pairs.py'}:compact", tmp_path)
    assert code == 1, console
    pairing = next(r for r in only(report).results if r.invariant == "tool_pairing")
    assert pairing.verdict == "violation"
    assert pairing.counterexample is not None
    # The trigger is 40 messages: the shrunk witness is just over it.
    assert 40 < pairing.counterexample.history_size <= 60
    assert pairing.counterexample.input_problems == []
    assert only(report).calls["compacted"] > 0


def test_a_compactor_correct_on_valid_input_passes(tmp_path: Path) -> None:
    target = f"py:{TARGETS / 'tail_keeper.py'}:compact"
    code, report, console = run(target, tmp_path, "--invariants", STRUCTURAL)
    assert code == 0, console
    assert set(verdicts(report).values()) == {"pass"}
    assert report.malformed == []
    calls = only(report).calls
    assert calls["compacted"] > 0.5 * sum(calls.values())


def test_malformed_input_is_asked_for_by_name_and_named_in_the_witness(tmp_path: Path) -> None:
    target = f"py:{TARGETS / 'tail_keeper.py'}:compact"
    code, report, console = run(
        target, tmp_path, "--invariants", "tool_pairing", "--malformed", "late-results"
    )
    assert code == 1, console
    assert report.malformed == ["late-results"]
    assert "malformed late-results" in console
    pairing = next(r for r in only(report).results if r.invariant == "tool_pairing")
    assert pairing.counterexample is not None
    assert pairing.counterexample.input_problems
    assert "provider would reject" in (tmp_path / "out.md").read_text()


def test_an_unknown_malformed_scenario_is_a_usage_error(tmp_path: Path) -> None:
    done = cli("run", "reference-messages", "--malformed", "orphans-everywhere", cwd=tmp_path)
    assert done.returncode == 2
    assert "late-results" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_named_seed_replays_whatever_the_example_database_holds(tmp_path: Path) -> None:
    target = f"py:{TARGETS / 'large_only_cuts_pairs.py'}:compact"
    witnesses = []
    for _ in range(2):
        # The dev profile keeps a local example database in the same folder between the runs.
        code, report, console = run(
            target,
            tmp_path,
            "--seed",
            "5",
            "--max-examples",
            "40",
            "--invariants",
            "tool_pairing",
            profile="dev",
        )
        assert code == 1, console[-2000:]
        pairing = next(r for r in only(report).results if r.invariant == "tool_pairing")
        assert pairing.counterexample is not None
        witnesses.append(pairing.counterexample.input)
    assert (tmp_path / ".compactcheck" / "hypothesis").exists()
    assert witnesses[0] == witnesses[1]


def test_a_compactor_that_hangs_gets_a_crash_finding_kept_as_found(tmp_path: Path) -> None:
    code, report, console = run(
        f"py:{TARGETS / 'hangs_sometimes.py'}:compact",
        tmp_path,
        "--timeout",
        "0.3",
        "--max-examples",
        "15",
        "--min-exercised",
        "0",
    )
    assert code == 1, console
    crash = next(r for r in only(report).results if r.invariant == "call_answered")
    assert crash.verdict == "violation"
    assert crash.counterexample is not None
    assert "did not answer in time" in crash.counterexample.because
    assert only(report).calls["timed out"] >= 1
