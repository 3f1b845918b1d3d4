"""A run on transcripts that lack what a law judges says so, and names the ids to exclude."""

from __future__ import annotations

import json
from pathlib import Path

import compactcheck
from compactcheck.report.model import COVERAGE_PREFIX
from compactcheck.verdicts import report_exit
from tests.compactcheck.commandline import cli, load

ROOT = Path(__file__).resolve().parents[3]


def _plain_transcript(folder: Path) -> Path:
    """A long chat with no tool call and nothing to infer a fact from."""
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are helpful."}]
    for turn in range(30):
        messages.append({"role": "user", "content": f"hello {turn} " + "blah " * 100})
        messages.append({"role": "assistant", "content": f"hi there {turn} " + "ok " * 100})
    (folder / "plain.json").write_text(json.dumps(messages))
    return folder


def test_laws_the_transcripts_cannot_exercise_are_named_with_the_exclusion(
    tmp_path: Path,
) -> None:
    (tmp_path / "transcripts").mkdir()
    transcripts = _plain_transcript(tmp_path / "transcripts")
    report = compactcheck.fuzz(
        "reference-messages",
        transcripts=transcripts,
        max_examples=20,
        corpus_dir=tmp_path / "corpus",
    )
    target = report.targets[0]
    verdicts = {r.invariant: r.verdict for r in target.results}
    assert verdicts["facts_preserved"] == "unknown"
    assert verdicts["tool_pairing"] == "unknown"
    [coverage] = [e for e in target.errors if e.startswith(COVERAGE_PREFIX)]
    assert "could not be exercised by the given transcripts" in coverage
    assert "more examples cannot change that" in coverage
    # No tool call, so no tool result to prune either; no constraint, so none to weaken.
    unexercised = "tool_pairing,tool_results_unpruned,facts_preserved,constraints_not_weakened"
    assert coverage.endswith(f"--exclude-invariants {unexercised}")
    # A larger example count is not what the line suggests.
    assert "--max-total-examples" not in coverage

    excluded = compactcheck.fuzz(
        "reference-messages",
        transcripts=transcripts,
        max_examples=20,
        exclude=unexercised.split(","),
        corpus_dir=tmp_path / "corpus",
    )
    assert excluded.targets[0].errors == []
    assert report_exit(excluded) == 0


def test_a_format_law_of_thinking_blocks_on_the_shipped_transcripts(tmp_path: Path) -> None:
    done = cli(
        "run",
        "reference-messages",
        "--transcripts",
        str(ROOT / "examples" / "transcripts"),
        "--format",
        "anthropic",
        "--max-examples",
        "10",
        "--seed",
        "0",
        "--corpus",
        str(tmp_path / "corpus"),
        "--json",
        str(tmp_path / "report.json"),
        cwd=tmp_path,
        columns=80,
    )
    assert done.returncode == 3, done.stderr
    target = load(tmp_path / "report.json").targets[0]
    [coverage] = [e for e in target.errors if e.startswith(COVERAGE_PREFIX)]
    assert "anthropic_thinking_unmodified" in coverage
    assert "could not be exercised by the given transcripts" in coverage
    assert "--max-total-examples" not in coverage
    # The console shows the whole line, ids to exclude included, at 80 columns.
    console = "".join(line.strip("│ ") for line in done.stdout.splitlines() if line.startswith("│"))
    assert "anthropic_opaque_blocks_carried" in console.split("--exclude-invariants")[-1]
