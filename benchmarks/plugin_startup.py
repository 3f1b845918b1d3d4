"""pytest's start-up in a project that does not use compactcheck, with our plugin and without.

Run: benchmarks/run --only plugin

pytest loads every installed ``pytest11`` plugin in every session, so ours runs in every project
that has compactcheck installed. A temporary project with one trivial test is run as a whole
``python -m pytest`` process, with the plugin and with ``-p no:compactcheck`` in turn (A B A B,
so that a drift of the machine's speed falls on both), after one warm-up run of each. The ratio
of the medians is the figure to read: within noise of 1.00 means the plugin costs nothing there.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_TEST = "def test_arithmetic():\n    assert 1 + 1 == 2\n"


def _seconds(folder: Path, *arguments: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
        cwd=folder,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def plugin_startup(runs: int) -> None:
    """Print the median wall time of a pytest session with and without the plugin, and the ratio."""
    print(f"\n## pytest start-up in a project that does not use compactcheck ({runs} runs each)")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "pytest.ini").write_text("[pytest]\n")
        (folder / "test_plain.py").write_text(_TEST)
        with_plugin: list[float] = []
        without: list[float] = []
        _seconds(folder)
        _seconds(folder, "-p", "no:compactcheck")
        for _ in range(runs):
            with_plugin.append(_seconds(folder))
            without.append(_seconds(folder, "-p", "no:compactcheck"))
    plugged, bare = statistics.median(with_plugin), statistics.median(without)
    print(f"{'with the plugin':>16} {'without':>8} {'ratio':>6}")
    print(f"{plugged:>15.2f}s {bare:>7.2f}s {plugged / bare:>6.2f}")
    print(
        "(median wall time of a whole `python -m pytest` process on one trivial test; without: "
        "-p no:compactcheck; ratio: with / without)"
    )
