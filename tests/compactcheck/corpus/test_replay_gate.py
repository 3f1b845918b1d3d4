"""`compactcheck replay` as a CI gate: every entry replays, and no verdict passes by luck."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

import compactcheck
from compactcheck.base.errors import ExitCode
from compactcheck.corpus.entry import note_reproduced, read_entry
from compactcheck.corpus.replay import FLAKY_TRIES, ReplayResult, replay
from compactcheck.invariants import VIEWS
from compactcheck.invariants.formats import CHAT, FORMATS
from compactcheck.render.listings import replay_table
from compactcheck.verdicts import replay_exit
from tests.compactcheck.commandline import cli

# One mutant of each view and wire format, each of which breaks a law within a few histories;
# among them the format-specific laws of Anthropic, Responses and Gemini.
MUTANTS = (
    "messages-demote-system",
    "anthropic-strip-thinking",
    "responses-drop-reasoning",
    "gemini-drop-parallel-response",
    "session_never_declines",
    "snapshot-shorten-goal",
)


def _view_and_format(path: Path) -> tuple[str, str]:
    entry = read_entry(path)
    recorded = entry.input
    return entry.view, str(recorded.get("format", CHAT)) if entry.view == "messages" else ""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real entries, written by runs of the mutants through the library API.

    Unshrunk: the gate replays an entry as it was written, shrunk or not, and shrinking was
    most of this fixture's time.
    """
    folder = tmp_path_factory.mktemp("project") / "corpus"
    for name in MUTANTS:
        compactcheck.fuzz(
            f"mutant:{name}", max_examples=20, seed=0, corpus_dir=folder, shrink=False
        )
    return folder


def _with_unreadable(corpus: Path, into: Path) -> Path:
    """A copy of ``corpus`` plus an entry of invalid JSON, one that breaks the schema and one
    that names a law no view has."""
    shutil.copytree(corpus, into)
    (into / "broken.json").write_text('{"corpusVersion": 1, "target": ', encoding="utf-8")
    (into / "schema.json").write_text(json.dumps({"corpusVersion": 1, "target": 3}))
    some = json.loads(next(corpus.glob("*.json")).read_text())
    (into / "law.json").write_text(json.dumps({**some, "invariant": "no_such_law"}))
    return into


def test_the_corpus_holds_an_entry_of_every_view_and_format(corpus: Path) -> None:
    kinds = {_view_and_format(path) for path in corpus.glob("*.json")}
    expected = {("messages", format) for format in FORMATS} | {
        (view, "") for view in VIEWS if view != "messages"
    }
    assert kinds == expected


def test_every_entry_replays_and_an_unreadable_one_is_skipped_by_name(
    corpus: Path, tmp_path: Path
) -> None:
    folder = _with_unreadable(corpus, tmp_path / "corpus")
    results = replay(folder)
    assert len(results) == len(list(folder.glob("*.json")))
    by_name = {result.path.name: result for result in results}
    unreadable = ("broken.json", "schema.json", "law.json")
    for name in unreadable:
        assert by_name[name].verdict == "skipped"
        assert name in by_name[name].detail
    assert "no_such_law" in by_name["law.json"].detail
    # Every real entry is judged again by its own law, the format-specific ones included.
    real = [result for name, result in by_name.items() if name not in unreadable]
    assert {result.verdict for result in real} == {"still failing"}
    laws = {result.invariant for result in real}
    assert {"anthropic_thinking_leads_tool_turn", "responses_item_keeps_its_reasoning"} <= laws
    # Something still fails: that decides the gate, the skipped entries notwithstanding.
    assert replay_exit([r.verdict for r in results]) == ExitCode.FAILED


def test_the_laws_of_a_provider_format_replay(corpus: Path) -> None:
    results = replay(corpus)
    assert {result.verdict for result in results} == {"still failing"}
    assert len(results) == len(list(corpus.glob("*.json")))


def test_each_replayed_entry_says_its_format_and_the_table_titles_name_it(corpus: Path) -> None:
    results = replay(corpus)
    for result in results:
        assert (result.view, result.format or "") == _view_and_format(result.path)
    buffer = io.StringIO()
    Console(file=buffer, width=120).print(replay_table(results, 120))
    printed = buffer.getvalue()
    assert "mutant:anthropic-strip-thinking [messages, anthropic]" in printed
    assert "mutant:messages-demote-system [messages]" in printed


