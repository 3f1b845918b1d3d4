"""The run's ledger of model calls and tokens: caps that hold in one process and across many."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from compactcheck.models import Ledger, ModelSlot, Spend


def test_calls_are_reserved_up_to_the_cap_and_then_refused_with_a_reason() -> None:
    ledger = Ledger(max_calls=2)
    assert [ledger.reserve() for _ in range(3)] == ["", "", "model call cap of 2 reached"]
    assert ledger.spent() == Spend(calls=2)


def test_no_call_starts_once_the_tokens_reach_their_cap() -> None:
    ledger = Ledger(max_tokens=100)
    assert ledger.reserve() == ""
    ledger.add_tokens(60)
    assert ledger.reserve() == ""
    # The answer in flight carries the count past the cap: known only once it is back.
    ledger.add_tokens(60)
    assert ledger.reserve() == "model token cap of 100 reached (120 tokens used)"
    assert ledger.spent() == Spend(calls=2, tokens=120)


def test_a_ledger_without_caps_counts_and_never_refuses() -> None:
    ledger = Ledger()
    assert all(ledger.reserve() == "" for _ in range(50))
    assert ledger.spent().calls == 50


def _reserve_many(path: Path, tries: int) -> int:
    ledger = Ledger(max_calls=37, max_tokens=None, path=path)
    granted = 0
    for _ in range(tries):
        if not ledger.reserve():
            granted += 1
            ledger.add_tokens(3)
    return granted


def test_a_ledger_file_holds_one_cap_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    with ProcessPoolExecutor(4) as pool:
        granted = list(pool.map(_reserve_many, [path] * 4, [30] * 4))
    # 120 tries in four processes at once: exactly the cap's 37 were let through.
    assert sum(granted) == 37
    assert Ledger(path=path).spent() == Spend(calls=37, tokens=111)


def test_a_slot_shares_one_ledger_only_when_it_has_a_cap() -> None:
    assert ModelSlot("echo").shared().ledger is None
    capped = ModelSlot("echo", max_tokens=10).shared()
    assert capped.ledger is not None
    assert capped.shared() == capped
    assert ModelSlot("echo", max_calls=1).shared().ledger != capped.ledger


def test_a_replay_counts_every_entry_in_one_ledger(tmp_path: Path) -> None:
    from compactcheck.corpus.replay import ModelTerms

    assert ModelTerms().ledger is None
    terms = ModelTerms(max_tokens=5)
    first = terms.slot("openai:x", tmp_path / "a" / "one.json")
    second = terms.slot(None, tmp_path / "b" / "two.json")
    assert first is not None
    assert second is None
    other = terms.slot("anthropic:y", tmp_path / "b" / "two.json")
    assert other is not None
    assert first.ledger == other.ledger == terms.ledger is not None
    assert other.max_tokens == 5


def test_the_process_that_names_a_ledger_removes_it_when_it_exits(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from compactcheck.models.ledger import Ledger, run_ledger\n"
        "path = run_ledger()\n"
        "Ledger(max_calls=3, path=path).reserve()\n"
        "print(path, path.exists())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    named, existed = done.stdout.split()
    assert existed == "True"
    assert not Path(named).exists()
