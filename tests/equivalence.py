"""Whole-suite check that ``pytest -n 0`` and ``pytest -n 2`` give the same set of results.

Run it with ``./dev equivalence`` (or ``python -m tests.equivalence``). It runs the suite twice,
one session after the other, each writing a JUnit file, then compares the outcome of every test
id and prints the counts, the differences and the wall time of each session. Exit 0 when the
two sessions agree, 1 when they differ. Extra arguments go to both pytest sessions.
"""

from __future__ import annotations

import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

OUT = Path(".compactcheck") / "equivalence"


def outcomes(junit: Path) -> dict[str, str]:
    """Every test id of a JUnit file with its outcome: passed, failure, error or skipped."""
    found: dict[str, str] = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        name = f"{case.attrib.get('classname', '')}::{case.attrib['name']}"
        # A test that fails in its teardown appears twice; the worse outcome counts.
        if found.get(name) in (None, "passed"):
            found[name] = outcome
    return found


def session(workers: str, extra: list[str]) -> tuple[dict[str, str], float, int]:
    """Run the suite with ``-n workers``; its outcomes, wall seconds and exit code."""
    junit = OUT / f"n{workers}.xml"
    junit.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "-n", workers, "-q", f"--junitxml={junit}", *extra]
    print(f"$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    code = subprocess.run(command, check=False).returncode
    seconds = time.monotonic() - started
    if not junit.is_file():
        print(
            f"equivalence: pytest -n {workers} wrote no JUnit file (exit {code})", file=sys.stderr
        )
        raise SystemExit(2)
    return outcomes(junit), seconds, code


def compare(serial: dict[str, str], parallel: dict[str, str]) -> list[str]:
    """One line per test id whose outcome differs (or that only one session ran)."""
    lines = []
    for name in sorted(serial.keys() | parallel.keys()):
        left, right = serial.get(name, "absent"), parallel.get(name, "absent")
        if left != right:
            lines.append(f"  {name}: -n 0 {left}, -n 2 {right}")
    return lines


def main(extra: list[str]) -> int:
    """Both sessions, then the comparison; see the module docstring."""
    OUT.mkdir(parents=True, exist_ok=True)
    serial, serial_seconds, serial_code = session("0", extra)
    parallel, parallel_seconds, parallel_code = session("2", extra)
    for label, found, seconds, code in (
        ("-n 0", serial, serial_seconds, serial_code),
        ("-n 2", parallel, parallel_seconds, parallel_code),
    ):
        counts = ", ".join(
            f"{n} {outcome}" for outcome, n in sorted(Counter(found.values()).items())
        )
        print(f"{label}: {len(found)} tests ({counts}) in {seconds:.0f} s, exit {code}")
    print(f"-n 2 took {parallel_seconds / serial_seconds:.2f}x the time of -n 0")
    differences = compare(serial, parallel)
    if differences or serial_code != parallel_code:
        print(
            f"DIFFERENT: {len(differences)} test id(s) differ; exit codes {serial_code} and "
            f"{parallel_code}"
        )
        print("\n".join(differences))
        return 1
    print(f"SAME: all {len(serial)} test ids have the same outcome in both sessions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
