"""inspect-ai's compaction, through its own handler, on a known history."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from compactcheck.adapters import ADAPTERS, MissingExtraError
from tests.compactcheck.adapters.frameworks_history import HISTORY, kept


def _apply(name: str, parameters: dict[str, Any]) -> list[dict[str, Any]]:
    pytest.importorskip("inspect_ai", reason="needs the 'inspect-ai' extra")
    from compactcheck.adapters.inspect_compaction import ADAPTERS as KINDS

    return KINDS[name](name).apply(HISTORY, parameters)


def test_the_targets_are_registered() -> None:
    assert sorted(name for name in ADAPTERS if name.startswith("inspect-ai:")) == [
        "inspect-ai:compaction-edit",
        "inspect-ai:compaction-summary",
        "inspect-ai:compaction-trim",
        "inspect-ai:trim-messages",
    ]


@pytest.mark.parametrize("name", ["inspect-ai:trim-messages", "inspect-ai:compaction-trim"])
def test_trimming_keeps_the_input_and_half_the_conversation_minus_the_last_answer(
    name: str,
) -> None:
    # Seven conversation messages after the input, preserve 0.5: the last four, of which the
    # trailing assistant message goes, as inspect-ai documents.
    assert _apply(name, {"preserve": 0.5}) == kept(0, 1, 5, 6, 7)


def test_edit_replaces_older_results_by_its_placeholder() -> None:
    parameters = {"keep_tool_uses": 1, "keep_tool_inputs": True, "keep_thinking_turns": 1}
    answer = _apply("inspect-ai:compaction-edit", parameters)
    placeholder = {"role": "tool", "tool_call_id": "c1", "content": "(Tool result removed)"}
    assert answer == [*kept(0, 1, 2), placeholder, *kept(4, 5, 6, 7)]


def test_summary_follows_the_prefix_and_holds_what_the_echo_was_shown() -> None:
    answer = _apply("inspect-ai:compaction-summary", {"prompt": "default"})
    assert answer[:2] == kept(0, 1)
    assert len(answer) == 3
    summary = answer[2]
    assert summary["role"] == "user"
    for said in ("[CONTEXT COMPACTION SUMMARY]", "call c1: read_file", "2 passed", "Done."):
        assert said in summary["content"]


def test_the_local_model_counts_characters_not_a_downloaded_encoding() -> None:
    pytest.importorskip("inspect_ai", reason="needs the 'inspect-ai' extra")
    import asyncio

    from compactcheck.adapters.inspect_compaction import local_model

    # tiktoken's o200k_base would be fetched from the network; ours is characters / 4.
    assert asyncio.run(local_model().count_tokens("x" * 41)) == 11


def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in [m for m in sys.modules if m == "inspect_ai" or m.startswith("inspect_ai.")]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    for ours in ("inspect_compaction", "convert_inspect"):
        monkeypatch.delitem(sys.modules, f"compactcheck.adapters.{ours}", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[inspect-ai\]'"):
        ADAPTERS["inspect-ai:trim-messages"](timeout=1.0, budget=None)
