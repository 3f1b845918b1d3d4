"""The model options on the command line: bad input is one line and exit 2, never a traceback."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from compactcheck.base.errors import ExitCode
from compactcheck.cli import main

# The model is read once the target is: these cases need the summariser's extra installed.
LANGCHAIN = pytest.mark.skipif(
    importlib.util.find_spec("langchain") is None, reason="needs the 'langchain' extra"
)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--model", "gpt-4"], "unknown model; expected echo, paraphrase, lossy"),
        (["--offline"], "--offline: needs a model to apply to; name it with --model"),
        (["--max-model-calls", "3"], "--max-model-calls: needs a model"),
        (["--max-model-calls", "-1", "--model", "echo"], "at least 0"),
        pytest.param(
            ["--model", "py:missing.py:model"],
            "--model py:missing.py:model: no file missing.py",
            marks=LANGCHAIN,
        ),
        pytest.param(
            ["--model", "openai:gpt-test"],
            "openai:gpt-test: needs an API key in $OPENAI_API_KEY",
            marks=LANGCHAIN,
        ),
        pytest.param(
            ["--model", "anthropic:c"],
            "anthropic:c: needs an API key in $ANTHROPIC_API_KEY",
            marks=LANGCHAIN,
        ),
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


@LANGCHAIN
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


MIDDLEWARE = "langchain:summarization-middleware"

# A model of the user's own (py:), which writes a line per call it answers to calls.log beside
# it: the count of what was sent, whatever process sent it. It echoes its request, except the
# first time it sees one: then it forgets everything, as a model having a bad draw would.
MOODY = """
import os
from pathlib import Path

LOG = Path(__file__).with_name("calls.log")


class Moody:
    name = "py:moody"

    def __init__(self):
        self.seen = set()

    def answer(self, request):
        with LOG.open("a") as log:
            log.write(f"{os.getpid()}\\n")
        first = request.key() not in self.seen
        self.seen.add(request.key())
        return "The agent talked for a while." if first else request.text()


model = Moody()
"""


def _model_run(tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """A run of the middleware with ``extra`` options; its exit code and JSON report's target."""
    (tmp_path / "moody.py").write_text(MOODY)
    json_path = tmp_path / "report.json"
    json_path.unlink(missing_ok=True)
    code = main(
        [
            "run",
            MIDDLEWARE,
            "--max-examples",
            "6",
            "--seed",
            "4",
            "--json",
            str(json_path),
            *extra,
        ]
    )
    [target] = json.loads(json_path.read_text())["targets"]
    return code, target


