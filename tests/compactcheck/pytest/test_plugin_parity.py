"""The pytest plugin says what the CLI says: its options, its test ids, its failures, its version.

Each test runs pytest in a subprocess inside a temporary project (a ``pytest.ini`` makes it the
rootdir), as a user runs it.
"""

from __future__ import annotations

import argparse
import json
import shutil
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from compactcheck.cli import run
from compactcheck.corpus.entry import read_entry
from compactcheck.pytest import plugin as pytest_plugin
from tests.compactcheck.commandline import cli, load, pytest_in

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

# A compactor that keeps the system prompt and the last three messages: it drops user turns.
TRIMMER = """
def compact(messages):
    system = [m for m in messages if m["role"] == "system"][:1]
    return system + [m for m in messages if m["role"] != "system"][-3:]
"""

# The test module `compactcheck init` writes: the adapter named by its absolute path.
ABSOLUTE = """
from pathlib import Path

import pytest

ADAPTER = Path(__file__).resolve().parent.parent / "compactors" / "trimmer.py"


@pytest.mark.compactcheck(f"py:{ADAPTER}:compact", view="messages")
def test_conformance(compactcheck_law):
    compactcheck_law.check()
"""


def project(folder: Path, tests: str, ini: str = "") -> Path:
    """A project: pytest.ini (the rootdir), compactors/trimmer.py and tests/test_it.py."""
    (folder / "pytest.ini").write_text("[pytest]\n" + ini)
    (folder / "compactors").mkdir()
    (folder / "compactors" / "trimmer.py").write_text(TRIMMER)
    (folder / "tests").mkdir()
    (folder / "tests" / "test_it.py").write_text(tests)
    return folder


def output(done: Any) -> str:
    return str(done.stdout[-4000:] + done.stderr[-2000:])


def test_a_py_file_is_named_relative_to_the_rootdir_in_ids_and_corpus(tmp_path: Path) -> None:
    root = project(tmp_path, ABSOLUTE)
    options = (
        "--compactcheck-max-examples",
        "10",
        "--compactcheck-invariants",
        "user_turn_present",
    )
    done = pytest_in(root, *options, "-rA")
    assert done.returncode == 1, output(done)
    # No checkout path in the id: the same id on every machine.
    assert "test_conformance[py:compactors/trimmer.py:compact-messages-user_turn_present]" in (
        done.stdout
    )
    assert str(tmp_path) not in done.stdout.split("short test summary")[1]
    # Started from a subfolder, the ids are the same (the target still resolves).
    again = pytest_in(root / "tests", *options, "-rA", "test_it.py")
    assert "[py:compactors/trimmer.py:compact-messages-user_turn_present]" in again.stdout, output(
        again
    )
    [entry] = (root / ".compactcheck" / "corpus").glob("*.json")
    assert entry.name.startswith("py_compactors_trimmer.py_compact--messages--user_turn_present")
    assert read_entry(entry).target == "py:compactors/trimmer.py:compact"
    # The entry replays from the rootdir, where its relative target resolves.
    replayed = cli("replay", ".compactcheck/corpus", cwd=root)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert "STILL FAILING" in replayed.stdout


@pytest.mark.parametrize(
    ("keyword", "meant"),
    [
        ("budjet=8000", "budget"),
        ("max_exmaples=10", "max_examples"),
        # fuzz() says exclude=: the marker's keyword begins with it.
        ("exclude=['progress']", "exclude_invariants"),
        ("model='lossy'", None),
    ],
)
def test_an_unknown_marker_keyword_is_a_one_line_usage_error(
    tmp_path: Path, keyword: str, meant: str | None
) -> None:
    tests = f"""
import pytest


@pytest.mark.compactcheck("mutant:messages-drop-user-turns", view="messages", {keyword})
def test_mutant(compactcheck_law):
    compactcheck_law.check()
"""
    done = pytest_in(project(tmp_path, tests), "tests")
    # pytest's usage error: nothing ran, one line names the keyword and what is known.
    assert done.returncode == 4, output(done)
    name = keyword.split("=")[0]
    [line] = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
    assert f"unknown keyword '{name}'" in line
    assert "known: view, transcripts, invariants" in line
    if meant is not None:
        assert f"(did you mean {meant}?)" in line
    else:
        # A session-wide option is named as the option it is.
        assert "holds for the session: --compactcheck-model" in line
    assert "Traceback" not in done.stdout + done.stderr


def test_under_xdist_an_unknown_marker_keyword_is_a_one_line_collection_error(
    tmp_path: Path,
) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")
    tests = MUTANT.format(keywords=", budjet=8000")
    done = pytest_in(project(tmp_path, tests), "-n", "2", "tests")
    # A worker that raised a usage error would be reported as crashed (INTERNALERROR, exit 3).
    assert done.returncode in (1, 2), output(done)
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert "unknown keyword 'budjet' (did you mean budget?); known: view" in done.stdout


