"""The model options on the command line: bad input is one line and exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.cli import main
from compactcheck.errors import ExitCode


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--model", "gpt-4"], "unknown model; expected echo, paraphrase, lossy"),
        (["--offline"], "--offline: needs a model to apply to; name it with --model"),
        (["--max-model-calls", "3"], "--max-model-calls: needs a model"),
        (["--max-model-calls", "-1", "--model", "echo"], "at least 0"),
        (["--model", "py:missing.py:model"], "--model py:missing.py:model: no file missing.py"),
        (["--model", "openai:gpt-test"], "openai:gpt-test: needs an API key in $OPENAI_API_KEY"),
        (["--model", "anthropic:c"], "anthropic:c: needs an API key in $ANTHROPIC_API_KEY"),
    ],
)
def test_bad_model_options_are_one_line(
    arguments: list[str],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        code = main(
            ["run", "langchain:summarization-middleware", "--max-examples", "1", *arguments]
        )
    except SystemExit as exit:  # argparse's own errors (compactcheck's Parser: one line, 2)
        code = int(str(exit.code))
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert says in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_py_model_that_is_not_a_model_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("model = 42\n")
    code = main(["run", "langchain:summarization-middleware", "--model", "py:mine.py:model"])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert "expected a Model (name and answer(request)) or a LangChain chat model, found int" in err


def test_offline_a_real_model_needs_no_key_and_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    json_path = tmp_path / "report.json"
    code = main(
        [
            "run",
            "langchain:summarization-middleware",
            "--model",
            "openai:gpt-test",
            "--offline",
            "--max-examples",
            "3",
            "--no-shrink",
            "--seed",
            "1",
            "--json",
            str(json_path),
        ]
    )
    capsys.readouterr()
    # Inconclusive, or failed where the middleware summarised without its model (an empty
    # selection gets a canned line, which loses the goal).
    assert code in (ExitCode.INCONCLUSIVE, ExitCode.FAILED)
    text = json_path.read_text()
    assert "offline and not recorded" in text
    assert '"made": 0' in text
