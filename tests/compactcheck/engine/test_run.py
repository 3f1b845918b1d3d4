"""`compactcheck run` and the runner, driven as a user would: subprocesses, exit codes, files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compactcheck.corpus.entry import load_entry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.engine.events import Shrunk
from compactcheck.engine.target_run import TargetRun
from compactcheck.targets.registry import all_mutants, resolve
from tests.compactcheck.commandline import cli, load


def test_references_pass_with_every_applicable_law_exercised(tmp_path: Path) -> None:
    done = cli(
        "run",
        "reference",
        "reference-session",
        "reference-messages",
        "--profile",
        "ci",
        "--max-examples",
        "60",
        "--json",
        "out.json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "seed 0" in done.stdout
    report = load(tmp_path / "out.json")
    assert report.complete
    assert {(t.target, t.view) for t in report.targets} == {
        ("reference", "snapshot"),
        ("reference-session", "session"),
        ("reference-messages", "messages"),
    }
    for target in report.targets:
        for result in target.results:
            if result.invariant in ("budget_respected", "progress") and target.view == "messages":
                assert result.verdict == "skipped"
                continue
            assert result.verdict == "pass", result
            assert result.exercised > 0, result


def test_a_mutant_exits_one_naming_its_invariant_and_leaves_a_corpus(tmp_path: Path) -> None:
    done = cli(
        "run",
        "mutant:snapshot-drop-oldest-file",
        "--profile",
        "ci",
        "--json",
        "r.json",
        "--junit",
        "r.xml",
        "--markdown",
        "r.md",
        "--html",
        "r.html",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr
    report = load(tmp_path / "r.json")
    [broken] = [r for t in report.targets for r in t.results if r.verdict == "violation"]
    assert broken.invariant == "changed_files_preserved"
    assert broken.counterexample is not None
    assert broken.counterexample.reproduced == "deterministic"
    corpus = Path(broken.counterexample.corpus_file or "")
    entry = load_entry(tmp_path / corpus if not corpus.is_absolute() else corpus)
    assert entry["invariant"] == "changed_files_preserved"
    assert entry["shrunk"] is True
    for name in ("r.xml", "r.md", "r.html"):
        assert (tmp_path / name).stat().st_size > 0
    replayed = cli("replay", cwd=tmp_path)
    assert replayed.returncode == 1
    assert "STILL FAILING" in replayed.stdout


def test_replay_says_fixed_when_the_target_no_longer_breaks_the_law(tmp_path: Path) -> None:
    first = cli(
        "run",
        "mutant:messages-cut-parallel-results",
        "--profile",
        "ci",
        "--invariants",
        "tool_pairing",
        "--corpus",
        "corpus",
        cwd=tmp_path,
    )
    assert first.returncode == 1, first.stdout[-2000:]
    [path] = (tmp_path / "corpus").glob("*.json")
    data = json.loads(path.read_text())
    # The fixed compactor: it still compacts that history (a target that hands it back
    # unchanged is "not judged", never fixed), and keeps every call with its results. It drops
    # the first message that is neither a call nor a result, whatever else the shrunk witness
    # holds (how small Hypothesis shrinks it differs between releases).
    (tmp_path / "fixed.py").write_text(
        "def compact(messages):\n"
        "    for i, m in enumerate(messages[:-1]):\n"
        "        if m['role'] != 'tool' and not m.get('tool_calls'):\n"
        "            return messages[:i] + messages[i + 1:]\n"
        "    return messages\n"
    )
    data["target"] = "py:fixed.py:compact"
    path.write_text(json.dumps(data))
    replayed = cli("replay", "corpus", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout
    assert "FIXED" in replayed.stdout


def test_a_user_callable_in_a_file_is_a_target(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(
        "def compact(messages):\n"
        "    # keeps everything: correct, if not very useful\n"
        "    return list(messages)\n"
    )
    done = cli(
        "run",
        "py:mine.py:compact",
        "--profile",
        "ci",
        "--max-examples",
        "30",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    # It never compacts: nothing to judge, so inconclusive, never a pass.
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr
    assert "inconclusive" in done.stdout
    report = load(tmp_path / "r.json")
    assert report.targets[0].implementation is not None
    assert report.targets[0].implementation.name == "compact"


def test_a_raising_callable_is_inconclusive_not_a_pass(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def compact(messages):\n    raise RuntimeError('boom')\n")
    done = cli(
        "run",
        "py:bad.py:compact",
        "--profile",
        "ci",
        "--max-examples",
        "10",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stdout[-2000:]
    report = load(tmp_path / "r.json")
    assert {r.verdict for r in report.targets[0].results} <= {"errored", "skipped"}
    assert "boom" in (report.targets[0].results[0].because or "")


@pytest.mark.parametrize(
    "arguments",
    [
        ("run", "no-such-target"),
        ("run", "mutant:no-such-mutant"),
        ("run", "py:missing_module_xyz:compact"),
        ("run", "reference", "--invariants", "not_an_invariant"),
        ("run", "reference", "--max-examples", "0"),
        ("run", "reference-messages", "--view", "snapshot"),
        ("replay", "no/such/corpus"),
    ],
)
def test_usage_errors_are_one_line_and_exit_two(arguments: tuple[str, ...], tmp_path: Path) -> None:
    done = cli(*arguments, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_same_seed_same_report(tmp_path: Path) -> None:
    def once() -> dict[str, object]:
        target = resolve("reference-messages")
        config = RunConfig(seed=7, max_examples=40, profile="ci", corpus_dir=tmp_path)
        data = run_target(target, "messages", config).model_dump(mode="json")
        data.pop("seconds")
        return data

    assert once() == once()


MUTANTS = sorted(all_mutants().values(), key=lambda m: m.name)


# The weakening mutant plants a hedge: a softening no mechanical evidence can prove, which the
# laws leave for review rather than fail; its run reports the verdict review, with the items.
REVIEWED = {"messages-weaken-constraints"}


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_every_mutant_target_is_caught_by_its_law(mutant: object, tmp_path: Path) -> None:
    """Each mutant's law is broken by it, or left for review where its loss is a hedge."""
    from compactcheck.reference_engine.mutants import Mutant

    assert isinstance(mutant, Mutant)
    target = resolve(f"mutant:{mutant.name}")
    # Through the runner, histories are cut into chained rounds, so a round is smaller than a
    # whole generated history and rare shapes (three changed files in one compacted round, a
    # second compaction citing the first) need more draws than the per-law tests' 100.
    # Detection only: shrinking is covered by the per-law tests and the CLI test above, and the
    # run stops at the detection (the one law selected is broken: nothing is left to judge).
    config = RunConfig(
        seed=0,
        max_examples=300,
        profile="ci",
        corpus_dir=tmp_path,
        include=[mutant.targets],
        shrink=False,
        stop_when_all_broken=True,
        # A bug that only input a provider rejects can show is hunted with that input.
        malformed=mutant.malformed,
    )
    report = run_target(target, mutant.view, config)
    result = next(r for r in report.results if r.invariant == mutant.targets)
    if mutant.name in REVIEWED:
        assert result.verdict == "review", result
        assert result.reviewed
        assert result.review
        assert all(item.leans == "weakened" for item in result.review), result.review
        return
    assert result.verdict == "violation", result


