"""The crash corpus keeps every finding: seeds add their witnesses to one corpus, a run that
cannot write keeps its results and says so, and a compactor cannot take the corpus with it."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus_seeds import witnesses
from compactcheck.base.errors import ExitCode
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.report.model import UNWRITTEN_PREFIX
from compactcheck.targets.registry import resolve
from tests.compactcheck.commandline import cli, load

MUTANT = "mutant:messages-keep-last-n"
LAWS = ("tool_pairing", "user_turn_present", "goal_preserved", "facts_preserved")


def _run(corpus: Path, seed: int, budget: int = 15) -> Any:
    config = RunConfig(
        seed=seed,
        max_examples=budget,
        profile="ci",
        corpus_dir=corpus,
        seed_given=True,
        include=LAWS,
    )
    target = resolve(MUTANT, view="messages")
    try:
        return run_target(target, "messages", config)
    finally:
        target.close()


def test_seeds_run_into_one_corpus_keep_every_witness_separate_corpora_hold(
    tmp_path: Path,
) -> None:
    separate: set[str] = set()
    for seed in (1, 2):
        _run(tmp_path / f"seed-{seed}", seed)
        separate |= witnesses(tmp_path / f"seed-{seed}")
        _run(tmp_path / "one", seed)
    laws = [json.loads(key)[2] for key in separate]
    # Not a comparison that cannot fail: some law has two witnesses, which one file per law
    # (the old names) could not both keep.
    assert len(laws) > len(set(laws)), separate
    assert witnesses(tmp_path / "one") == separate
    # The same seed again writes nothing new: an identical witness is written once.
    before = sorted(path.name for path in (tmp_path / "one").iterdir())
    _run(tmp_path / "one", 1)
    assert sorted(path.name for path in (tmp_path / "one").iterdir()) == before


BROKEN = """
import os, shutil, sys

def compact(messages):
    {action}
    return [messages[-1]]
"""


def _compactor(folder: Path, action: str = "pass") -> str:
    (folder / "mine.py").write_text(BROKEN.format(action=action))
    return "py:mine.py:compact"


def _fuzz(folder: Path, target: str, corpus: str, *more: str) -> Any:
    return cli(
        "run",
        target,
        "--seed",
        "1",
        "--max-examples",
        "10",
        "--invariants",
        "user_turn_present,goal_preserved",
        "--corpus",
        corpus,
        "--json",
        "report.json",
        *more,
        cwd=folder,
    )


def _check_kept_results(folder: Path, done: Any) -> None:
    assert done.returncode == ExitCode.FAILED_UNWRITTEN, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    report = load(folder / "report.json")
    [target] = report.targets
    assert [r.verdict for r in target.results].count("violation") == 2
    unwritten = [e for e in target.errors if e.startswith(UNWRITTEN_PREFIX)]
    # One line per entry that could not be written, in the report and on the console.
    assert len(unwritten) == 2, target.errors
    assert "not written: the corpus entry of" in done.stdout
    assert "violation" in done.stdout


def test_a_corpus_whose_parent_is_a_file_keeps_the_results_and_says_both(tmp_path: Path) -> None:
    target = _compactor(tmp_path)
    (tmp_path / "blocked").write_text("a file, not a folder")
    done = _fuzz(tmp_path, target, "blocked/corpus", "--in-process")
    _check_kept_results(tmp_path, done)
    assert "Not a directory" in done.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_corpus_keeps_the_results_and_says_both(tmp_path: Path) -> None:
    target = _compactor(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus").chmod(0o555)
    try:
        done = _fuzz(tmp_path, target, "corpus")
    finally:
        (tmp_path / "corpus").chmod(0o755)
    _check_kept_results(tmp_path, done)


def test_a_report_that_cannot_be_written_leaves_the_others_and_says_both(tmp_path: Path) -> None:
    target = _compactor(tmp_path)
    (tmp_path / "blocked").write_text("a file, not a folder")
    done = _fuzz(tmp_path, target, "corpus", "--html", "blocked/report.html", "--in-process")
    assert done.returncode == ExitCode.FAILED_UNWRITTEN, done.stdout + done.stderr
    assert "not written: " in done.stdout
    assert "blocked/report.html" in done.stdout
    assert "violation" in load(tmp_path / "report.json").verdicts()
    assert len(list((tmp_path / "corpus").glob("*.json"))) == 2


def test_a_disk_that_fills_during_the_search_raises_nothing_into_hypothesis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = os.link
    calls = 0

    def full(source: Any, destination: Any) -> None:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        link(source, destination)

    monkeypatch.setattr(os, "link", full)
    report = _run(tmp_path / "corpus", 1)
    broken = [r for r in report.results if r.verdict == "violation"]
    assert broken
    assert all(r.counterexample is not None for r in broken)
    unwritten = [e for e in report.errors if e.startswith(UNWRITTEN_PREFIX)]
    assert unwritten
    assert all("No space left on device" in line for line in unwritten)
    assert calls > 1


def test_a_compactor_that_changes_directory_or_deletes_the_corpus_loses_no_entry(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moving = _compactor(tmp_path, f"os.chdir({str(elsewhere)!r})")
    done = _fuzz(tmp_path, moving, "corpus", "--in-process")
    assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
    assert len(list((tmp_path / "corpus").glob("*.json"))) == 2
    assert (tmp_path / "report.json").is_file()
    assert not list(elsewhere.iterdir())
    deleting = _compactor(tmp_path, f"shutil.rmtree({str(tmp_path / 'corpus')!r}, True)")
    for more in (("--in-process",), ()):
        done = _fuzz(tmp_path, deleting, "corpus", *more)
        assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
        assert "the corpus was changed under the run" in done.stdout
        report = load(tmp_path / "report.json")
        files = [
            r.counterexample.corpus_file for r in report.targets[0].results if r.counterexample
        ]
        assert len(files) == 2
        assert all(Path(str(file)).is_file() for file in files)


def test_a_compactor_that_deletes_the_corpus_loses_no_entry_of_earlier_runs(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    _run(corpus, 1)
    earlier = {path.name: path.read_text() for path in corpus.glob("*.json")}
    # Not a check that cannot fail: the earlier run left entries of a target this run never
    # writes, which only a copy read at the run's start can bring back.
    assert len(earlier) >= 3, earlier
    deleting = _compactor(tmp_path, f"shutil.rmtree({str(corpus)!r}, True)")
    for more in (("--in-process",), ()):
        done = _fuzz(tmp_path, deleting, "corpus", *more)
        assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
        said = [line for line in done.stdout.splitlines() if "changed under the run" in line]
        assert len(said) == 1, done.stdout
        kept = {path.name: path.read_text() for path in corpus.glob("*.json")}
        assert earlier.items() <= kept.items()
        # And the run's own two entries beside them.
        assert len(kept) == len(earlier) + 2