def _sent(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().split() if log.exists() else []


def test_a_token_cap_refuses_once_reached_and_says_its_tokens_are_estimated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    code, target = _model_run(
        tmp_path, "--model", "paraphrase", "--max-model-tokens", "1", "--no-shrink"
    )
    capsys.readouterr()
    calls = target["model_calls"]
    # The first call may start (0 tokens used); its answer reaches the cap, and no call after.
    assert (calls["made"], calls["token_cap"], calls["tokens_estimated"]) == (1, 1, True)
    assert calls["tokens"] > 1
    assert calls["refused"] > 0
    assert calls["reason"] == f"model token cap of 1 reached ({calls['tokens']} tokens used)"
    # Inconclusive, or failed where the middleware summarised without its model (see above).
    assert code in (ExitCode.INCONCLUSIVE, ExitCode.FAILED)
    assert "pass" not in {result["verdict"] for result in target["results"]}
    [line] = [error for error in target["errors"] if "model token cap of 1 reached" in error]
    assert "(estimated: characters/4)" in line
    assert "raise --max-model-tokens" in line


def test_the_call_cap_holds_for_the_whole_run_across_worker_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    code, target = _model_run(
        tmp_path,
        "--model",
        f"py:{tmp_path / 'moody.py'}:model",
        "--max-model-calls",
        "5",
        "--workers",
        "2",
        "--no-shrink",
    )
    capsys.readouterr()
    # Each of the two shards asks for more than five calls: five were sent in all, from
    # whichever worker asked first, not five from each.
    assert len(_sent(tmp_path)) == 5
    calls = target["model_calls"]
    assert (calls["made"], calls["cap"]) == (5, 5)
    assert calls["reason"] == "model call cap of 5 reached"
    assert code in (ExitCode.INCONCLUSIVE, ExitCode.FAILED)
    assert "pass" not in {result["verdict"] for result in target["results"]}


def test_re_runs_ask_a_live_model_again_and_offline_judge_recorded_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    moody = ("--model", f"py:{tmp_path / 'moody.py'}:model")
    code, live = _model_run(tmp_path, *moody)
    sent = len(_sent(tmp_path))
    assert code == ExitCode.FAILED
    found = {r["invariant"]: r["counterexample"] for r in live["results"] if r["counterexample"]}
    assert "goal_preserved" in found
    # Asked again, the model keeps the goal it lost the first time: the finding is flaky.
    assert found["goal_preserved"]["reproduced"] == "flaky"
    assert live["model_calls"]["reruns"] == "live"
    assert live["model_calls"]["made"] == sent

    # The same run from the cache alone: the re-runs replay the recorded answer, and say so.
    code, offline = _model_run(tmp_path, *moody, "--offline")
    out = capsys.readouterr().out
    assert len(_sent(tmp_path)) == sent
    assert offline["model_calls"]["made"] == 0
    replayed = {
        r["invariant"]: r["counterexample"] for r in offline["results"] if r["counterexample"]
    }
    assert replayed["goal_preserved"]["reproduced"] == "deterministic"
    assert offline["model_calls"]["reruns"] == "recorded"
    assert "flakiness judged on recorded answers" in " ".join(out.split())


def test_with_a_model_the_corpus_is_judged_first_from_recorded_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    moody = ("--model", f"py:{tmp_path / 'moody.py'}:model")
    _, first = _model_run(tmp_path, *moody)
    witnesses = {
        r["invariant"]: r["counterexample"] for r in first["results"] if r["counterexample"]
    }
    entries = {law: found["corpus_file"] for law, found in witnesses.items()}
    assert "goal_preserved" in entries
    sent = len(_sent(tmp_path))

    # Another seed and not one call to spend: only the corpus, replayed from the cache, can
    # find anything, and it finds every recorded failure again, as its shrunk witness.
    code, again = _model_run(tmp_path, *moody, "--seed", "5", "--max-model-calls", "0")
    capsys.readouterr()
    assert len(_sent(tmp_path)) == sent
    calls = again["model_calls"]
    assert calls["made"] == 0
    assert calls["replayed"] >= len(entries)
    assert calls["refused"] > 0
    assert code == ExitCode.FAILED
    found = {r["invariant"]: r["counterexample"] for r in again["results"] if r["counterexample"]}
    assert {law: found[law]["corpus_file"] for law in entries} == entries
    assert {law: found[law]["witness"] for law in entries} == {
        law: witnesses[law]["witness"] for law in entries
    }
    for path in entries.values():
        assert json.loads(Path(path).read_text())["shrunk"] is True


def test_smoke_takes_a_model_and_says_what_it_spent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    monkeypatch.chdir(tmp_path)
    assert main(["smoke", MIDDLEWARE, "--model", "paraphrase"]) == ExitCode.OK
    out = " ".join(capsys.readouterr().out.split())
    assert "messages: compacted" in out
    assert "model paraphrase: 1 made, 0 replayed" in out
    assert "tokens (estimated: characters/4)" in out
    # No call left: the round is skipped, and smoke says why.
    assert main(["smoke", MIDDLEWARE, "--model", "paraphrase", "--max-model-calls", "0"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "messages: skipped (paraphrase: model call cap of 0 reached)" in out
