"""The pytest plugin as a user runs it: pytest in a subprocess on a module using the marker."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.compactcheck.commandline import failure_reports, load, pytest_in

TESTS = """
import pytest


@pytest.mark.compactcheck("mutant:messages-drop-user-turns", view="messages")
def test_mutant(compactcheck_law):
    compactcheck_law.check()
"""


def pytest_run(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_selection.py").write_text(TESTS)
    return pytest_in(folder, "--compactcheck-max-examples", "10", *options, "test_selection.py")


def test_an_unknown_invariant_id_is_a_usage_error_not_zero_tests(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, "--compactcheck-invariants", "user_turn_presnt")
    # pytest's usage error: nothing ran, and the message names the typo and what is known.
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "unknown invariant(s) user_turn_presnt" in done.stderr
    assert "user_turn_present" in done.stderr


def test_a_selection_gives_its_laws_and_the_call_law(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, "--compactcheck-invariants", "user_turn_present", "-rA")
    # The mutant breaks user_turn_present: one failure; its calls all answered: one pass.
    assert done.returncode == 1, done.stdout[-2000:]
    assert "1 failed, 1 passed" in done.stdout
    assert "messages-call_answered" in done.stdout


FORMAT_TESTS = """
import pytest


@pytest.mark.compactcheck("reference-messages", view="messages", format="gemini")
def test_reference(compactcheck_law):
    compactcheck_law.check()


@pytest.mark.compactcheck("mutant:gemini-strip-signatures", view="messages")
def test_mutant(compactcheck_law):
    compactcheck_law.check()
"""


def test_a_format_gives_its_structural_laws_and_a_mutant_speaks_its_own(tmp_path: Path) -> None:
    (tmp_path / "test_formats.py").write_text(FORMAT_TESTS)
    done = pytest_in(
        tmp_path,
        "--compactcheck-max-examples",
        "40",
        "--compactcheck-invariants",
        "gemini_thought_signature_kept,tool_pairing",
        "-rA",
        "test_formats.py",
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    # The reference keeps both laws (and answers every call); the mutant breaks the Gemini law.
    assert "PASSED test_formats.py::test_reference[reference-messages-messages-gemini_thought" in (
        done.stdout
    )
    assert (
        "FAILED test_formats.py::test_mutant[mutant:gemini-strip-signatures-messages-gemini_"
        in (done.stdout)
    )
    assert "1 failed, 5 passed" in done.stdout


MODEL_TESTS = """
import pytest


@pytest.mark.compactcheck("langchain:summarization-middleware", view="messages")
def test_summariser(compactcheck_law):
    compactcheck_law.check()
"""


def test_the_model_is_named_by_an_ini_value_or_an_option(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents.middleware.summarization")
    (tmp_path / "test_model.py").write_text(MODEL_TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\ncompactcheck_model = paraphrase\n")
    report = tmp_path / "report.json"
    options = ("--compactcheck-max-examples", "3", "--compactcheck-invariants", "tool_pairing")
    done = pytest_in(tmp_path, *options, "--compactcheck-json", str(report), "test_model.py")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    [target] = load(report).targets
    assert target.model_calls is not None
    assert target.model_calls.model == "paraphrase"
    assert target.model_calls.made > 0

    # The option wins over the ini value; no call to spend leaves the laws unjudged (skipped).
    done = pytest_in(
        tmp_path,
        *options,
        "--compactcheck-model",
        "lossy",
        "--compactcheck-max-model-calls",
        "0",
        "--compactcheck-json",
        str(report),
        "-rs",
        "test_model.py",
    )
    assert "model call cap of 0 reached" in done.stdout, done.stdout[-3000:]
    [target] = load(report).targets
    assert target.model_calls is not None
    assert (target.model_calls.model, target.model_calls.made) == ("lossy", 0)


def test_an_unknown_model_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_model.py").write_text(MODEL_TESTS)
    done = pytest_in(tmp_path, "--compactcheck-model", "gpt-4", "test_model.py")
    assert done.returncode == 4
    assert "--compactcheck-model: --model 'gpt-4': unknown model" in done.stderr


def test_the_model_caps_hold_for_the_session_across_xdist_workers(tmp_path: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")
    pytest.importorskip("langchain.agents.middleware.summarization")
    from tests.compactcheck.cli.test_model_options import MOODY

    (tmp_path / "test_model.py").write_text(MODEL_TESTS)
    (tmp_path / "moody.py").write_text(MOODY)
    report = tmp_path / "report.json"
    done = pytest_in(
        tmp_path,
        "-n",
        "2",
        "--compactcheck-shards",
        "2",
        "--compactcheck-max-examples",
        "6",
        "--compactcheck-invariants",
        "tool_pairing",
        "--compactcheck-model",
        f"py:{tmp_path / 'moody.py'}:model",
        "--compactcheck-max-model-calls",
        "5",
        "--compactcheck-json",
        str(report),
        "test_model.py",
    )
    # Which tests pass and which are skipped (unjudged) depends on which worker asked first.
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # Each shard asks for more than five calls: five were sent by the two workers together.
    assert len((tmp_path / "calls.log").read_text().split()) == 5
    [target] = load(report).targets
    assert target.model_calls is not None
    assert target.model_calls.cap == 5
    assert target.model_calls.reason == "model call cap of 5 reached"


def test_a_corpus_entry_that_cannot_be_written_is_said_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("a file, not a folder")
    done = pytest_run(
        tmp_path,
        "--compactcheck-invariants",
        "user_turn_present",
        "--compactcheck-corpus",
        "blocked/corpus",
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr
    shown = failure_reports(done.stdout).splitlines()
    said = [line for line in shown if line.startswith("not written: ")]
    assert len(said) == 1, done.stdout[-3000:]
    assert "the corpus entry of user_turn_present: " in said[0]
    assert "Not a directory" in said[0]
    # No replay command for an entry that is not there.
    assert "replay: " not in done.stdout


def test_a_law_broken_in_two_ways_fails_showing_each_way_and_its_entry(tmp_path: Path) -> None:
    from tests.compactcheck.engine.test_ways import TWO_WAYS

    (tmp_path / "two.py").write_text(TWO_WAYS)
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.compactcheck("py:two.py:compact", seed=2, max_examples=20)\n'
        "def test_two(compactcheck_law):\n"
        "    compactcheck_law.check()\n"
    )
    done = pytest_in(tmp_path, "--compactcheck-invariants", "constraints_preserved", "test_two.py")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    # Each way with its own witness and corpus entry, as the CLI shows them.
    assert "way 1 of 2 (system" in done.stdout, done.stdout[-4000:]
    assert "way 2 of 2 (system" in done.stdout, done.stdout[-4000:]
    assert failure_reports(done.stdout).count("corpus file: ") == 2, done.stdout[-4000:]