def _run_options() -> set[str]:
    """Every long option of `compactcheck run`."""
    parser = argparse.ArgumentParser()
    run.add(parser.add_subparsers())
    [command] = [
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    ]
    return {
        option
        for action in command.choices["run"]._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def test_every_run_option_of_the_cli_is_offered_or_said_why_not(tmp_path: Path) -> None:
    offered = {option.cli for option in pytest_plugin.OPTIONS}
    assert _run_options() - offered - set(pytest_plugin.NOT_OFFERED) == set()
    # What the table offers is in pytest's help, as an option and an ini value.
    done = pytest_in(tmp_path, "--help")
    for option in pytest_plugin.OPTIONS:
        assert option.option in done.stdout
        assert option.ini in done.stdout


# Each marker keyword: its value in the marker, on the command line and in the ini file, and
# what the law case's run config (or calls) then holds.
SETTINGS: dict[str, tuple[object, str, object]] = {
    "view": ("messages", "messages", "messages"),
    "invariants": (["tool_pairing", "budget_respected"], "tool_pairing,budget_respected", None),
    "exclude_invariants": (["call_answered"], "call_answered", ["call_answered"]),
    "max_examples": (7, "7", 7),
    "rounds": (2, "2", 2),
    "format": ("openai-chat", "openai-chat", "openai-chat"),
    "seed": (11, "11", 11),
    "timeout": (3.5, "3.5", 3.5),
    "in_process": (True, "", True),
    "memory_limit": (300, "300", 300),
    "budget": (5000, "5000", 5000),
    "counter": ("messages", "messages", "messages"),
    "verbatim": (True, "", "verbatim"),
    "malformed": ("late-results", "late-results", ["late-results"]),
    "min_exercised": (1, "1", 1),
    "max_total_examples": (9, "9", 9),
    "no_shrink": (True, "", False),
    "require_level": (2, "2", 2),
    "transcripts": (None, "", None),
}

SEEN = """
import json

import pytest


@pytest.mark.compactcheck("reference-messages"{marker})
def test_settings(compactcheck_law):
    config, calls = compactcheck_law.config, compactcheck_law.calls
    seen = {{
        "view": compactcheck_law.view,
        "invariants": None,
        "exclude_invariants": list(config.exclude),
        "max_examples": config.max_examples,
        "rounds": config.rounds,
        "format": config.format,
        "seed": config.run_seed,
        "timeout": calls.timeout,
        "in_process": calls.in_process,
        "memory_limit": calls.memory_limit_mb,
        "budget": config.budget.limit if config.budget else None,
        "counter": config.budget.counter if config.budget else None,
        "verbatim": config.reading,
        "malformed": list(config.malformed),
        "min_exercised": config.min_exercised,
        "max_total_examples": config.max_total_examples,
        "no_shrink": config.shrink,
        "require_level": compactcheck_law.require_level,
        "transcripts": None,
        "law": compactcheck_law.invariant,
    }}
    with open("seen-" + compactcheck_law.invariant + ".json", "w") as file:
        json.dump(seen, file)
"""


def _seen(root: Path) -> dict[str, object]:
    found = {path.name: json.loads(path.read_text()) for path in root.glob("seen-*.json")}
    # The selection made one case of each selected law: the call law was excluded.
    assert sorted(found) == ["seen-budget_respected.json", "seen-tool_pairing.json"], found
    return dict(found["seen-tool_pairing.json"])


@pytest.mark.parametrize("source", ["marker", "option", "ini"])
def test_every_marker_keyword_reaches_the_run_from_marker_option_or_ini(
    tmp_path: Path, source: str
) -> None:
    assert set(SETTINGS) == set(pytest_plugin.MARKER_KEYWORDS)
    given = {key: value for key, value in SETTINGS.items() if value[0] is not None}
    marker = "".join(f", {key}={value[0]!r}" for key, value in given.items())
    by_option = [
        part
        for key, (_, text, _) in given.items()
        for part in (f"--compactcheck-{key.replace('_', '-')}", text)
        if part
    ]
    ini = "".join(f"compactcheck_{key} = {text or 'true'}\n" for key, (_, text, _) in given.items())
    root = project(
        tmp_path,
        SEEN.format(marker=marker if source == "marker" else ""),
        ini if source == "ini" else "",
    )
    done = pytest_in(root, *(by_option if source == "option" else ()), "tests")
    assert done.returncode == 0, output(done)
    seen = _seen(root)
    for key, (_, _, expected) in SETTINGS.items():
        assert seen[key] == expected, (key, seen[key])


def test_the_marker_wins_over_the_option_and_the_option_over_the_ini_value(
    tmp_path: Path,
) -> None:
    marker = (
        ", invariants=['tool_pairing', 'budget_respected'], exclude_invariants='call_answered', "
        "max_examples=7"
    )
    root = project(
        tmp_path,
        SEEN.format(marker=marker),
        "compactcheck_max_examples = 5\ncompactcheck_rounds = 4\n",
    )
    done = pytest_in(root, "--compactcheck-rounds", "6", "--compactcheck-max-examples", "6")
    assert done.returncode == 0, output(done)
    seen = _seen(root)
    assert (seen["max_examples"], seen["rounds"]) == (7, 6)


def test_transcripts_named_by_the_marker_are_read_from_the_rootdir(tmp_path: Path) -> None:
    tests = """
import pytest


@pytest.mark.compactcheck(
    "reference-messages", transcripts="recorded/claude-code.jsonl", invariants="tool_pairing"
)
def test_transcripts(compactcheck_law):
    assert compactcheck_law.view == "messages"
    [transcript] = compactcheck_law.config.transcripts
    assert transcript.name.endswith("recorded/claude-code.jsonl")
"""
    root = project(tmp_path, tests)
    (root / "recorded").mkdir()
    shutil.copy(EXAMPLES / "transcripts" / "claude-code.jsonl", root / "recorded")
    # Started from a subfolder: the marker's path is still the rootdir's.
    done = pytest_in(root / "tests", "test_it.py")
    assert done.returncode == 0, output(done)
    assert "2 passed" in done.stdout


def test_a_bad_marker_value_is_a_one_line_usage_error(tmp_path: Path) -> None:
    tests = """
import pytest


@pytest.mark.compactcheck("reference-messages", malformed="late-result")
def test_it(compactcheck_law):
    compactcheck_law.check()
"""
    done = pytest_in(project(tmp_path, tests), "tests")
    assert done.returncode == 4, output(done)
    assert (
        "ERROR: @pytest.mark.compactcheck(malformed='late-result'): unknown malformed-input "
        "scenario(s) late-result; known: late-results, pending-calls"
    ) in done.stderr


MUTANT = """
import pytest


@pytest.mark.compactcheck("mutant:messages-drop-user-turns", view="messages"{keywords})
def test_mutant(compactcheck_law):
    compactcheck_law.check()
"""


def test_a_failing_law_shows_what_the_cli_shows_and_how_to_replay_it(tmp_path: Path) -> None:
    root = project(tmp_path, MUTANT.format(keywords=", invariants='user_turn_present'"))
    report = root / "report.json"
    done = pytest_in(
        root,
        "--compactcheck-max-examples",
        "10",
        "--compactcheck-json",
        str(report),
        *("--compactcheck-markdown", "report.md", "--compactcheck-html", "report.html"),
        *("--compactcheck-junit", "junit.xml"),
        "tests",
    )
    assert done.returncode == 1, output(done)
    # Every report `run` writes, the plugin writes.
    for name in ("report.md", "report.html", "junit.xml"):
        assert "drop-user-turns" in (root / name).read_text(), name
    [example] = [
        result.counterexample
        for result in load(report).targets[0].results
        if result.counterexample is not None
    ]
    assert f"because: {example.because}" in done.stdout
    assert (
        f"seed 0 · round {example.round} · history of {example.history_size} · reproduced:"
        in done.stdout
    )
    # The console's message-per-line view of what the compactor returned.
    assert "the compactor returned:\n  0: system: " in done.stdout
    assert example.corpus_file is not None
    entry = Path(example.corpus_file).relative_to(root).as_posix()
    assert f"\nreplay: compactcheck replay {entry}\n" in done.stdout
    replayed = cli("replay", entry, cwd=root)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert "STILL FAILING" in replayed.stdout


def test_require_level_fails_only_the_laws_it_requires(tmp_path: Path) -> None:
    keywords = ", invariants=['user_turn_present', 'facts_preserved'], require_level=2"
    done = pytest_in(
        project(tmp_path, MUTANT.format(keywords=keywords)),
        "--compactcheck-max-examples",
        "10",
        "-rxf",
        "tests",
    )
    assert done.returncode == 1, output(done)
    # In chat completions user_turn_present is a law of level 2; facts_preserved, of level 3, is
    # reported, not failed.
    assert (
        "FAILED tests/test_it.py::test_mutant[mutant:messages-drop-user-turns-messages-user_"
        in (done.stdout)
    )
    assert (
        "XFAIL tests/test_it.py::test_mutant[mutant:messages-drop-user-turns-messages-facts_"
        in (done.stdout)
    )
    assert "above --compactcheck-require-level 2" in done.stdout
    assert "1 failed, 1 passed, 1 xfailed" in done.stdout


def test_the_report_names_the_installed_version(tmp_path: Path) -> None:
    root = project(tmp_path, MUTANT.format(keywords=", invariants='user_turn_present'"))
    report = root / "report.json"
    pytest_in(root, "--compactcheck-max-examples", "5", "--compactcheck-json", str(report), "tests")
    assert load(report).toolkit_version == version("compactcheck") != "0+unknown"


HYPOTHESIS = """
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.compactcheck("py:compactors/trimmer.py:compact", invariants="user_turn_present")
@settings(max_examples=50, database=None)
@given(data=st.data())
def test_law(compactcheck_law, data):
    compactcheck_law.check_case(data.draw(compactcheck_law.cases()))
"""


def test_a_hypothesis_test_of_a_law_fails_as_check_does(tmp_path: Path) -> None:
    root = project(tmp_path, HYPOTHESIS)
    done = pytest_in(root, "tests")
    assert done.returncode == 1, output(done)
    failed = done.stdout.split("short test summary")[0]
    assert "user_turn_present broken by py:compactors/trimmer.py:compact [messages]" in failed
    # Lines of the AssertionError, without pytest's "E   " in front.
    lines = [line.removeprefix("E").strip() for line in failed.splitlines()]
    returned = lines.index("the compactor returned:")
    assert lines[returned + 1].startswith("0: system: ")
    prefix = "replay: compactcheck replay .compactcheck/corpus/py_compactors_trimmer.py_compact--"
    assert any(line.startswith(prefix) for line in lines)
    # Hypothesis shows the law it was handed, not the session's state.
    assert "compactcheck_law=<compactcheck law py:compactors/trimmer.py:compact-messages-" in failed
    assert "from_workers" not in failed


def test_a_model_option_without_a_model_is_a_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path, MUTANT.format(keywords=""))
    done = pytest_in(root, "--compactcheck-max-model-calls", "0", "tests")
    assert done.returncode == 4, output(done)
    assert (
        "ERROR: --compactcheck-max-model-calls: needs a model to apply to; name it with "
        "--compactcheck-model"
    ) in done.stderr


