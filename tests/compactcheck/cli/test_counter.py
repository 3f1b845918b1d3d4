"""`run --counter py:module:function`: a budget counted by the user's own function."""

from __future__ import annotations

from pathlib import Path

from tests.compactcheck.commandline import cli, load

MODULE = """
def compact(messages):
    return messages[1:]


def words(text):
    return len(text.split())
"""


def test_a_counter_of_ones_own_counts_the_budget(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MODULE)
    options = ["--profile", "ci", "--max-examples", "10", "--invariants", "budget_respected"]
    done = cli(
        "run", "py:mine:compact", *options, "--budget", "3", "--counter", "py:mine:words",
        "--json", "report.json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    results = load(tmp_path / "report.json").targets[0].results
    [law] = [r for r in results if r.invariant == "budget_respected"]
    assert law.verdict == "violation"
    assert law.counterexample is not None
    assert "py:mine:words against a budget of 3" in law.counterexample.because


def test_a_counter_that_names_nothing_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MODULE)
    done = cli("run", "py:mine:compact", "--counter", "py:mine:nope", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "compactcheck: error: argument --counter: budget counter py:mine:nope: mine has no nope "
        "(see --help)"
    ]
