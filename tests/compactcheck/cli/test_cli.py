"""The command line, driven as a user would drive it: a subprocess, exit codes, output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from compactcheck.reference_engine.golden import DEFAULT_CORPUS
from tests.compactcheck.commandline import pytest_in


def run(
    *arguments: str, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", **(env_extra or {})},
        check=False,
    )


def test_golden_runs_the_shipped_corpus() -> None:
    done = run("golden")
    assert done.returncode == 0, done.stderr
    count = len(list(DEFAULT_CORPUS.glob("*.json")))
    assert f"{count} of {count} case(s) behaved as expected" in done.stdout
    assert "second-round-literal" in done.stdout


def test_a_case_that_misbehaves_exits_one(tmp_path: Path) -> None:
    source = next(DEFAULT_CORPUS.glob("*-seed-scenario.json"))
    data = json.loads(source.read_text())
    data["rounds"][0]["expect"]["outcome"] = "rejected"
    (tmp_path / "wrong.json").write_text(json.dumps(data))
    done = run("golden", str(tmp_path))
    assert done.returncode == 1
    assert "MISMATCH" in done.stdout
    assert "outcome compacted, expected rejected" in done.stdout


def test_bad_input_is_one_line_and_exit_two(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "wrong-shape.json").write_text('{"name": "x"}')
    for target in ("broken.json", "wrong-shape.json", "missing.json"):
        done = run("golden", str(tmp_path / target))
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert target in done.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run("golden", str(empty))
    assert done.returncode == 2
    assert "found none" in done.stderr


def test_usage_errors_exit_two() -> None:
    done = run("no-such-command")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr


def test_version_and_rules() -> None:
    assert run("--version").stdout.startswith("compactcheck ")
    rules = run("rules").stdout
    for rule in ("goal", "evidence_in_range", "range_not_empty", "checksum", "progress"):
        assert rule in rules


def test_every_command_of_the_parser_has_a_handler() -> None:
    import argparse

    from compactcheck import cli

    [commands] = [
        action
        for action in cli._parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    assert commands.choices
    for name, parser in commands.choices.items():
        assert callable(parser.get_default("handler")), name


def test_an_unclosed_quote_in_a_cmd_target_is_one_line() -> None:
    for command in (("smoke", 'cmd:node "x'), ("run", 'cmd:node "x', "--max-examples", "1")):
        done = run(*command)
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr
        assert done.stderr.strip() == (
            "compactcheck: error: cannot split the harness command line 'node \"x': "
            "No closing quotation"
        )


def test_targets_and_invariants_as_json_and_never_cut_short() -> None:
    from compactcheck.targets.registry import builtin_targets

    names = list(builtin_targets())
    listed = json.loads(run("targets", "--json").stdout)
    assert [item["target"] for item in listed] == names
    laws = json.loads(run("invariants", "--view", "messages", "--json").stdout)
    assert laws[0]["id"] == "call_answered"
    assert {law["view"] for law in laws} == {"messages"}
    # On a narrow terminal each name stands whole on its line (a table per view), never cut
    # with an ellipsis.
    narrow = run("targets", env_extra={"COLUMNS": "60"}).stdout
    cells = [
        line.split("│")[1].strip()
        for line in narrow.splitlines()
        if line.startswith("│") and line.split("│")[1].strip()
    ]
    assert sorted(cells) == sorted(names)
    assert "…" not in narrow


def test_init_writes_a_test_module_that_runs_from_any_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = run("init", "--dir", str(project))
    assert done.returncode == 0, done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    test_module = project / "tests" / "test_compactcheck_conformance.py"
    pytest_run = pytest_in(
        elsewhere,
        str(test_module),
        "--compactcheck-max-examples",
        "5",
        "--compactcheck-invariants",
        "tool_pairing",
        "--rootdir",
        str(elsewhere),
    )
    output = pytest_run.stdout + pytest_run.stderr
    # Collected and run (the scaffolded trimmer breaks laws, so failures are expected); not a
    # collection error (exit 2), a usage error (4) or nothing collected (5).
    assert pytest_run.returncode in (0, 1), output[-3000:]
    assert "test_compactor_conformance[" in output or " passed" in output or " failed" in output
