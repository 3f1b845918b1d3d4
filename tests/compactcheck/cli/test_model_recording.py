"""What is recorded of a model's calls, as the run says it: a model of the user's own (and a real
client) is recorded, a local fake is not, and the model line says which."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.base.errors import ExitCode
from compactcheck.cli import main

MIDDLEWARE = "langchain:summarization-middleware"
NOT_RECORDED = "a local fake: its answers are not recorded"

NOTES = """
class Notes:
    name = "notes"

    def answer(self, request):
        return request.text()


model = Notes()
"""


def _smoke(model: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["smoke", MIDDLEWARE, "--model", model]) == ExitCode.OK
    return " ".join(capsys.readouterr().out.split())


def test_a_fake_is_not_recorded_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    out = _smoke("paraphrase", capsys)
    assert "model paraphrase: 1 made, 0 replayed" in out
    assert NOT_RECORDED in out
    cache = tmp_path / ".compactcheck" / "models"
    assert not cache.exists() or not any(cache.iterdir())


def test_a_model_of_ones_own_is_recorded_and_not_called_a_fake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.py").write_text(NOTES)
    out = _smoke("py:notes.py:model", capsys)
    assert "model notes: 1 made" in out
    assert NOT_RECORDED not in out
    assert list((tmp_path / ".compactcheck" / "models").glob("*.json"))
