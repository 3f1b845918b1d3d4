"""The plugin's worker pool (--compactcheck-workers N): each target fuzzed as `run --workers N`
fuzzes it, in worker processes of the one pytest process.

Each test runs pytest in a subprocess inside a temporary project, as a user runs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactcheck.corpus.entry import read_entry
from tests.compactcheck.commandline import cli, load, pytest_in
from tests.compactcheck.pytest.test_plugin import MODEL_TESTS
from tests.compactcheck.pytest.test_plugin_parity import output

# Two compactors that wait 50 ms a call, as a summariser waits on its model: one compacts as
# the reference does, the other then drops the first tool result it kept. Each notes the
# process it was called in, so that a test can tell the pool's workers from one process.
SLOW = """
import os
import time
from pathlib import Path

from compactcheck.reference_engine.messages import reference_messages

_REFERENCE = reference_messages()
LOG = Path(__file__).with_name("pids.log")


def _waited(messages):
    with LOG.open("a") as log:
        log.write(f"{os.getpid()}\\n")
    time.sleep(0.05)
    return _REFERENCE(messages)


def compact(messages):
    return _waited(messages)


def drop_result(messages):
    kept = _waited(messages)
    results = [i for i, message in enumerate(kept) if message["role"] == "tool"]
    return kept if not results else kept[: results[0]] + kept[results[0] + 1 :]
"""

TESTS = """
import pytest


@pytest.mark.compactcheck("py:compactors/slow.py:compact", view="messages")
def test_good(compactcheck_law):
    compactcheck_law.check()


@pytest.mark.compactcheck("py:compactors/slow.py:drop_result", view="messages")
def test_broken(compactcheck_law):
    compactcheck_law.check()
"""

EXAMPLES = "12"
LAWS = "tool_pairing,goal_preserved"


def slow_project(folder: Path, ini: str = "") -> Path:
    """A project (its pytest.ini the rootdir) with the two slow compactors and their tests."""
    (folder / "pytest.ini").write_text("[pytest]\n" + ini)
    (folder / "compactors").mkdir()
    (folder / "compactors" / "slow.py").write_text(SLOW)
    (folder / "tests").mkdir()
    (folder / "tests" / "test_slow.py").write_text(TESTS)
    return folder


def _outcomes(stdout: str) -> dict[str, str]:
    """Each law test's outcome (``-rA``), by target and law: ``{"drop_result tool_pairing":
    "FAILED", ...}``."""
    found = {}
    for line in stdout.splitlines():
        outcome, _, test = line.partition(" ")
        if outcome in ("PASSED", "FAILED") and "[py:compactors/slow.py:" in test:
            # Up to the id's closing bracket: pytest adds " - <message>" to a failure's line
            # where it has room for it (in full when CI is set).
            parameters = test.split("[py:compactors/slow.py:")[1].partition("]")[0]
            name, _, law = parameters.partition("-messages-")
            found[f"{name} {law}"] = outcome
    return found


def _verdicts(target: Any) -> dict[str, tuple[str, int, Any]]:
    """Each law's verdict, example count and witness: what must agree with the command line."""
    return {
        result.invariant: (
            result.verdict,
            result.examples,
            result.counterexample.witness if result.counterexample else None,
        )
        for result in target.results
    }


def _pids(root: Path) -> set[str]:
    log = root / "compactors" / "pids.log"
    found = set(log.read_text().split())
    log.unlink()
    return found


def test_a_pool_of_workers_gives_the_verdicts_and_witnesses_of_run_workers(
    tmp_path: Path,
) -> None:
    root = slow_project(tmp_path)
    options = ["--compactcheck-max-examples", EXAMPLES, "--compactcheck-invariants", LAWS]
    report = root / "report.json"
    done = pytest_in(
        root, *options, "--compactcheck-workers", "2", "--compactcheck-json", str(report), "-rA"
    )
    assert done.returncode == 1, output(done)
    # The test ids are those of a run without a pool: the pool cuts the budget out of sight.
    assert _outcomes(done.stdout) == {
        "compact call_answered": "PASSED",
        "compact tool_pairing": "PASSED",
        "compact goal_preserved": "PASSED",
        "drop_result call_answered": "PASSED",
        "drop_result tool_pairing": "FAILED",
        "drop_result goal_preserved": "PASSED",
    }
    assert "seed 0 with --compactcheck-workers 2 · round " in done.stdout
    # Each target's shards ran in the pool's processes, each with a compactor process of its own.
    assert len(_pids(root)) > 2
    good, broken = load(report).targets
    assert good.target == "py:compactors/slow.py:compact"
    assert all(result.examples > 0 for result in good.results), good.results
    [entry] = [
        Path(r.counterexample.corpus_file)
        for r in broken.results
        if r.counterexample is not None and r.counterexample.corpus_file
    ]
    # Merged from the shards' folders into the corpus, where the report says it is.
    assert entry.parent == root / ".compactcheck" / "corpus"
    assert entry.is_file()
    assert not (root / ".compactcheck" / "corpus" / ".shards").exists()
    # `run --workers 2` with the plugin's seed cuts each target's budget the same way: the same
    # verdicts, example counts and witnesses, law by law.
    for target in (good, broken):
        ran = cli(
            "run",
            target.target,
            "--view",
            "messages",
            "--max-examples",
            EXAMPLES,
            "--invariants",
            LAWS,
            "--workers",
            "2",
            "--seed",
            "0",
            "--profile",
            "ci",
            "--corpus",
            "cli-corpus",
            "--json",
            "cli.json",
            cwd=root,
        )
        assert ran.returncode in (0, 1), ran.stdout[-3000:] + ran.stderr[-2000:]
        [alone] = load(root / "cli.json").targets
        assert _verdicts(alone) == _verdicts(target), target.target


