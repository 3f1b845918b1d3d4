"""What a user meets on a slip: a typo, facts of the wrong kind, a bad file, the file modes."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

SYSTEM = {"role": "system", "content": "Be terse."}
GOOD = [SYSTEM, {"role": "user", "content": "Fix AUTH-1"}, {"role": "assistant", "content": "ok"}]


def cli(*arguments: str, cwd: Path, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
        umask=umask,
        check=False,
    )


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("compactcheck: error: ")
    return line


@pytest.mark.parametrize(
    ("arguments", "meant"),
    [
        (["rnu", "reference"], "did you mean run?"),
        (["run", "reference", "--max-exampels", "3"], "did you mean --max-examples?"),
        (["run", "reference", "--format", "anthropik"], "did you mean anthropic?"),
        (["check", "a", "b", "--exclude-invarants=x"], "did you mean --exclude-invariants?"),
        (["invariants", "--veiw", "messages"], "did you mean --view?"),
        (["--verison"], "unrecognized arguments: --verison; did you mean --version?"),
    ],
)
def test_a_misspelled_command_or_option_is_named_with_what_was_meant(
    tmp_path: Path, arguments: list[str], meant: str
) -> None:
    assert meant in _one_error_line(cli(*arguments, cwd=tmp_path))


def test_a_misspelled_law_id_is_answered_with_the_id_first(tmp_path: Path) -> None:
    # Alphabetically last of a long list (every format's laws): before, the line was cut
    # before it.
    done = cli(
        "run", "reference-messages", "--format", "anthropic", "--invariants",
        "user_turn_presnt", cwd=tmp_path,
    )  # fmt: skip
    line = _one_error_line(done)
    assert "did you mean user_turn_present? known: user_turn_present, " in line


def test_facts_of_the_wrong_kind_say_what_is_expected(tmp_path: Path) -> None:
    (tmp_path / "pair.json").write_text(json.dumps(GOOD))
    done = cli("check", "pair.json", "pair.json", "--facts", '{"must_keep": "3306"}', cwd=tmp_path)
    line = _one_error_line(done)
    assert 'must_keep: expected a list, found "3306"' in line
    assert "--facts" in line
    unknown = _one_error_line(
        cli("check", "pair.json", "pair.json", "--facts", '{"mustkeep": []}', cwd=tmp_path)
    )
    assert "mustkeep is not a field of facts" in unknown


@pytest.mark.parametrize("side", ["BEFORE", "AFTER"])
def test_an_invalid_side_of_check_is_named_with_its_file(tmp_path: Path, side: str) -> None:
    (tmp_path / "good.json").write_text(json.dumps(GOOD))
    bad = [SYSTEM, {"role": "user", "content": "Fix AUTH-1"}, {"role": "assistant", "content": 3}]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    files = ["bad.json", "good.json"] if side == "BEFORE" else ["good.json", "bad.json"]
    line = _one_error_line(cli("check", *files, "--format", "openai-chat", cwd=tmp_path))
    assert f"error: {side} bad.json: not valid openai-chat data: 2.assistant.content" in line


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_report_and_corpus_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    done = cli(
        "run", "mutant:messages-keep-last-n", "--max-examples", "5", "--seed", "0",
        "--min-exercised", "0", "--no-shrink", "--corpus", "corpus", "--json", "report.json",
        "--html", "report.html", cwd=tmp_path, umask=umask,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    written = [tmp_path / "report.json", tmp_path / "report.html"]
    written += list((tmp_path / "corpus").glob("*.json"))
    assert len(written) > 2
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


def test_replaying_a_file_that_is_not_a_corpus_entry_is_bad_input(tmp_path: Path) -> None:
    named = tmp_path / "report.json"
    named.write_text(json.dumps({"targets": []}))
    line = _one_error_line(cli("replay", str(named), cwd=tmp_path))
    assert str(named) in line
    assert "corpus entry" in line


def test_a_broken_file_in_a_corpus_folder_keeps_its_row(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "broken.json").write_text("{not json")
    done = cli("replay", str(corpus), cwd=tmp_path)
    # Nothing could say "fixed": inconclusive, with the file's row in the table.
    assert done.returncode == 3, done.stdout + done.stderr
    assert "entries that cannot be read" in done.stdout
    assert "SKIPPED" in done.stdout
