"""One table of run options: every front end offers what the table says, under its spelling.

The table (``compactcheck.options``) names each option's spelling on the command line
(``compactcheck run``), in ``compactcheck.fuzz`` and in the pytest plugin (option and ini value,
and marker keyword); an option a front end does not offer says why there. These tests read each
front end as a user meets it (the parser of `run`, the signature of ``fuzz``, ``pytest --help``)
and hold it to the table both ways: nothing claimed is missing, nothing offered is unlisted.
"""

from __future__ import annotations

import argparse
import inspect
import re
import socket
from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.base.errors import CompactcheckError
from compactcheck.base.shards import Shard
from compactcheck.cli import run
from compactcheck.options import BY_KEY, FRONTS, OPTIONS, PLUGIN_ONLY, OptionError, check_together
from compactcheck.pytest import options as pytest_options
from compactcheck.targets.calls import Calls
from tests.compactcheck.commandline import cli, pytest_in

TRANSCRIPT = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "claude-code.jsonl"


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


def _fuzz_keywords() -> set[str]:
    return set(inspect.signature(compactcheck.fuzz).parameters) - {"compactor"}


@pytest.fixture(scope="module")
def plugin_help(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What ``pytest --help`` shows, in a project of its own."""
    done = pytest_in(tmp_path_factory.mktemp("help"), "--help")
    assert done.returncode == 0, done.stderr
    return done.stdout


def _offers(front: str, key: str, help_text: str) -> bool:
    """Whether ``front``, as a user meets it, offers the table's option ``key``."""
    option = BY_KEY[key]
    if front == "cli":
        return f"--{key.replace('_', '-')}" in _run_options() or option.cli in _run_options()
    if front == "library":
        return key in _fuzz_keywords() or option.library in _fuzz_keywords()
    if front == "plugin":
        # pytest's help wraps lines: the option stands at the start of one.
        return re.search(rf"^\s+{re.escape(option.option)}(\s|=|,|$)", help_text, re.M) is not None
    return key in pytest_options.MARKER_KEYWORDS


@pytest.mark.parametrize("key", [option.key for option in OPTIONS])
def test_each_front_end_offers_each_option_it_claims_or_the_table_says_why_not(
    key: str, plugin_help: str
) -> None:
    option = BY_KEY[key]
    for front in FRONTS:
        offered = _offers(front, key, plugin_help)
        assert offered == option.offered(front), (front, key)
        if offered:
            assert front not in option.missing, f"{key} is offered by {front} and says why not"
        else:
            # A marker keyword of an option the plugin lacks goes with the plugin's reason.
            why = option.missing.get(front) or (front == "marker" and option.missing.get("plugin"))
            assert why, f"{key}: {front} does not say why not"
            assert why.strip(), f"{key}: {front} does not say why not"
    if option.plugin and key not in PLUGIN_ONLY:
        # The ini value too, named in the help.
        assert re.search(rf"^\s+{option.ini}\s", plugin_help, re.M), key


def test_everything_a_front_end_offers_is_in_the_table(plugin_help: str) -> None:
    assert _run_options() - {option.cli for option in OPTIONS} == set()
    assert _fuzz_keywords() - {option.library for option in OPTIONS} == set()
    shown = {
        word.split("=")[0].rstrip(",")
        for line in plugin_help.splitlines()
        for word in line.split()[:1]
        if word.startswith("--compactcheck-")
    }
    assert shown - {option.option for option in OPTIONS if option.plugin} == set()
    assert set(pytest_options.MARKER_KEYWORDS) == {o.key for o in OPTIONS if o.marker}


def test_the_command_line_takes_its_defaults_and_help_from_the_table() -> None:
    parser = argparse.ArgumentParser()
    run.add(parser.add_subparsers())
    [command] = [
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    ]
    by_option = {
        action.option_strings[0]: action
        for action in command.choices["run"]._actions
        if action.option_strings
    }
    for option in OPTIONS:
        if option.cli is None or option.key == "shard":
            continue
        action = by_option[option.cli]
        assert action.help == option.help, option.key
        if not option.flag:
            assert action.default == option.default_for("cli"), option.key


def test_one_default_timeout_for_every_call() -> None:
    # A harness started without a timeout had 10 s, a run's calls 30 s.
    harness = inspect.signature(CommandBackend).parameters["timeout"].default
    library = inspect.signature(compactcheck.fuzz).parameters["timeout"].default
    assert harness == Calls().timeout == library == BY_KEY["timeout"].default


def _fuzz(tmp_path: Path, **keywords: Any) -> Any:
    return compactcheck.fuzz(
        "reference-messages", corpus_dir=tmp_path / "corpus", **{"max_examples": 2, **keywords}
    )


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        # Hypothesis's own InvalidArgument, a traceback deep in the engine, before.
        ({"max_examples": 0}, "fuzz(max_examples=0): expected a number of at least 1, found 0"),
        # Ran, before, as if nothing was said.
        ({"rounds": 0}, "fuzz(rounds=0): expected a number of at least 1, found 0"),
        ({"min_exercised": -1}, "fuzz(min_exercised=-1): expected a number of at least 0"),
        ({"in_process": "yes"}, "fuzz(in_process='yes'): expected True or False, found 'yes'"),
        (
            {"transcripts": TRANSCRIPT, "malformed": ["late-results"]},
            "transcripts and malformed: a transcript is what it is",
        ),
        ({"view": "session", "transcripts": TRANSCRIPT}, "transcripts feeds the messages view"),
    ],
)
def test_fuzz_checks_its_keywords_as_run_checks_its_options(
    tmp_path: Path, keywords: dict[str, Any], message: str
) -> None:
    with pytest.raises(CompactcheckError) as raised:
        _fuzz(tmp_path, **keywords)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_fuzz_explores_for_coverage_as_run_does(tmp_path: Path) -> None:
    calls: list[int] = []

    def keep(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        calls.append(1)
        return messages

    compactcheck.fuzz(
        keep,
        max_examples=3,
        rounds=1,
        min_exercised=50,
        max_total_examples=7,
        corpus_dir=tmp_path / "corpus",
    )
    # Past max_examples, to exercise every law, and no further than the cap.
    assert 3 < len(calls) <= 7


def test_fuzz_writes_the_reports_run_writes(tmp_path: Path) -> None:
    paths = {name: tmp_path / f"report.{name}" for name in ("json", "junit", "markdown", "html")}
    report = _fuzz(tmp_path, **paths)
    for name, path in paths.items():
        assert "reference-messages" in path.read_text(), name
    assert report.targets[0].target == "reference-messages"


def test_fuzz_names_an_unreachable_shared_database_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pytest.importorskip("redis", reason="the redis package is not installed (dev extra)")
    with pytest.raises(CompactcheckError) as raised:
        _fuzz(tmp_path, redis=f"redis://127.0.0.1:{port}/0")
    assert f"127.0.0.1:{port}" in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("cli", "--shard 2/3 needs --seed S"),
        ("plugin", "--compactcheck-shard 2/3 needs --compactcheck-seed S"),
    ],
)
def test_the_rules_speak_each_front_ends_spelling(front: Any, expected: str) -> None:
    values = {"shard": Shard(2, 3), "seed": None, "profile": "dev"}
    with pytest.raises(OptionError, match=expected):
        check_together(values, front)
    # A fixed seed, or the ci profile's, is shared by the shards.
    check_together({**values, "seed": 4}, front)
    check_together({**values, "profile": "ci"}, front)