def test_workers_given_as_an_ini_value_run_the_pool(tmp_path: Path) -> None:
    root = slow_project(tmp_path, "compactcheck_workers = 2\n")
    done = pytest_in(
        root, "--compactcheck-max-examples", "8", "--compactcheck-invariants", "tool_pairing", "-rA"
    )
    assert done.returncode == 1, output(done)
    assert _outcomes(done.stdout)["drop_result tool_pairing"] == "FAILED"
    assert len(_pids(root)) > 2


def test_the_pools_workers_find_a_py_file_wherever_pytest_runs(tmp_path: Path) -> None:
    root = slow_project(tmp_path)
    # Started from a subfolder: the workers resolve the file by its absolute path, and the ids
    # and the corpus still name it from the rootdir.
    done = pytest_in(
        root / "tests",
        "--compactcheck-workers",
        "2",
        "--compactcheck-max-examples",
        "8",
        "--compactcheck-invariants",
        "tool_pairing",
        "-rA",
        "test_slow.py",
    )
    assert done.returncode == 1, output(done)
    assert _outcomes(done.stdout)["drop_result tool_pairing"] == "FAILED"
    # Entries are named by their witness: each distinct one a worker found is kept.
    entries = sorted((root / ".compactcheck" / "corpus").glob("*.json"))
    assert entries
    assert {read_entry(entry).target for entry in entries} == {"py:compactors/slow.py:drop_result"}
    replayed = cli("replay", ".compactcheck/corpus", cwd=root)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert "STILL FAILING" in replayed.stdout


@pytest.mark.parametrize(
    ("options", "ini"),
    [
        (("--compactcheck-workers", "2", "--compactcheck-shards", "3"), ""),
        (("--compactcheck-shards", "3"), "compactcheck_workers = 2\n"),
    ],
)
def test_workers_with_shards_is_a_one_line_usage_error(
    tmp_path: Path, options: tuple[str, ...], ini: str
) -> None:
    done = pytest_in(slow_project(tmp_path, ini), *options, "tests")
    assert done.returncode == 4, output(done)
    [line] = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
    assert line == (
        "ERROR: --compactcheck-workers 2 and --compactcheck-shards 3 both cut each target's "
        "budget; pick one: --compactcheck-workers for a pool of processes in this pytest "
        "process, --compactcheck-shards for pytest-xdist (pytest -n)"
    )
    assert "Traceback" not in done.stdout + done.stderr
    # Nothing was fuzzed.
    assert not (tmp_path / "compactors" / "pids.log").exists()


def test_under_xdist_each_worker_runs_its_own_pool_and_the_corpus_is_merged(
    tmp_path: Path,
) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")
    root = slow_project(tmp_path)
    report = root / "report.json"
    done = pytest_in(
        root,
        "-n",
        "2",
        "--compactcheck-workers",
        "2",
        "--compactcheck-max-examples",
        "8",
        "--compactcheck-invariants",
        "tool_pairing",
        "--compactcheck-json",
        str(report),
        "-rA",
    )
    assert done.returncode == 1, output(done)
    outcomes = _outcomes(done.stdout)
    assert outcomes["compact tool_pairing"] == "PASSED"
    assert outcomes["drop_result tool_pairing"] == "FAILED"
    # Each xdist worker kept its pool's entries apart; the controller merged them.
    corpus = root / ".compactcheck" / "corpus"
    assert not (corpus / ".shards").exists()
    # Entries are named by their witness: each distinct one a worker found is kept.
    entries = sorted(corpus.glob("*.json"))
    assert entries
    assert all(
        entry.name.startswith("py_compactors_slow.py_drop_result--messages--tool_pairing")
        for entry in entries
    )
    assert any(
        f"replay: compactcheck replay .compactcheck/corpus/{entry.name}\n" in done.stdout
        for entry in entries
    )
    assert [target.target for target in load(report).targets] == [
        "py:compactors/slow.py:compact",
        "py:compactors/slow.py:drop_result",
    ]


