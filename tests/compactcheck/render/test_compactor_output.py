"""A compactor's own prints are its output, shown as such; a crash is a target problem."""

from __future__ import annotations

from pathlib import Path

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.render._digest import outputs, problems
from compactcheck.render._stderr import stderr_parts
from compactcheck.render.console import render_console
from compactcheck.render.html import render_html
from compactcheck.render.markdown import render_markdown
from compactcheck.report.model import Report, TargetReport
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve

CHATTY = """
import os

def compact(messages):
    print("compacting", len(messages), "messages")
    return messages[:1] + messages[-3:]
"""

DYING = """
import os

def compact(messages):
    print("about to go")
    if len(messages) > 8:
        os._exit(7)
    return messages[:1] + messages[-3:]
"""


def _report(tmp_path: Path, source: str) -> tuple[Report, TargetReport]:
    (tmp_path / "mine.py").write_text(source, encoding="utf-8")
    target = resolve(f"py:{tmp_path / 'mine.py'}:compact", calls=Calls(timeout=30.0))
    config = RunConfig(seed=0, max_examples=8, profile="ci", corpus_dir=tmp_path / "corpus")
    try:
        target_report = run_target(target, "messages", config)
    finally:
        target.close()
    report = Report(
        seed=0,
        profile="ci",
        toolkit_version="test",
        max_examples=8,
        rounds=3,
        complete=True,
        started_at="2026-01-01T00:00:00+00:00",
        targets=[target_report],
    )
    return report, target_report


def _console(report: Report) -> str:
    return render_console(report, width=200)


def test_prints_are_the_compactors_output_not_a_target_problem(tmp_path: Path) -> None:
    report, target = _report(tmp_path, CHATTY)
    assert "compacting" in target.stderr
    printed, trouble = stderr_parts(target)
    assert "compacting" in printed
    assert trouble == ""
    assert problems(report) == []
    assert outputs(report) == [target]
    console = _console(report)
    assert "target problems" not in console
    assert "output of" in console
    assert "compacting" in console
    markdown = render_markdown(report)
    assert "Target problems" not in markdown
    assert "## Output of" in markdown
    html = render_html(report)
    assert "Target problems" not in html
    assert "Output of" in html
    assert "compacting" in html


def test_a_crash_stays_a_target_problem_beside_the_prints(tmp_path: Path) -> None:
    report, target = _report(tmp_path, DYING)
    printed, trouble = stderr_parts(target)
    assert "about to go" in printed
    assert "worker process exited with code 7; restarting it" in trouble
    assert "about to go" not in trouble
    assert problems(report) == [target]
    console = _console(report)
    assert "target problems" in console
    assert "output of" in console


def _tail(stderr: str) -> TargetReport:
    return TargetReport.model_validate(
        {"target": "t", "view": "messages", "results": [], "stderr": stderr}
    )


def test_a_fatal_error_up_to_its_restart_is_a_problem() -> None:
    stderr = (
        "hello\n"
        "Fatal Python error: Segmentation fault\n"
        "\n"
        "Current thread 0x00007f (most recent call first):\n"
        '  File "/tmp/mine.py", line 5 in compact\n'
        "\n"
        "[compactcheck: worker process was killed by SIGSEGV; restarting it]\n"
        "hello again\n"
    )
    printed, trouble = stderr_parts(_tail(stderr))
    assert printed == "hello\nhello again"
    assert trouble.startswith("Fatal Python error: Segmentation fault")
    assert trouble.endswith("restarting it]")


def test_a_traceback_the_harness_ended_on_is_a_problem_a_logged_one_is_output() -> None:
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "h.py", line 3, in compact\n'
        "ValueError: logged and carried on\n"
        "still working\n"
        "Traceback (most recent call last):\n"
        '  File "h.py", line 9, in <module>\n'
        "    serve()\n"
        "KeyError: 'messages'\n"
        "[compactcheck: harness exited with code 1; restarting it]\n"
    )
    printed, trouble = stderr_parts(_tail(stderr))
    assert "logged and carried on" in printed
    assert "still working" in printed
    assert "KeyError" in trouble
    assert "logged and carried on" not in trouble


def test_a_dump_whose_header_the_tail_cut_off_is_still_a_problem() -> None:
    dump = (
        "code\n"
        '  File "<frozen runpy>", line 198 in _run_module_as_main\n'
        "\n"
        "[compactcheck: worker process was killed by SIGSEGV; restarting it]\n"
    )
    # A tail of 4000 characters (all a report keeps) begins with the end of a cut line.
    printed, trouble = stderr_parts(_tail(dump + "said hi\n" * 500))
    assert printed.startswith("said hi")
    assert trouble.startswith("code\n")
    assert "frozen runpy" in trouble
    # Whole, it is the compactor's own line.
    printed, trouble = stderr_parts(_tail("said hi\n" + dump))
    assert printed == "said hi\ncode"
