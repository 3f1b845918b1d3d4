"""Spec 6.7: the tool-result pruner: config, code-point measure, middle cut, metered rewrites."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants.session import LogViolationError, assert_log_valid, estimate_message
from compactcheck.reference_engine.session import (
    PRUNE_MARKER,
    ConfigError,
    PrunerConfig,
    load_pruner_config,
    measure_content,
    prune_content,
    prune_session,
)
from tests.reference_engine.session.session_script import Script, replay, text


def test_defaults_are_frozen() -> None:
    config = load_pruner_config()
    assert (config.threshold_chars, config.head_chars, config.tail_chars) == (8192, 4096, 1024)
    with pytest.raises(ValueError, match="frozen"):
        config.head_chars = 1  # type: ignore[misc]
    assert len(PRUNE_MARKER) == 39


@pytest.mark.parametrize(
    "options",
    [
        {"threshold_chars": 0},
        {"head_chars": -1},
        {"tail_chars": 1.5},
        {"threshold_chars": 100, "head_chars": 50, "tail_chars": 20},
        {"bogus": 1},
    ],
)
def test_bad_config_is_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        load_pruner_config(options)


def test_only_text_code_points_count() -> None:
    assert measure_content([text("a\U0001f600b"), {"type": "reasoning", "text": "long"}]) == 3


def test_emoji_are_never_split() -> None:
    config = PrunerConfig(threshold_chars=46, head_chars=4, tail_chars=3)
    pruned = prune_content([text("\U0001f600" * 60)], config)
    assert pruned == [text("\U0001f600" * 4 + PRUNE_MARKER + "\U0001f600" * 3)]
    assert "\ufffd" not in pruned[0]["text"]


def test_rich_blocks_keep_order_and_emptied_text_is_dropped() -> None:
    config = PrunerConfig(threshold_chars=50, head_chars=2, tail_chars=2)
    image = {"type": "image", "attachment": "img"}
    pruned = prune_content(
        [text("ab" + "x" * 30), image, text("y" * 30), text("z" * 10 + "cd")], config
    )
    assert pruned == [text("ab" + PRUNE_MARKER), image, text("cd")]


def test_zero_head_and_tail_leave_exactly_the_marker() -> None:
    config = PrunerConfig(threshold_chars=39, head_chars=0, tail_chars=0)
    assert prune_content([text("q" * 100)], config) == [text(PRUNE_MARKER)]
    assert prune_content([text("q" * 39)], config) is None


def _script_with_results(*sizes: int) -> Script:
    script = Script()
    script.begin_turn()
    for index, size in enumerate(sizes):
        script.tool_step(f"c{index}", "r" * size)
    return script


def test_rewrite_keeps_data_cites_the_original_and_is_metered() -> None:
    script = _script_with_results(200)
    session = script.session
    original_seq = session.surface_nodes[1]
    original = session.event_at(original_seq)
    assert original is not None
    config = PrunerConfig(threshold_chars=100, head_chars=10, tail_chars=10)
    report = prune_session(session, config)
    assert report.rewritten_seqs == (original_seq,)
    rewrite = session.events[-1]
    prune = session.events[-2]
    assert prune.type == "compaction/prune"
    assert prune.data["shadowedTokenCount"] == estimate_message(original.data["message"])
    assert rewrite.source_event_seqs == [original_seq]
    assert rewrite.data["message"]["id"] == original.data["message"]["id"]
    assert original_seq not in session.surface_nodes
    assert_log_valid(session.events)


def test_short_results_skipped_and_second_pass_is_empty() -> None:
    script = _script_with_results(10, 300, 500)
    config = PrunerConfig(threshold_chars=100, head_chars=10, tail_chars=10)
    report = prune_session(script.session, config)
    assert len(report.rewritten_seqs) == 2
    assert report.chars_removed == (300 - 59) + (500 - 59)
    assert prune_session(script.session, config).rewritten_seqs == ()


def test_replay_after_pruning_is_identical() -> None:
    script = _script_with_results(300)
    prune_session(script.session, PrunerConfig(threshold_chars=100, head_chars=10, tail_chars=10))
    rebuilt = replay(script.session)
    assert rebuilt.derive_messages() == script.session.derive_messages()
    assert rebuilt.replace_generation == script.session.replace_generation == 1


def test_pruning_outside_a_turn_is_rejected_inside_it_works() -> None:
    script = _script_with_results(300)
    script.end_turn()
    config = PrunerConfig(threshold_chars=100, head_chars=10, tail_chars=10)
    with pytest.raises(LogViolationError, match="outside any open turn"):
        prune_session(script.session, config)
    script.begin_turn()
    # The failed rewrite left its metering event behind; a fresh pass still works in a turn.
    assert len(prune_session(script.session, config).rewritten_seqs) == 1
