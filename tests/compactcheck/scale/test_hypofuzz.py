"""A law as a plain Hypothesis test: HypoFuzz can fuzz it, and what a campaign finds is kept in
the example database (replayed by pytest) and in the crash corpus (replayed by compactcheck)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HYPOFUZZ_ENV = ROOT / ".venv-hypofuzz"
MUTANT = "mutant:messages-cut-parallel-results"
FAILING_LAW = "tool_pairing"

# Each call logs whether the history broke the law, so that a replay from the database shows:
# its very first call fails (the first generated history of this seed does not).
MODULE = f'''
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

LOG = Path(__file__).parent / "calls.log"


@pytest.mark.compactcheck("{MUTANT}", view="messages")
@given(data=st.data())
def test_law(compactcheck_law, data):
    case = data.draw(compactcheck_law.cases(), label="case")
    try:
        compactcheck_law.check_case(case)
    except AssertionError:
        with LOG.open("a") as log:
            log.write("fail\\n")
        raise
    with LOG.open("a") as log:
        log.write("pass\\n")
'''

# The `hypothesis` console script, whose long sleeps (the hub's minute between checks) end
# early once the crash corpus holds an entry: the worker has then found the failure. Ended on
# a timer alone, the hub could see a worker that has not yet collected the test as done.
HYPOTHESIS_FUZZ_UNTIL_FOUND = """
import sys, time
from pathlib import Path

sleep = time.sleep


def until_found(seconds):
    if seconds < 1:
        return sleep(seconds)
    deadline = time.monotonic() + seconds
    sleep(0.5)
    while time.monotonic() < deadline and not any(Path(".compactcheck/corpus").glob("*.json")):
        sleep(0.5)


time.sleep = until_found
from hypothesis.extra.cli import main
sys.argv[0] = "hypothesis"
sys.exit(main())
"""

OPTIONS = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "--compactcheck-invariants",
    FAILING_LAW,
    "--compactcheck-database",
    "db",
    "-k",
    FAILING_LAW,
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "test_laws.py").write_text(MODULE)
    return tmp_path


def _pytest(python: Path | str, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "calls.log").unlink(missing_ok=True)
    return subprocess.run(
        [str(python), "-m", "pytest", "-q", "test_laws.py", *OPTIONS],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _replay(python: Path | str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "compactcheck", "replay", ".compactcheck/corpus"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _first_call(folder: Path) -> str:
    return (folder / "calls.log").read_text().split()[0]


def test_a_law_as_a_hypothesis_test_keeps_what_it_finds(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    found = _pytest(sys.executable, folder)
    assert found.returncode == 1, found.stdout[-3000:] + found.stderr[-2000:]
    assert f"{FAILING_LAW} broken by {MUTANT}" in found.stdout
    # The first history of the seed passes: the failure was searched for.
    assert _first_call(folder) == "pass"
    assert any((folder / "db").iterdir())
    [entry] = (folder / ".compactcheck" / "corpus").glob("*.json")
    assert FAILING_LAW in entry.name
    replayed = _replay(sys.executable, folder)
    assert replayed.returncode == 1, replayed.stdout[-2000:]
    assert "STILL FAILING" in replayed.stdout
    # Run again: the example database hands the failure back first.
    again = _pytest(sys.executable, folder)
    assert again.returncode == 1
    assert _first_call(folder) == "fail"


@pytest.mark.skipif(
    not (HYPOFUZZ_ENV / "bin" / "hypothesis").exists(),
    reason="HypoFuzz is not installed: `./dev hypofuzz-env` makes its environment (.ci/run does)",
)
def test_a_hypofuzz_campaign_finds_stores_and_replays_the_failure(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    python = HYPOFUZZ_ENV / "bin" / "python"
    # HypoFuzz stops by itself once every selected test has failed, which its hub checks once
    # a minute (its worker spinning idle meanwhile): the hub checks as soon as the failure is
    # in the corpus (HYPOTHESIS_FUZZ_UNTIL_FOUND). The timeout only guards against a campaign
    # that finds nothing.
    campaign = subprocess.run(
        [
            "timeout",
            "-s",
            "TERM",
            "-k",
            "15",
            "240",
            str(python),
            "-c",
            HYPOTHESIS_FUZZ_UNTIL_FOUND,
            "fuzz",
            "--no-dashboard",
            "-n",
            "1",
            "--",
            "test_laws.py",
            *OPTIONS,
        ],
        cwd=folder,
        # As on a CI machine: Hypothesis then loads its derandomized "ci" profile, which
        # HypoFuzz refuses, so the campaign's own profile must stay random.
        env={**os.environ, "CI": "true"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert campaign.returncode == 1, campaign.stdout[-3000:] + campaign.stderr[-3000:]
    assert "Found a failing input for every test" in campaign.stdout + campaign.stderr
    assert any((folder / "db").iterdir())
    replayed = _replay(python, folder)
    assert replayed.returncode == 1, replayed.stdout[-2000:]
    assert "STILL FAILING" in replayed.stdout
    # Plain pytest looks the campaign's failure up under the same key and runs it first.
    again = _pytest(python, folder)
    assert again.returncode == 1, again.stdout[-3000:]
    assert _first_call(folder) == "fail"
