"""A run with workers starts its fork server and its compactors' templates before the command
line imports the engine (``cli.head_start``), so that their imports overlap its own; a command
line read wrongly, or a run that stops early, costs nothing else and leaves nothing behind; and
the command line does not collect its heap on its way out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from compactcheck.cli.head_start import Ahead, ahead_of
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB
from tests.compactcheck.backends.processes import isolated_processes

PLAIN = "def compact(messages):\n    return list(messages)\n"


@pytest.mark.parametrize(
    ("argv", "ahead"),
    [
        (["run", "py:a.py:f", "--workers", "8"], Ahead(8, ("a.py:f",), DEFAULT_MEMORY_LIMIT_MB)),
        (["run", "--workers=3", "py:a.py:f", "reference"], Ahead(3, ("a.py:f",), 4096)),
        (["fuzz", "py:m:f", "--max-time", "5", "--workers", "2"], Ahead(2, ("m:f",), 4096)),
        (["run", "py:m:f", "--workers", "2", "--memory-limit", "100"], Ahead(2, ("m:f",), 100)),
        # The value of an option is never a target, whatever it looks like.
        (["run", "reference", "--corpus", "py:x", "--workers", "2"], Ahead(2, (), 4096)),
        (
            ["run", "--workers", "2", "py:m:f", "py:m:f", "--", "py:n:g"],
            Ahead(2, ("m:f", "n:g"), 4096),
        ),
        # In-process compactors need no template; a limit that is not one starts none either.
        (["run", "py:m:f", "--workers", "2", "--in-process"], Ahead(2, (), None)),
        (["run", "py:m:f", "--workers", "2", "--memory-limit", "lots"], Ahead(2, ("m:f",), None)),
        # One worker, a count that is not one, or another command: no pool to start ahead.
        (["run", "py:m:f"], Ahead(1, ("m:f",), 4096)),
        (["run", "py:m:f", "--workers", "many"], Ahead(1, ("m:f",), 4096)),
        (["run", "py:m:f", "--workers"], Ahead(1, ("m:f",), 4096)),
        (["replay", "py:m:f", "--workers", "8"], Ahead()),
        ([], Ahead()),
    ],
)
def test_the_command_line_is_read_as_the_parser_reads_it(argv: list[str], ahead: Ahead) -> None:
    assert ahead_of(argv) == ahead


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_command_line_module_imports_no_engine(tmp_path: Path) -> None:
    # The workers' fork server imports it (as the parent's main script) and needs nothing of it.
    done = _python(
        """
        import sys
        import compactcheck.cli
        print(sorted(name for name in sys.modules if name.startswith("compactcheck.engine")))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_head_start_starts_the_fork_server_and_the_template_before_the_engine(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain.py").write_text(PLAIN)
    spec = f"{tmp_path / 'plain.py'}:compact"
    done = _python(
        f"""
        import json, os, sys
        from pathlib import Path
        from compactcheck.cli.head_start import head_start
        from compactcheck.backends import template

        head_start(["run", "py:{spec}", "--workers", "2", "--max-examples", "5"])
        children = []
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if entry.name.isdigit() and int(stat[1]) == os.getpid():
                    children.append((entry / "cmdline").read_bytes().decode())
            except OSError:
                pass
        print(json.dumps({{
            "engine": any(name.startswith("compactcheck.engine") for name in sys.modules),
            "templates": [name for name, _ in template.addresses({DEFAULT_MEMORY_LIMIT_MB})],
            "fork server": any("multiprocessing.forkserver" in c for c in children),
        }}))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"engine": False, "templates": [spec], "fork server": True}
    # The template ended with the process that started it.
    assert not isolated_processes(spec)


def test_a_run_that_stops_at_its_arguments_after_a_head_start_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    # A compactor whose import takes long: the run ends while its template still imports it.
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(60)\n" + PLAIN)
    spec = f"{tmp_path / 'slow.py'}:compact"
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "run",
            f"py:{spec}",
            "--workers",
            "2",
            "--rounds",
            "several",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert done.returncode == 2, done.stderr
    assert "--rounds" in done.stderr
    assert "Traceback" not in done.stderr
    # Not held up by the import it did not need (the template is killed, not waited for).
    assert time.monotonic() - started < 30
    deadline = time.monotonic() + 20
    while isolated_processes(spec) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not isolated_processes(spec)


def test_the_command_line_leaves_its_heap_uncollected_as_it_exits(tmp_path: Path) -> None:
    # Garbage in a cycle is left to the process's end, where collecting it would only cost.
    done = _python(
        """
        import sys
        from compactcheck.cli import main

        class Cycle:
            def __del__(self):
                print("CYCLE-FINALISED")

        code = main(["targets"])
        cycle = Cycle()
        cycle.itself = cycle
        del cycle
        sys.exit(code)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "CYCLE-FINALISED" not in done.stdout