def test_the_command_at_80_columns_breaks_no_target_name_or_law_id(
    corpus: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    # Entries whose replay has always worked, so that only the table is tested here.
    for entry_file in corpus.glob("*.json"):
        if _view_and_format(entry_file)[1] in ("", CHAT):
            shutil.copy(entry_file, folder)
    done = cli("replay", str(folder), cwd=tmp_path, columns=80)
    assert done.returncode == ExitCode.FAILED, done.stderr
    lines = done.stdout.splitlines()
    for path in folder.glob("*.json"):
        entry = read_entry(path)
        assert any(entry.target in line for line in lines), entry.target
        assert any(f" {entry.invariant} " in line for line in lines), entry.invariant


def test_skipped_entries_alone_make_the_replay_inconclusive(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "broken.json").write_text("not json", encoding="utf-8")
    [result] = replay(folder)
    assert result.verdict == "skipped"
    assert replay_exit([result.verdict]) == ExitCode.INCONCLUSIVE


def test_the_command_gives_a_row_per_entry_at_80_columns_and_breaks_no_name(
    corpus: Path, tmp_path: Path
) -> None:
    folder = _with_unreadable(corpus, tmp_path / "corpus")
    done = cli("replay", str(folder), cwd=tmp_path, columns=80)
    assert done.returncode == ExitCode.FAILED, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text()) if path.name != "broken.json" else {}
        if path.name in ("broken.json", "schema.json", "law.json"):
            continue
        # The target name (a title) and the law id are whole on one line each.
        assert any(data["target"] in line for line in lines), data["target"]
        assert any(f" {data['invariant']} " in line for line in lines), data["invariant"]
    assert sum("STILL FAILING" in line for line in lines) == len(list(folder.glob("*.json"))) - 3
    assert sum("SKIPPED" in line for line in lines) == 3


# A compactor that drops the last message (the goal stays), except that while a flag file
# exists it keeps the last message only, once, and removes the flag: a failure that does not
# recur.
ONCE = """
from pathlib import Path

FLAG = Path(__file__).with_name("flag")


def compact(messages):
    if len(messages) < 4:
        return messages
    if FLAG.exists():
        FLAG.unlink()
        return messages[-1:]
    return messages[:-1]
"""


def _flaky_entry(project: Path) -> Path:
    """An entry of a failure that its run's re-runs did not see again."""
    (project / "pyproject.toml").write_text("")
    (project / "once.py").write_text(ONCE)
    (project / "flag").write_text("")
    report = compactcheck.fuzz(
        f"py:{project / 'once.py'}:compact",
        max_examples=10,
        seed=0,
        invariants=["goal_preserved"],
        corpus_dir=project / "corpus",
        in_process=True,
    )
    [result] = [r for r in report.targets[0].results if r.invariant == "goal_preserved"]
    assert result.counterexample is not None
    assert result.counterexample.reproduced == "flaky"
    assert result.counterexample.corpus_file is not None
    return Path(result.counterexample.corpus_file)


def test_a_flaky_finding_is_kept_as_such_and_never_replays_as_fixed(tmp_path: Path) -> None:
    path = _flaky_entry(tmp_path)
    assert read_entry(path).reproduced == "flaky"
    [result] = replay(path)
    assert result.verdict == "not reproduced"
    assert f"not reproduced in {FLAKY_TRIES} tries" in result.detail
    # A gate does not pass by luck.
    assert replay_exit([result.verdict]) == ExitCode.INCONCLUSIVE


def test_a_flaky_finding_that_recurs_in_one_try_of_many_still_fails(tmp_path: Path) -> None:
    path = _flaky_entry(tmp_path)
    (tmp_path / "flag").write_text("")
    [result] = replay(path)
    assert result.verdict == "still failing"
    assert f"failed in 1 of {FLAKY_TRIES} tries" in result.detail


@pytest.mark.parametrize("reproduced", ["deterministic", "flaky"])
def test_a_target_that_no_longer_compacts_the_history_is_not_called_fixed(
    corpus: Path, tmp_path: Path, reproduced: str
) -> None:
    (tmp_path / "same.py").write_text("def compact(messages):\n    return messages\n")
    [source] = corpus.glob("*messages-demote-system*constraints_preserved*.json")
    data = json.loads(source.read_text())
    entry = tmp_path / "entry.json"
    target = f"py:{tmp_path / 'same.py'}:compact"
    entry.write_text(json.dumps({**data, "target": target, "reproduced": reproduced}))
    [result] = replay(entry)
    assert result.verdict == "not judged"
    assert "no longer compacts this history" in result.detail
    assert replay_exit([result.verdict]) == ExitCode.INCONCLUSIVE


def test_an_entry_written_before_the_classification_still_loads(corpus: Path) -> None:
    path = next(corpus.glob("*.json"))
    data = json.loads(path.read_text())
    data.pop("reproduced", None)
    path.with_name("old.json").write_text(json.dumps(data))
    assert read_entry(path.with_name("old.json")).reproduced is None
    path.with_name("old.json").unlink()


def test_a_fixed_entry_passes_the_gate() -> None:
    fixed = ReplayResult(Path("e.json"), "t", "messages", "goal_preserved", "fixed", "holds")
    assert replay_exit([fixed.verdict]) == ExitCode.OK


def test_an_entry_once_found_flaky_stays_flaky(corpus: Path, tmp_path: Path) -> None:
    path = tmp_path / "entry.json"
    shutil.copy(next(corpus.glob("*.json")), path)
    note_reproduced(path, "flaky")
    # A later run of a campaign that keeps this entry saw it break three times out of three.
    note_reproduced(path, "deterministic")
    assert read_entry(path).reproduced == "flaky"
