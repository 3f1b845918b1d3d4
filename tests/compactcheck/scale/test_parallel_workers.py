"""Many workers, with real processes: no worker repeats its parent's start-up, a shard is fuzzed
once under pytest-xdist, the verdicts do not depend on the worker count, and the model-call cap
is shared by every worker."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.pytest.scheduling import fuzzed_run

# A parent's main script that notes each process that runs it, then runs three jobs at once.
MAIN_SCRIPT = """
import os
import time
from pathlib import Path

with Path(__file__).with_name("ran.log").open("a") as log:
    log.write(f"{os.getpid()} {__name__}\\n")


def job():
    time.sleep(0.5)
    return os.getpid()


if __name__ == "__main__":
    from compactcheck.scale.pool import submit, worker_pool

    with worker_pool(3) as pool:
        futures = [submit(pool, job) for _ in range(3)]
        print(len({future.result() for future in futures}))
"""


def test_a_worker_does_not_run_its_parents_main_script_again(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MAIN_SCRIPT)
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "3", "three jobs at once start three workers"
    ran = (tmp_path / "ran.log").read_text().split("\n")[:-1]
    # The parent, and the fork server once for all three workers (before: each worker).
    assert [line.split()[1] for line in ran] == ["__main__", "__mp_main__"]


@pytest.mark.parametrize(
    ("nodeid", "group"),
    [
        (
            "t.py::test_x[py:a.py:f-messages-tool_pairing-shard2of8]",
            "t.py::test_x[py:a.py:f-messages-shard2of8]",
        ),
        ("t.py::test_x[reference-session-call_answered]", "t.py::test_x[reference-session]"),
        # A target whose own name holds a view: the last view-and-law is the test's.
        (
            "t.py::test_x[cmd:x-messages-y-messages-non_empty-shard1of2-extra]",
            "t.py::test_x[cmd:x-messages-y-messages-shard1of2-extra]",
        ),
        ("t.py::test_plain", "t.py::test_plain"),
        ("t.py::test_other[1-2]", "t.py::test_other[1-2]"),
    ],
)
def test_law_tests_are_grouped_by_the_run_they_read(nodeid: str, group: str) -> None:
    assert fuzzed_run(nodeid) == group


# A compactor that notes each call it answers, whichever process asks.
LOGGED = """
from pathlib import Path

from compactcheck.reference_engine.messages import reference_messages

LOG = Path(__file__).with_name("calls.log")
_REFERENCE = reference_messages()


def compact(messages):
    with LOG.open("a") as log:
        log.write("call\\n")
    return _REFERENCE(messages)
"""

TESTS = """
import pytest


@pytest.mark.compactcheck("py:logged.py:compact", view="messages")
def test_logged(compactcheck_law):
    compactcheck_law.check()
"""


def test_under_xdist_each_shard_is_fuzzed_once(tmp_path: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")
    (tmp_path / "logged.py").write_text(LOGGED)
    (tmp_path / "test_logged.py").write_text(TESTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            "--compactcheck-max-examples",
            "8",
            "--compactcheck-shards",
            "2",
            "--compactcheck-invariants",
            "user_turn_present,non_empty",
            "--compactcheck-json",
            "report.json",
            "test_logged.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [target] = json.loads((tmp_path / "report.json").read_text())["targets"]
    calls = (tmp_path / "calls.log").read_text().count("call")
    # The report counts each shard once; the log, every time a worker fuzzed one (before:
    # xdist dealt a shard's law tests to both workers, and both fuzzed it).
    assert calls == sum(target["calls"].values())


def _verdicts(folder: Path, workers: int) -> dict[str, dict[str, str]]:
    """Per target, each law's verdict from one `compactcheck run` with ``workers``."""
    folder.mkdir()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "run",
            "reference-messages",
            "mutant:messages-drop-user-turns",
            "--max-examples",
            "40",
            "--seed",
            "3",
            "--profile",
            "ci",
            "--workers",
            str(workers),
            # Laws the mutant breaks in most histories: any split of the budget meets them.
            "--invariants",
            "user_turn_present,goal_preserved,non_empty,tool_pairing",
            "--json",
            "report.json",
        ],
        cwd=folder,
        capture_output=True,
        check=False,
    )
    report = json.loads((folder / "report.json").read_text())
    return {
        target["target"]: {result["invariant"]: result["verdict"] for result in target["results"]}
        for target in report["targets"]
    }


def test_the_verdicts_are_the_same_with_one_worker_and_with_four(tmp_path: Path) -> None:
    one = _verdicts(tmp_path / "one", 1)
    four = _verdicts(tmp_path / "four", 4)
    # Per law, not per example: with four workers each target is cut into two shards, each
    # with its own seed, so the histories drawn (and the witnesses) differ, and a law that
    # few histories break may be met by one split of the budget and not by the other.
    assert four == one
    assert one["mutant:messages-drop-user-turns"]["user_turn_present"] == "violation"
    assert set(one["reference-messages"].values()) <= {"pass", "skipped"}


# A model that waits, as a hosted one does, and counts each call it answers in calls.log.
SLOW_MODEL = """
import time
from pathlib import Path

LOG = Path(__file__).with_name("calls.log")


class Slow:
    name = "py:slow"

    def answer(self, request):
        time.sleep(0.05)
        with LOG.open("a") as log:
            log.write("call\\n")
        return request.text()


model = Slow()
"""


@pytest.mark.parametrize(
    "parallel",
    [
        ["--workers", "8"],
        # Eight lanes as threads of this process, and as threads of two worker processes.
        ["--in-flight", "8"],
        ["--workers", "2", "--in-flight", "8"],
    ],
    ids=["eight processes", "eight threads", "four threads in each of two processes"],
)
def test_eight_shards_at_once_share_one_model_call_cap(tmp_path: Path, parallel: list[str]) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    assert importlib.util.find_spec("langchain") is not None
    (tmp_path / "slow.py").write_text(SLOW_MODEL)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "run",
            "langchain:summarization-middleware",
            "--model",
            "py:slow.py:model",
            "--max-model-calls",
            "7",
            *parallel,
            "--max-examples",
            "24",
            "--seed",
            "2",
            "--no-shrink",
            "--profile",
            "ci",
            "--json",
            "report.json",
        ],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    # A run that wrote no report says why: its exit code and the end of what it printed.
    assert (tmp_path / "report.json").exists(), (
        done.returncode,
        done.stdout[-2000:],
        done.stderr[-4000:],
    )
    [target] = json.loads((tmp_path / "report.json").read_text())["targets"]
    calls: dict[str, Any] = target["model_calls"]
    # Eight shards each asked for more than seven calls; seven were sent in all.
    assert (tmp_path / "calls.log").read_text().count("call") == 7
    assert (calls["made"], calls["cap"]) == (7, 7)
    assert calls["refused"] > 0
