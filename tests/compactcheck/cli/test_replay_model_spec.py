"""A corpus entry keeps the --model that loads its model (py:FILE.py:NAME), so that replay
reopens it unasked; an entry that names the model by its own name, or whose model file is gone,
is one line saying what to pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactcheck.base.errors import ExitCode
from compactcheck.cli import main
from compactcheck.corpus.replay import ModelTerms, ReplayResult, replay_entries

MIDDLEWARE = "langchain:summarization-middleware"
SPEC = "py:notes.py:model"

# A model of the user's own whose name ("notes") is not the spec that loads it, and whose
# summaries forget the task: the middleware breaks goal preservation with it.
NOTES = """
class Notes:
    name = "notes"

    def answer(self, request):
        return "The agent talked for a while."


model = Notes()
"""


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The entries of a run of the middleware with the py: model, from ``tmp_path``."""
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.py").write_text(NOTES)
    code = main(["run", MIDDLEWARE, "--model", SPEC, "--max-examples", "6", "--seed", "4"])
    assert code == ExitCode.FAILED
    entries = sorted((tmp_path / ".compactcheck" / "corpus").glob("*.json"))
    assert entries
    return entries


def _replayed(entries: list[Path], model: str | None = None) -> list[ReplayResult]:
    return replay_entries(entries, models=ModelTerms(name=model, offline=True))


def test_an_entry_names_the_spec_and_replay_reopens_it(
    corpus: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert {json.loads(path.read_text())["model"] for path in corpus} == {SPEC}
    capsys.readouterr()
    code = main(["replay", ".compactcheck/corpus", "--offline"])
    out = capsys.readouterr().out
    assert "unknown model" not in out
    assert "STILL FAILING" in out
    assert code == ExitCode.FAILED


def test_an_entry_that_names_the_model_by_its_own_name_says_what_to_pass(
    corpus: list[Path],
) -> None:
    for path in corpus:
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "model": "notes"}))
    for result in _replayed(corpus):
        assert result.verdict == "skipped"
        assert "recorded with the model 'notes', which the entry names by the model's own" in (
            result.detail
        )
        assert "--model py:FILE.py:NAME" in result.detail
    # Named, it replays: its answers are recorded under the model's own name.
    assert {result.verdict for result in _replayed(corpus, SPEC)} == {"still failing"}


def test_a_model_file_that_is_gone_is_named(corpus: list[Path], tmp_path: Path) -> None:
    (tmp_path / "notes.py").unlink()
    for result in _replayed(corpus):
        assert result.verdict == "skipped"
        assert f"recorded with the model {SPEC}, but notes.py is not there" in result.detail
        assert "put the file back" in result.detail


def test_an_entry_replays_from_elsewhere_in_its_project(
    corpus: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert {result.verdict for result in _replayed(corpus)} == {"still failing"}
