"""A worker process, fresh or forked from a template, leaves as soon as it is told to stop: its
compactor's exit handlers run and what it printed is flushed, but the interpreter does not tear
down the heap (a forked worker would first copy every page it shares with its template). And
a forked worker's collector leaves alone what it shares with the template: that heap is frozen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactcheck.backends import template, template_process
from compactcheck.targets.registry import resolve

HISTORY: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "Rename the config file to settings.toml."},
        {"role": "assistant", "content": "Done."},
    ]
}

# A compactor that notes, in the file beside it, its exit handler and its own teardown.
LEAVING = """
import atexit
import sys
from pathlib import Path

NOTES = Path(__file__).with_suffix(".notes")


def _note(word):
    with NOTES.open("a") as notes:
        notes.write(word + "\\n")


class _Held:
    def __del__(self):
        _note("torn down")


HELD = _Held()
atexit.register(_note, "exit handler")


def compact(messages):
    print("compacting", end="")
    print(" now", file=sys.stderr, end="")
    return messages[-1:]
"""


@pytest.fixture(params=["fresh", "forked"])
def how(request: pytest.FixtureRequest) -> Iterator[str]:
    """A worker started fresh, or forked from a template (as in a run with workers)."""
    if request.param == "forked":
        if template_process.fork_unavailable():
            pytest.skip("this platform cannot fork workers")
        template.want()
    try:
        yield str(request.param)
    finally:
        template.close_all()


def test_a_stopped_worker_runs_its_exit_handlers_and_skips_the_teardown(
    tmp_path: Path, how: str
) -> None:
    module = tmp_path / "leaving.py"
    module.write_text(LEAVING)
    target = resolve(f"py:{module}:compact")
    try:
        answer = target.backend.compact("messages", HISTORY)  # type: ignore[union-attr]
        assert answer.kind == "result"
    finally:
        target.close()
    notes = module.with_suffix(".notes")
    # Closing waits for the worker to end: its exit handler has run by now, once.
    assert notes.read_text().split("\n")[:-1] == ["exit handler"]
    # What it printed without a newline was flushed as it left.
    assert "compacting now" in target.stderr_tail()


FROZEN = """
import gc
import sys


def compact(messages):
    print("frozen", gc.get_freeze_count(), file=sys.stderr)
    return messages[-1:]
"""


def test_a_forked_worker_starts_with_the_templates_heap_frozen(tmp_path: Path) -> None:
    if template_process.fork_unavailable():
        pytest.skip("this platform cannot fork workers")
    module = tmp_path / "frozen.py"
    module.write_text(FROZEN)
    template.want()
    try:
        target = resolve(f"py:{module}:compact")
        try:
            answer = target.backend.compact("messages", HISTORY)  # type: ignore[union-attr]
            assert answer.kind == "result"
        finally:
            target.close()
    finally:
        template.close_all()
    [line] = [line for line in target.stderr_tail().splitlines() if line.startswith("frozen")]
    # The compactor and everything its import brought are frozen in the template.
    assert int(line.split()[1]) > 1000