def test_a_backend_that_answers_differently_is_labelled_flaky(tmp_path: Path) -> None:
    (tmp_path / "moody.py").write_text(
        "calls = 0\n"
        "def compact(messages):\n"
        "    global calls\n"
        "    calls += 1\n"
        "    # Every third call forgets the newest message; the others keep everything.\n"
        "    forget = calls % 3 == 0 and len(messages) > 2\n"
        "    return list(messages[:-1]) if forget else list(messages)\n"
    )
    done = cli(
        "run",
        "py:moody.py:compact",
        "--profile",
        "ci",
        "--max-examples",
        "60",
        "--invariants",
        "recent_tail_preserved",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr
    results = {r.invariant: r for r in load(tmp_path / "r.json").targets[0].results}
    result = results["recent_tail_preserved"]
    assert result.counterexample is not None
    assert result.counterexample.reproduced == "flaky"
    assert results["call_answered"].verdict == "pass"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_node_example_harness_is_a_conformant_cmd_target(tmp_path: Path) -> None:
    harness = Path(__file__).resolve().parents[3] / "examples" / "node-harness" / "harness.js"
    done = cli(
        "run",
        f"cmd:{shutil.which('node')} {harness}",
        "--profile",
        "ci",
        "--max-examples",
        "40",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    [target] = load(tmp_path / "r.json").targets
    assert target.implementation is not None
    assert target.implementation.language in ("javascript", "node", "nodejs")
    assert {r.verdict for r in target.results} == {"pass", "skipped"}


def test_a_compactor_that_edits_its_input_in_place_is_reported(tmp_path: Path) -> None:
    (tmp_path / "editor.py").write_text(
        "def compact(messages):\n"
        "    messages.pop()  # edits the caller's list\n"
        "    return list(messages)\n"
    )
    done = cli(
        "run",
        "py:editor.py:compact",
        "--profile",
        "ci",
        "--max-examples",
        "10",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stdout[-2000:]
    result = load(tmp_path / "r.json").targets[0].results[0]
    assert result.verdict == "errored"
    assert "mutated the message list it was handed" in (result.because or "")


def test_outputs_go_into_new_folders_and_unwritable_ones_are_one_line(tmp_path: Path) -> None:
    done = cli(
        "run",
        "reference-messages",
        "--profile",
        "ci",
        "--max-examples",
        "5",
        "--json",
        "new/deeper/r.json",
        "--html",
        "new/r.html",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    load(tmp_path / "new" / "deeper" / "r.json")
    (tmp_path / "a-file").write_text("not a folder")
    done = cli(
        "run",
        "reference-messages",
        "--profile",
        "ci",
        "--max-examples",
        "5",
        "--json",
        "a-file/r.json",
        cwd=tmp_path,
    )
    # A report that cannot be written is one line, and the run keeps its verdicts: exit 4 is
    # "nothing broken, but an output could not be written" (the exit-code reference).
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    unwritten = [line for line in done.stdout.splitlines() if line.startswith("not written:")]
    assert len(unwritten) == 1, done.stdout[-2000:]
    assert "a-file/r.json" in unwritten[0]
    assert "reference-messages [messages] calls:" in done.stdout


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_shrinking_hunt_meets_again_every_failure_exploring_found(
    tmp_path: Path, seed: int
) -> None:
    # The hunt restarts from the seed of the pass that found the failure; Hypothesis reads the
    # steering scores even without its target phase, so a hunt that scored nothing drew other
    # histories and could end with no failure at all (the witness then stayed unshrunk).
    target = resolve("mutant:snapshot-drop-oldest-file")
    config = RunConfig(
        seed=seed,
        max_examples=100,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        include=("changed_files_preserved",),
    )
    try:
        run = TargetRun(target, "snapshot", config)
        events = list(run.steps())
    finally:
        target.close()
    assert "changed_files_preserved" in run.search.detections
    [shrunk] = [event for event in events if isinstance(event, Shrunk)]
    assert shrunk.complete
    assert shrunk.history_size <= run.search.detections["changed_files_preserved"].size
