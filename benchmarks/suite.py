"""Every figure of BENCHMARKS.md, each beside the ratio it is judged by, measured in one run.

Run: benchmarks/run (or .venv/bin/python -m benchmarks.suite; --quick for a smoke run).
Figures are wall-clock on whatever machine runs them; the ratios are what carries over.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.audit_log import audit_speed
from benchmarks.case_strategy import case_strategy
from benchmarks.command_runs import isolation, workers
from benchmarks.dev_test_time import suite_time
from benchmarks.generation import generation
from benchmarks.guard_overhead import guard_overhead
from benchmarks.in_flight import in_flight
from benchmarks.messages_judgement import laws
from benchmarks.mutant_seeds import first_detections
from benchmarks.parallel import parallel
from benchmarks.plugin_startup import plugin_startup
from benchmarks.protocol import protocol
from benchmarks.repair_fuzz import repair_section
from benchmarks.rulings import rulings_section
from benchmarks.session_exchange import session_exchange_costs
from benchmarks.snapshot_validation import checker
from benchmarks.throughput import throughput
from benchmarks.trace_audit import trace_audit
from benchmarks.wording_corpus import wording_corpus_section
from benchmarks.wording_runs import wording_runs

# The quick run's repair section: one mutant per wire format of the four.
QUICK_REPAIR = (
    "mutant:messages-keep-last-n",
    "mutant:anthropic-keep-last-n",
    "mutant:responses-keep-last-n",
    "mutant:gemini-keep-last-n",
)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, {sys.platform}; "
        f"load average at start {load}"
    )


def main() -> None:
    """Print every section; --quick runs each at a small size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--only", nargs="*", help="sections to run", default=None)
    parser.add_argument("--skip", nargs="*", help="sections to leave out", default=())
    options = parser.parse_args()
    quick = options.quick
    sections: dict[str, Callable[[], None]] = {
        "generation": lambda: generation(50 if quick else 300),
        "throughput": lambda: throughput(50 if quick else 300),
        "case-strategy": lambda: case_strategy(50 if quick else 300),
        "session-exchange": lambda: session_exchange_costs(50 if quick else 200),
        "checker": lambda: checker([10_000] if quick else [10_000, 100_000, 1_000_000]),
        "laws": lambda: laws([100, 1_000] if quick else [100, 1_000, 10_000]),
        "protocol": lambda: protocol(30 if quick else 300),
        "workers": lambda: workers(20 if quick else 80),
        "parallel": lambda: parallel(16, workers=2) if quick else parallel(200),
        # The 1 s compactor's short run only in a full run: it waits tens of seconds.
        "in-flight": lambda: (
            in_flight(24, (4,), judged=False, one_second=False) if quick else in_flight(400)
        ),
        "isolation": lambda: isolation(30 if quick else 300),
        "mutants": lambda: first_detections(100, ["messages-keep-last-n"] if quick else None),
        "guard": lambda: guard_overhead([50, 200] if quick else [50, 200, 1_000]),
        "repair": lambda: repair_section(20, QUICK_REPAIR) if quick else repair_section(200),
        "audit": lambda: audit_speed(1_000 if quick else 20_000),
        "plugin": lambda: plugin_startup(3 if quick else 10),
        "rulings": rulings_section,
        "traces": lambda: trace_audit(
            [1_000, 10_000] if quick else [10_000, 100_000], [20_000] if quick else [20_000, 2_000]
        ),
        "wording-corpus": wording_corpus_section,
        # 3 fakes and 10 planted kinds, each over the seeds (about 40 minutes in full).
        "wording-runs": lambda: wording_runs(1, 30) if quick else wording_runs(20, 200),
        # The whole test suite, last (about 12 minutes on 2 vCPUs); not in a quick run.
        "suite": suite_time,
    }
    if quick:
        del sections["suite"]
    print(f"# compactcheck benchmarks, {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"machine: {_machine()}")
    for name, section in sections.items():
        if (options.only is None or name in options.only) and name not in options.skip:
            started = time.perf_counter()
            section()
            print(f"({name}: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
