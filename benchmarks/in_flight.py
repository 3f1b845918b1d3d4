"""Many calls in flight: histories per second of a compactor that waits on each call, with one
shard at a time against K shards at once as threads (``--in-flight K``), from the command line
and from the pytest plugin; the memory of the whole run; the model-call cap; the 1 s compactor
predicted from the 100 ms one and measured in a short run.

Every figure is read from a run of the real command as a user types it, in a fresh folder,
start-up included: the rate is the histories the report counts over the command's wall time.
Memory is the largest sum, sampled every 50 ms, of the proportional set size (shared pages
split between the processes sharing them) of the command and every process under it: its
compactor processes, their templates, a pool's fork server and workers. The same seed and
``--in-flight K`` draw the same histories wherever the lanes run; against one worker the cut
differs, so verdicts are compared law by law.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.parallel import _COMPACTCHECK, _PYTEST, TARGET, TESTS

ROOT = Path(__file__).resolve().parent.parent
MODEL = f"py:{ROOT / 'benchmarks' / 'slow_model.py'}:model"
# The goals: K in flight at least this many times one worker's histories per second.
GOALS = {32: 24.0, 8: 7.0}
# Memory of the whole run at 32 in flight, at most (MB).
MEMORY_GOAL_MB = 1536


@dataclass(frozen=True)
class Measured:
    """One run of a real command: wall time, histories, median size, verdicts, peak memory."""

    seconds: float
    histories: int
    size: float
    calls: int
    verdicts: dict[str, str]
    memory_mb: float
    # Model calls the run refused past --max-model-calls (0 without a model).
    refused: int = 0
    # CPU seconds of the command's own process (and the children it waited for).
    cpu: float = 0.0

    @property
    def rate(self) -> float:
        """Histories judged per second of the whole command."""
        return self.histories / self.seconds


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        # The parent is the second field after the command's name, which may hold spaces.
        parent = int(stat.rpartition(")")[2].split()[1])
        found.setdefault(parent, []).append(int(entry.name))
    return found


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _tree_mb(root: int) -> float:
    children = _children()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kb(pid)
        todo.extend(children.get(pid, []))
    return total / 1024


def _measured(command: list[str], folder: Path, environment: dict[str, str]) -> Measured:
    sizes = folder / "sizes.log"
    calls = folder / "calls.log"
    environment = {
        **os.environ,
        **environment,
        "COMPACT_SIZES": str(sizes),
        "MODEL_CALLS": str(calls),
    }
    peak = [0.0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], _tree_mb(process.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sampler.join()
    report = folder / "report.json"
    if not report.is_file():
        raise RuntimeError(f"{' '.join(command[:6])}...: no report\n{stderr[-2000:]}")
    [target] = json.loads(report.read_text())["targets"]
    results = target["results"]
    handed = [int(line) for line in sizes.read_text().split()] if sizes.is_file() else []
    # The calls a model answered, else the compactor's own calls (one line each).
    answered = len(calls.read_text().split()) if calls.is_file() else len(handed)
    return Measured(
        seconds,
        max(result["examples"] for result in results),
        statistics.median(handed) if handed else 0.0,
        answered,
        {result["invariant"]: result["verdict"] for result in results},
        peak[0],
        (target.get("model_calls") or {}).get("refused", 0),
        cpu,
    )


def cli(examples: int, in_flight: int, *, workers: int = 1, wait: float = 0.1) -> Measured:
    """`compactcheck run` on the slow compactor with ``in_flight`` shards at once."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            *_COMPACTCHECK,
            "run",
            TARGET,
            *("--max-examples", str(examples), "--seed", "1", "--profile", "ci", "--no-shrink"),
            *("--workers", str(workers), "--in-flight", str(in_flight)),
            *("--json", "report.json"),
        ]
        return _measured(command, Path(folder), {"COMPACT_WAIT": str(wait)})


def plugin(examples: int, in_flight: int) -> Measured:
    """`pytest` with the plugin on the slow compactor, ``--compactcheck-in-flight K``."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "test_slow.py").write_text(TESTS)
        command = [
            *_PYTEST,
            *("-p", "no:cacheprovider", "-p", "no:randomly", "-q"),
            *("--compactcheck-in-flight", str(in_flight)),
            *("--compactcheck-max-examples", str(examples), "--compactcheck-seed", "1"),
            *("--compactcheck-json", "report.json", "test_slow.py"),
        ]
        return _measured(command, Path(folder), {})


def capped(examples: int, in_flight: int, cap: int) -> Measured:
    """`compactcheck run` of LangChain's summarisation middleware on the fake slow model, with
    ``--max-model-calls cap``: the calls the model answered are counted in its own log."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            *_COMPACTCHECK,
            "run",
            "langchain:summarization-middleware",
            *("--model", MODEL, "--max-model-calls", str(cap), "--in-flight", str(in_flight)),
            *("--max-examples", str(examples), "--seed", "2", "--no-shrink", "--profile", "ci"),
            *("--json", "report.json"),
        ]
        return _measured(command, Path(folder), {})