def test_a_report_named_in_the_ini_file_is_written_in_the_rootdir(tmp_path: Path) -> None:
    keywords = ", invariants='user_turn_present'"
    root = project(tmp_path, MUTANT.format(keywords=keywords), "compactcheck_json = report.json\n")
    pytest_in(root / "tests", "--compactcheck-max-examples", "5", "test_it.py")
    assert load(root / "report.json").targets[0].target == "mutant:messages-drop-user-turns"


# The marker takes a budget as fuzz() does: a number or a Budget, its counter by name.
BUDGETED = SEEN.replace("import pytest\n", "import pytest\n\nfrom compactcheck import Budget\n", 1)
LAWS = ", invariants=['tool_pairing', 'budget_respected'], exclude_invariants='call_answered'"


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("budget=Budget(limit=5000, counter='characters')", (5000, "characters")),
        ("budget=Budget(limit=700)", (700, "approx_tokens")),
        ("budget=5000, counter='py:mycount:words'", (5000, "py:mycount:words")),
    ],
)
def test_the_marker_takes_a_budget_as_a_number_or_a_budget(
    tmp_path: Path, marker: str, expected: tuple[int, str]
) -> None:
    root = project(tmp_path, BUDGETED.format(marker=LAWS + ", " + marker))
    (root / "mycount.py").write_text("def words(text):\n    return len(text.split())\n")
    done = pytest_in(root, "tests")
    assert done.returncode == 0, output(done)
    seen = _seen(root)
    assert (seen["budget"], seen["counter"]) == expected


@pytest.mark.parametrize(
    ("marker", "said"),
    [
        ("budget=0", "@pytest.mark.compactcheck(budget=0): expected a number of at least 1"),
        (
            "budget=Budget(limit=9, counter='characters'), counter='messages'",
            "its counter characters differs from @pytest.mark.compactcheck(counter='messages')",
        ),
        ("counter='py:mycount:nope'", "budget counter py:mycount:nope: mycount has no nope"),
    ],
)
def test_a_budget_the_marker_cannot_take_is_one_line(
    tmp_path: Path, marker: str, said: str
) -> None:
    root = project(tmp_path, BUDGETED.format(marker=", " + marker))
    (root / "mycount.py").write_text("def words(text):\n    return len(text.split())\n")
    done = pytest_in(root, "tests")
    assert done.returncode != 0
    assert said in output(done)
    assert "Traceback" not in output(done)