def test_a_cap_of_zero_model_calls_without_a_model_is_refused() -> None:
    values = {"model": None, "max_model_calls": 0}
    with pytest.raises(OptionError, match="--max-model-calls: needs a model"):
        check_together(values, "cli")


def test_an_empty_choice_of_laws_is_refused_by_every_front_end(tmp_path: Path) -> None:
    """An empty --invariants used to leave the call law alone: a run that judged nothing else
    and passed. Each front end refuses it in one line, in its own spelling."""
    done = cli("run", "reference-messages", "--invariants", "", "--max-examples", "3", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--invariants: expected one or more law ids (a,b,c), found none" in done.stderr
    with pytest.raises(CompactcheckError, match="invariants: expected one or more law ids"):
        compactcheck.fuzz("reference-messages", invariants=[], max_examples=3)
    (tmp_path / "test_empty.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.compactcheck("reference-messages", view="messages", invariants=[])\n'
        "def test_reference(compactcheck_law):\n"
        "    compactcheck_law.check()\n"
    )
    marked = pytest_in(tmp_path, "--compactcheck-max-examples", "3", "test_empty.py")
    assert marked.returncode != 0, marked.stdout[-2000:]
    assert "expected one or more law ids" in marked.stdout + marked.stderr, marked.stdout[-2000:]