def _row(how: str, one: Measured, many: Measured, goal: float | None) -> str:
    ratio = many.rate / one.rate
    same = "equal" if one.verdicts == many.verdicts else "DIFFER"
    verdict = "(smoke)" if goal is None else ("met" if ratio >= goal else "NOT MET")
    target = "" if goal is None else f">= {goal:g}x"
    return (
        f"{how:<34} {one.rate:>7.2f} {one.size:>5.0f} {many.rate:>8.2f} {many.size:>5.0f} "
        f"{ratio:>6.2f}x {target:<7} {verdict:<8} {many.memory_mb:>7.0f} {same}"
    )


def in_flight(
    examples: int,
    counts: tuple[int, ...] = (8, 32),
    *,
    judged: bool = True,
    one_second: bool = True,
) -> None:
    """Print one worker against K in flight (CLI and plugin), memory, the cap, the 1 s wait."""
    print(
        f"\n## Many calls in flight: a compactor that waits 100 ms a call, {examples} histories, "
        f"seed 1, no shrinking; one shard at a time against K at once (load average "
        f"{os.getloadavg()[0]:.1f})"
    )
    print(
        f"{'command':<34} {'1: h/s':>7} {'size':>5} {'K: h/s':>8} {'size':>5} {'ratio':>7} "
        f"{'goal':<7} {'verdict':<8} {'MB (K)':>7} verdicts"
    )
    one_cli, one_plugin = cli(examples, 1), plugin(examples, 1)
    fastest: Measured | None = None
    for count in counts:
        goal = GOALS.get(count) if judged else None
        many = cli(examples, count)
        fastest = many
        print(_row(f"run --in-flight {count}", one_cli, many, goal))
        print(
            _row(
                f"run --workers 2 --in-flight {count}",
                one_cli,
                cli(examples, count, workers=2),
                goal,
            )
        )
        print(
            _row(
                f"pytest --compactcheck-in-flight {count}",
                one_plugin,
                plugin(examples, count),
                goal,
            )
        )
    assert fastest is not None
    top = counts[-1]
    _where_time_goes(examples, top, one_cli, fastest)
    memory = "met" if fastest.memory_mb <= MEMORY_GOAL_MB else "NOT MET"
    print(
        f"memory of run --in-flight {top}, every process of the run: {fastest.memory_mb:.0f} MB "
        f"(one worker: {one_cli.memory_mb:.0f} MB); goal at most {MEMORY_GOAL_MB} MB: {memory}"
    )
    cap = top
    try:
        limited = capped(4 * top, top, cap)
    except RuntimeError as error:
        print(f"model-call cap: not measured ({str(error).splitlines()[0]})")
    else:
        # Exact: the cap was reached (calls were refused past it) and no more were sent.
        exact = "exact" if limited.calls == cap and limited.refused > 0 else "NOT EXACT"
        print(
            f"model-call cap of {cap} at --in-flight {top} (LangChain's summarisation middleware "
            f"on a fake model that waits 100 ms, {4 * top} histories): {limited.calls} calls "
            f"answered, {limited.refused} refused past the cap: {exact}"
        )
    if one_second:
        _one_second(top, one_cli)
    print(
        "(rate: histories the report counts over the command's wall time, start-up included; "
        "size: median messages per history handed to the compactor; MB: largest sum of the "
        "proportional set sizes of every process of the K run; verdicts: law by law against one "
        f"worker, whose cut differs; this host has {os.cpu_count()} cores)"
    )


def _where_time_goes(examples: int, count: int, one: Measured, many: Measured) -> None:
    """The K run again with a compactor that waits nothing: the rate the cores allow it."""
    bare = cli(examples, count, wait=0.0)
    goal = GOALS.get(count)
    needed = "" if goal is None else f"; the goal needs {goal * one.rate:.1f} histories/s"
    print(
        f"where the time of run --in-flight {count} goes: {many.cpu / many.histories * 1000:.1f} "
        f"ms of CPU a history in the command's own process, start-up included (one worker: "
        f"{one.cpu / one.histories * 1000:.1f} ms); the same run waiting nothing takes "
        f"{bare.seconds:.1f} s ({bare.rate:.1f} histories/s, {bare.cpu:.1f} s of CPU), the most "
        f"this host gave it at this moment{needed}"
    )


def _one_second(count: int, one: Measured) -> None:
    """The 1 s compactor: predicted from short runs that wait nothing and 100 ms, then measured.

    A run's time is its own work plus its waits: the run that waits nothing gives the first,
    the 100 ms run adds a tenth of the waits, so that waits of 1 s add ten times that.
    """
    short = 4 * count
    nothing, tenth = cli(short, count, wait=0.0), cli(short, count, wait=0.1)
    predicted = nothing.seconds + 10 * (tenth.seconds - nothing.seconds)
    ran = cli(short, count, wait=1.0)
    alone = short * one.calls / one.histories
    print(
        f"a compactor that waits 1 s a call, {short} histories at --in-flight {count}: predicted "
        f"{predicted:.1f} s ({nothing.seconds:.1f} s waiting nothing, {tenth.seconds:.1f} s "
        f"waiting 100 ms), measured {ran.seconds:.1f} s ({ran.rate:.2f} histories/s, {ran.calls} "
        f"calls); one worker would wait {alone:.0f} s ({one.calls / one.histories:.2f} calls a "
        f"history, as in its 100 ms run): {alone / ran.seconds:.1f}x"
    )


if __name__ == "__main__":
    in_flight(400)
