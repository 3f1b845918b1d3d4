"""Recorded transcripts as seeds: every importer, whole runs first, shrunk pieces, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.invariants import dump_messages
from compactcheck.observed.transcripts import (
    IMPORTERS,
    TranscriptError,
    load_transcript,
    load_transcripts,
    whole,
)
from compactcheck.reference_engine.messages import reference_messages

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "examples" / "transcripts"


def test_every_importer_reads_its_shipped_transcript_to_the_same_conversation() -> None:
    transcripts = load_transcripts(SHIPPED)
    assert {t.source for t in transcripts} == set(IMPORTERS)
    chat = load_transcript(SHIPPED / "openai-chat.json")
    expected = dump_messages(chat.messages)
    assert len(expected) == 25
    assert chat.turns == 4
    for transcript in transcripts:
        # Claude Code's log holds no system prompt; everything else is the same conversation.
        start = 1 if transcript.source == "claude-code" else 0
        read = dump_messages(transcript.messages)
        assert [m["role"] for m in read] == [m["role"] for m in expected[start:]], transcript.name
        assert [m.get("content") for m in read if m["role"] == "user"] == [
            m["content"] for m in expected if m["role"] == "user"
        ], transcript.name
        assert transcript.turns == 4


def test_a_piece_keeps_the_system_head_and_whole_turns() -> None:
    transcript = load_transcript(SHIPPED / "openai-chat.json")
    rounds = whole(transcript).rounds()
    assert len(rounds) == 1
    assert len(rounds[0]) == 25


def _recording(sizes: list[int]) -> Any:
    compact = reference_messages(max_messages=6)

    def recorded(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        sizes.append(len(messages))
        answer: list[dict[str, Any]] = compact(messages)
        return answer

    return recorded


def test_a_faithful_compactor_passes_on_transcripts_each_run_whole_first(tmp_path: Path) -> None:
    sizes: list[int] = []
    report = compactcheck.fuzz(
        _recording(sizes),
        transcripts=SHIPPED,
        max_examples=40,
        seed=0,
        corpus_dir=tmp_path,
    )
    target = report.targets[0]
    assert target.view == "messages"
    assert target.inferred_facts == ["goal", "constraints", "must_keep"]
    verdicts = {r.invariant: r.verdict for r in target.results}
    assert "violation" not in verdicts.values(), verdicts
    assert verdicts["tool_pairing"] == "pass"
    assert verdicts["facts_preserved"] == "pass"
    # The seven transcripts whole, as recorded, before any piece: 25 messages (24 for Claude
    # Code, which logs no system prompt).
    assert sorted(sizes[:7]) == [24, 25, 25, 25, 25, 25, 25]
    assert min(sizes) < 24


def _forgets_the_goal(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keeps the system messages and the last three messages: the goal goes."""
    head = [m for m in messages if m["role"] == "system"]
    return [*head, *messages[-3:]] if len(messages) > len(head) + 3 else list(messages)


def test_a_failure_is_shrunk_to_a_small_piece_of_a_transcript(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        _forgets_the_goal,
        transcripts=SHIPPED / "openai-chat.json",
        max_examples=60,
        seed=0,
        corpus_dir=tmp_path,
    )
    result = next(r for r in report.targets[0].results if r.invariant == "goal_preserved")
    assert result.verdict == "violation"
    assert result.counterexample is not None
    # One turn of the transcript (its first: a system message, the goal, two tool loops and
    # the answer), not the 25 messages recorded.
    assert result.counterexample.history_size <= 8
    handed: Any = result.counterexample.input
    assert handed["messages"][1]["content"].startswith("The cart total is wrong")


def test_bad_transcripts_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "odd.json").write_text(json.dumps({"something": 1}), encoding="utf-8")
    with pytest.raises(TranscriptError, match="not a transcript compactcheck reads"):
        load_transcript(tmp_path / "odd.json")
    (tmp_path / "broken.jsonl").write_text('{"type": "user"}\nnot json\n', encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"broken.jsonl:2: not JSON"):
        load_transcript(tmp_path / "broken.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "compactcheck", "run", "reference-messages", "--transcripts",
         str(tmp_path / "odd.json"), "--profile", "ci"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "not a transcript compactcheck reads" in done.stderr
    view = subprocess.run(
        [sys.executable, "-m", "compactcheck", "run", "reference", "--view", "snapshot",
         "--transcripts", str(SHIPPED), "--profile", "ci"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert view.returncode == 2
    assert "--transcripts feeds the messages view" in view.stderr