WHERE = """
import json
import os

import pytest


@pytest.mark.compactcheck("reference-messages", invariants="tool_pairing")
@pytest.mark.compactcheck("mutant:messages-drop-user-turns", invariants="tool_pairing")
def test_where(compactcheck_law):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    with open(f"where-{worker}-{compactcheck_law.test_id.replace(':', '_')}.json", "w") as file:
        json.dump([worker, str(compactcheck_law.config.corpus_dir)], file)
"""


@pytest.mark.parametrize("xdist", [True, False])
def test_each_xdist_worker_keeps_its_pools_corpus_entries_apart(
    tmp_path: Path, xdist: bool
) -> None:
    """Two xdist workers' pools would otherwise share the corpus's shard folders, and the first
    to finish would merge and remove the other's while it still writes there."""
    if xdist:
        pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_where.py").write_text(WHERE)
    parallel = ("-n", "2") if xdist else ()
    done = pytest_in(tmp_path, *parallel, "--compactcheck-workers", "2", "test_where.py")
    assert done.returncode == 0, output(done)
    seen = [json.loads(path.read_text()) for path in tmp_path.glob("where-*.json")]
    assert len(seen) == 4, seen
    corpus = tmp_path / ".compactcheck" / "corpus"
    for worker, folder in seen:
        expected = corpus / ".shards" / f"pool-{worker}" if xdist else corpus
        assert Path(folder) == expected


def test_the_model_call_cap_holds_across_the_pools_workers(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    from tests.compactcheck.cli.test_model_options import MOODY

    (tmp_path / "test_model.py").write_text(MODEL_TESTS)
    (tmp_path / "moody.py").write_text(MOODY)
    report = tmp_path / "report.json"
    done = pytest_in(
        tmp_path,
        "--compactcheck-workers",
        "2",
        "--compactcheck-max-examples",
        "24",
        "--compactcheck-invariants",
        "tool_pairing",
        "--compactcheck-model",
        f"py:{tmp_path / 'moody.py'}:model",
        "--compactcheck-max-model-calls",
        "5",
        "--compactcheck-json",
        str(report),
        "test_model.py",
    )
    assert done.returncode == 0, output(done)
    # Each of the pool's two workers asks for more than five calls (12 and 13 without a cap):
    # five were sent by the two together, as by a lone process.
    assert len((tmp_path / "calls.log").read_text().split()) == 5
    [target] = load(report).targets
    assert target.model_calls is not None
    assert (target.model_calls.made, target.model_calls.cap) == (5, 5)
    assert target.model_calls.reason == "model call cap of 5 reached"
    assert target.model_calls.refused > 0


def test_shards_in_flight_as_threads_give_the_verdicts_and_witnesses_of_run_in_flight(
    tmp_path: Path,
) -> None:
    root = slow_project(tmp_path)
    options = ["--compactcheck-max-examples", EXAMPLES, "--compactcheck-invariants", LAWS]
    report = root / "report.json"
    done = pytest_in(
        root, *options, "--compactcheck-in-flight", "4", "--compactcheck-json", str(report), "-rA"
    )
    assert done.returncode == 1, output(done)
    assert _outcomes(done.stdout)["drop_result tool_pairing"] == "FAILED"
    assert "seed 0 with --compactcheck-in-flight 4 · round " in done.stdout
    # Threads of the one pytest process: each lane's compactor process, and no pool worker.
    assert len(_pids(root)) > 1
    for target in load(report).targets:
        ran = cli(
            "run",
            target.target,
            "--view",
            "messages",
            "--max-examples",
            EXAMPLES,
            "--invariants",
            LAWS,
            "--in-flight",
            "4",
            "--seed",
            "0",
            "--profile",
            "ci",
            "--corpus",
            "cli-corpus",
            "--json",
            "cli.json",
            cwd=root,
        )
        assert ran.returncode in (0, 1), ran.stdout[-3000:] + ran.stderr[-2000:]
        [alone] = load(root / "cli.json").targets
        assert _verdicts(alone) == _verdicts(target), target.target


def test_the_model_call_cap_holds_across_the_plugins_lanes(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    from tests.compactcheck.cli.test_model_options import MOODY

    (tmp_path / "test_model.py").write_text(MODEL_TESTS)
    (tmp_path / "moody.py").write_text(MOODY)
    report = tmp_path / "report.json"
    done = pytest_in(
        tmp_path,
        "--compactcheck-in-flight",
        "4",
        "--compactcheck-max-examples",
        "24",
        "--compactcheck-invariants",
        "tool_pairing",
        "--compactcheck-model",
        f"py:{tmp_path / 'moody.py'}:model",
        "--compactcheck-max-model-calls",
        "5",
        "--compactcheck-json",
        str(report),
        "test_model.py",
    )
    assert done.returncode == 0, output(done)
    # Four lanes of one process asked for more than five calls between them (some were
    # refused): five were sent in all.
    assert len((tmp_path / "calls.log").read_text().split()) == 5
    [target] = load(report).targets
    assert target.model_calls is not None
    assert (target.model_calls.made, target.model_calls.cap) == (5, 5)
    assert target.model_calls.refused > 0
